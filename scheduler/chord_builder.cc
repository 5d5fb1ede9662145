#include "scheduler/chord_builder.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace strads {

namespace {

// SplitMix64's output function: a bijection of 64-bit words that scatters nearby inputs.
uint64_t MixBits(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ChordBuilder::ChordBuilder(const ColumnStore& store, ChordPolicy policy)
    : store_(store),
      policy_(policy),
      rng_(policy.seed),
      priority_(store.end() - store.first(), 0.0),
      flying_(store.end() - store.first(), 0),
      sampler_(store.end() - store.first(), 0.0),
      filter_(store),
      ascending_(store.first(), store.end()) {
  // Until the first optimality check every parameter is equally important (Algorithm 1 starts
  // with a large constant C for all).
  // One pass over the leaves and one rebuild above them (a Set each walked the tree: 1,000,000
  // walks for the paper's shape).
  sampler_.SetAll([&](size_t i) {
    priority_[i] = store_.SquaredNorm(store_.first() + i) > 0 ? 1.0 : 0.0;
    return priority_[i];
  });
}

bool ChordBuilder::Eligible(size_t local) const {
  return !flying_[local] && store_.SquaredNorm(store_.first() + local) > 0;
}

void ChordBuilder::MarkInFlight(size_t local, bool weight_is_zero) {
  flying_[local] = 1;
  flying_ids_.push_back(store_.first() + local);
  ++in_flight_;
  if (!weight_is_zero) sampler_.Set(local, 0.0);
}

std::vector<uint64_t> ChordBuilder::Next() {
  last_was_stale_ = !stale_.empty();
  if (last_was_stale_) return std::exchange(stale_, {});
  if (prepared_) {
    auto chord = *std::exchange(prepared_, std::nullopt);
    stale_ = std::exchange(prepared_stale_, {});
    // Built while the previous chord was in flight; commits since may have freed parameters.
    if (!chord.empty()) return chord;
  }
  return Draw(stale_);
}

void ChordBuilder::Prepare() {
  if (!prepared()) prepared_ = Draw(prepared_stale_);
}

std::vector<uint64_t> ChordBuilder::Draw(std::vector<uint64_t>& stale) {
  if (!policy_.dual_lanes) return Build(policy_.chord_size, policy_.index_order);
  // One draw of twice the size in priority order, split: the first chord_size the fresh lane.
  std::vector<uint64_t> fresh = Build(2 * size_t{policy_.chord_size}, /*by_index=*/false);
  const auto split =
      static_cast<std::ptrdiff_t>(std::min<size_t>(fresh.size(), policy_.chord_size));
  stale.assign(fresh.begin() + split, fresh.end());
  fresh.resize(static_cast<size_t>(split));
  if (policy_.index_order && policy_.rho >= 1.0) {
    ascending_.Sort(fresh);
    ascending_.Sort(stale);
  }
  return fresh;
}

void ChordBuilder::Release(std::span<const uint64_t> ids) {
  for (uint64_t j : ids) {
    const size_t local = j - store_.first();
    flying_[local] = 0;
    --in_flight_;
    SetLater(local, store_.SquaredNorm(j) > 0 ? priority_[local] : 0.0);
  }
}

void ChordBuilder::DropPrepared() {
  Release(stale_);
  stale_.clear();
  if (!prepared_) return;
  Release(*prepared_);
  Release(prepared_stale_);
  prepared_stale_.clear();
  prepared_.reset();
}

void ChordBuilder::SetLater(size_t local, double weight) {
  pending_ids_.push_back(local);
  pending_weights_.push_back(weight);
}

void ChordBuilder::FlushPending() {
  sampler_.SetMany(pending_ids_, pending_weights_);
  pending_ids_.clear();
  pending_weights_.clear();
}

std::vector<uint64_t> ChordBuilder::Build(size_t size, bool by_index_order) {
  const size_t n = priority_.size();
  const uint64_t first = store_.first();
  // Erasing one id per commit would cost O(in flight) each, O(B^2) a round.
  std::erase_if(flying_ids_, [&](uint64_t j) { return !flying_[j - first]; });
  const std::span<const uint64_t> running = policy_.check_in_flight
                                                ? std::span<const uint64_t>(flying_ids_)
                                                : std::span<const uint64_t>();
  std::vector<uint64_t> chord;
  FlushPending();
  if (n == 0) return chord;
  switch (policy_.schedule) {
    case proto::SCHEDULE_CYCLIC: {
      for (size_t step = 0; step < n && chord.size() < size; ++step) {
        size_t local = cursor_++ % n;
        if (Eligible(local)) chord.push_back(first + local);
      }
      break;
    }
    case proto::SCHEDULE_RANDOM:
    case proto::SCHEDULE_STATIC: {
      const bool filter = policy_.schedule == proto::SCHEDULE_STATIC;
      const size_t want = filter ? policy_.candidates : size;
      std::uniform_int_distribution<size_t> pick(0, n - 1);
      std::vector<uint64_t> drawn;
      // Drawn ones are marked in flying_ meanwhile (a linear search of `drawn` per try cost
      // O(B^2) a round, ~1 ms at B = 1024, and slowed the random baseline of docs/performance.md).
      for (size_t tries = 0; drawn.size() < want && tries < 4 * want + 16; ++tries) {
        size_t local = pick(rng_);
        if (Eligible(local)) {
          flying_[local] = 1;
          drawn.push_back(first + local);
        }
      }
      for (uint64_t j : drawn) flying_[j - first] = 0;
      chord = filter ? filter_.Filter(drawn, policy_.rho, size, running) : std::move(drawn);
      break;
    }
    default: {
      // The chord's members must be at weight 0 while in flight; the other candidates keep
      // their weights. Most candidates come out of the sampler with their weights still in the
      // tree (PrioritySampler::DrawSystematic), the first `zeroed` at 0: below, each gets the
      // weight it should have where that differs.
      std::vector<double> weights;
      size_t zeroed = 0;
      auto drawn = sampler_.DrawSystematic(policy_.candidates, rng_, weights, zeroed);
      // Sorted by priority, which for a drawn parameter is its weight before the draw: every
      // priority change of a parameter not in flight sets its weight to the same value (flushed
      // above), and one in flight is not drawn. Read in the comparisons, priority_[drawn[a]]
      // would be a cache miss each on a large partition (a few per candidate).
      // Ties go in a random order: the draw returns its candidates by index, so ordering ties
      // by that index took the lowest indices when more than B candidates tied (e.g. many at
      // eta). That starved the high end of the partition and gave the workers owning its low end
      // twice the share of the others (1,366 against 682 ids a round on the paper shape, 1 x 2).
      // Each candidate gets a random tie key (SplitMix64 of one draw of the generator plus its
      // position), sorted with its weight in one 16-byte record, so a comparison reads no other
      // array. Without the filter only the first B are needed: they are selected (linear) and
      // only they are sorted. (With a shuffle and a stable sort of indices by weights[], the way
      // before, a chord from 8,192 candidates on the 20,000 x 20,000 L1-LR problem took 1.0 ms
      // to build, 0.72 ms now, of which the sort 0.25 ms: the scheduler's part of a round that
      // follows a check, while the workers wait.)
      struct Candidate {
        double weight;
        uint64_t tie;  // random, then the position in the draw in the low bits: all distinct
        bool operator<(const Candidate& o) const {
          return weight > o.weight || (weight == o.weight && tie < o.tie);
        }
      };
      const uint64_t seed = rng_();
      std::vector<Candidate> order(drawn.size());
      // Bits of the position; a draw holds fewer than 2^63 candidates, so the shift is < 64.
      const int shift = std::bit_width(drawn.size());
      assert(shift < 64);
      for (size_t k = 0; k < order.size(); ++k) {
        assert(weights[k] == priority_[drawn[k]]);
        const uint64_t random = MixBits(seed + 0x9e3779b97f4a7c15ULL * (k + 1));
        order[k] = {weights[k], (random << shift) | k};
      }
      const bool filter = policy_.rho < 1.0;
      const size_t keep = filter ? order.size() : std::min<size_t>(order.size(), size);
      if (keep < order.size()) {
        std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep),
                         order.end());
      }
      const bool by_index = !filter && by_index_order;
      if (!by_index) std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep));
      const uint64_t position = (uint64_t{1} << shift) - 1;
      // Which of the draw's candidates are in the chord, by position: without a filter the
      // first `keep` of the order; with one, flying_ says so below (a cache miss each on a large
      // partition, a third of this function's time at 1,000,000 parameters).
      if (!filter) {
        chosen_.assign(drawn.size(), 0);
        for (size_t k = 0; k < keep; ++k) chosen_[order[k].tie & position] = 1;
      }
      std::vector<uint64_t> ids;
      ids.reserve(keep);
      if (by_index) {
        // The draw lists its candidates in index order, pass by pass, so the chosen ones taken
        // in the draw's order are the chord in index order after a draw of one pass; only a
        // draw of several passes (zeroed > 0) needs sorting.
        for (size_t k = 0; k < drawn.size(); ++k) {
          if (chosen_[k]) ids.push_back(first + drawn[k]);
        }
        if (zeroed > 0) ascending_.Sort(ids);
      } else {
        for (size_t k = 0; k < keep; ++k) ids.push_back(first + drawn[order[k].tie & position]);
      }
      if (!filter) {
        // No filter: the first B. The draw's candidates are distinct, so the filter's check for
        // repeats (a stamp per candidate, a cache miss each on a large partition) is not needed.
        chord = std::move(ids);
      } else {
        chord = filter_.Filter(ids, policy_.rho, size, running);
      }
      for (uint64_t j : chord) MarkInFlight(j - first, /*weight_is_zero=*/true);
      for (size_t k = 0; k < drawn.size(); ++k) {
        const bool in_chord = filter ? flying_[drawn[k]] != 0 : chosen_[k] != 0;
        if (k < zeroed && !in_chord) SetLater(drawn[k], weights[k]);
        if (k >= zeroed && in_chord) SetLater(drawn[k], 0.0);
      }
      // Applied by the next Build's flush, before its draw, together with the commits that
      // arrive meanwhile: one walk of the tree's upper levels a round instead of two.
      return chord;
    }
  }
  for (uint64_t j : chord) MarkInFlight(j - first);
  return chord;
}

void ChordBuilder::OnCommit(uint64_t j, double delta) {
  const size_t local = j - store_.first();
  if (flying_[local]) {
    flying_[local] = 0;
    --in_flight_;  // flying_ids_ drops it at the next Build
  }
  priority_[local] = std::abs(delta) + policy_.eta;
  SetLater(local, store_.SquaredNorm(j) > 0 ? priority_[local] : 0.0);
}

void ChordBuilder::OnCheckAll(std::span<const double> violations) {
  assert(violations.size() == priority_.size());
  // Every weight queued so far is superseded: a parameter not in flight takes its new priority,
  // one in flight keeps weight 0 (what the queue would have left it at).
  pending_ids_.clear();
  pending_weights_.clear();
  const uint64_t first = store_.first();
  sampler_.SetAll([&](size_t local) {
    priority_[local] = CheckPriority(violations[local], store_.SquaredNorm(first + local));
    return flying_[local] ? 0.0 : priority_[local];
  });
}

void ChordBuilder::OnCheck(uint64_t j, double violation) {
  const size_t local = j - store_.first();
  priority_[local] = CheckPriority(violation, store_.SquaredNorm(j));
  if (!flying_[local]) SetLater(local, priority_[local]);
}

}  // namespace strads
