#include "scheduler/chord_builder.h"

#include <algorithm>
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
      filter_(store) {
  // Until the first optimality check every parameter is equally important (Algorithm 1 starts
  // with a large constant C for all).
  for (size_t i = 0; i < priority_.size(); ++i) {
    priority_[i] = store_.SquaredNorm(store_.first() + i) > 0 ? 1.0 : 0.0;
    sampler_.Set(i, priority_[i]);
  }
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
  if (prepared_) {
    auto chord = *std::exchange(prepared_, std::nullopt);
    // Built while the previous chord was in flight; commits since may have freed parameters.
    if (!chord.empty()) return chord;
  }
  return Build();
}

void ChordBuilder::Prepare() {
  if (!prepared_) prepared_ = Build();
}

void ChordBuilder::DropPrepared() {
  if (!prepared_) return;
  for (uint64_t j : *prepared_) {
    const size_t local = j - store_.first();
    flying_[local] = 0;
    --in_flight_;
    SetLater(local, store_.SquaredNorm(j) > 0 ? priority_[local] : 0.0);
  }
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

std::vector<uint64_t> ChordBuilder::Build() {
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
      for (size_t step = 0; step < n && chord.size() < policy_.chord_size; ++step) {
        size_t local = cursor_++ % n;
        if (Eligible(local)) chord.push_back(first + local);
      }
      break;
    }
    case proto::SCHEDULE_RANDOM:
    case proto::SCHEDULE_STATIC: {
      const bool filter = policy_.schedule == proto::SCHEDULE_STATIC;
      const size_t want = filter ? policy_.candidates : policy_.chord_size;
      std::uniform_int_distribution<size_t> pick(0, n - 1);
      std::vector<uint64_t> drawn;
      // Drawn ones are marked in flying_ meanwhile (a linear search of `drawn` per try cost
      // O(B^2) a round, ~1 ms at B = 1024, and slowed the random baseline of docs/study.md).
      for (size_t tries = 0; drawn.size() < want && tries < 4 * want + 16; ++tries) {
        size_t local = pick(rng_);
        if (Eligible(local)) {
          flying_[local] = 1;
          drawn.push_back(first + local);
        }
      }
      for (uint64_t j : drawn) flying_[j - first] = 0;
      chord = filter ? filter_.Filter(drawn, policy_.rho, policy_.chord_size, running)
                     : std::move(drawn);
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
      // would be a cache miss each on a large partition (log B of them per candidate).
      // Ties go in a random order: the draw returns its candidates by index, and a stable sort
      // keeps that order among equal priorities, so when more than B candidates tied (e.g. many
      // at eta) the chord took the lowest indices. That starved the high end of the partition
      // and gave the workers owning its low end twice the share of the others (1,366 against
      // 682 ids a round on the paper shape, 1 x 2). So the candidates are shuffled before the
      // sort, by SplitMix64 steps from one draw of the generator (std::shuffle's draw per
      // candidate cost 5 % of the scheduler's round; sorting by priority and then a random key
      // cost 45 %: many ties are cheap to sort, random keys are not).
      std::vector<size_t> order(drawn.size());
      for (size_t k = 0; k < order.size(); ++k) {
        assert(weights[k] == priority_[drawn[k]]);
        order[k] = k;
      }
      uint64_t state = rng_();
      for (size_t k = order.size(); k > 1; --k) {
        state += 0x9e3779b97f4a7c15ULL;
        const auto r =
            static_cast<size_t>((static_cast<unsigned __int128>(MixBits(state)) * k) >> 64);
        std::swap(order[k - 1], order[r]);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return weights[a] > weights[b]; });
      std::vector<uint64_t> ids(drawn.size());
      for (size_t k = 0; k < order.size(); ++k) ids[k] = first + drawn[order[k]];
      if (policy_.rho >= 1.0) {
        // No filter: the first B. The draw's candidates are distinct, so the filter's check for
        // repeats (a stamp per candidate, a cache miss each on a large partition) is not needed.
        ids.resize(std::min<size_t>(ids.size(), policy_.chord_size));
        chord = std::move(ids);
      } else {
        chord = filter_.Filter(ids, policy_.rho, policy_.chord_size, running);
      }
      for (uint64_t j : chord) MarkInFlight(j - first, /*weight_is_zero=*/true);
      for (size_t k = 0; k < drawn.size(); ++k) {
        const bool in_chord = flying_[drawn[k]];
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

void ChordBuilder::OnCheck(uint64_t j, double violation) {
  const size_t local = j - store_.first();
  const double sq = store_.SquaredNorm(j);
  priority_[local] = sq > 0 ? violation / sq + policy_.eta : 0.0;
  if (!flying_[local]) SetLater(local, priority_[local]);
}

}  // namespace strads
