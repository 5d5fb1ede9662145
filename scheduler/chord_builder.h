// ChordBuilder: which parameters of one scheduler's partition go into the next chord.
//
// The SAP policy (paper Section 2.1, Algorithm 1) over the partition [first, end):
//   1. draw `candidates` (P') distinct parameters with probability p(j) ∝ priority(j), from a sum
//      tree (O(log J) per draw and per update);
//   2. order them by priority, keep greedily those whose |corr| with every kept one is <= rho,
//      at most `chord_size` (B); without a filter, the B of highest priority, listed in index
//      order where the policy asks (index_order);
//   3. the kept parameters are "in flight" until their commit: their weight is zero, so a chord
//      prepared while another is in flight (pipeline depth D > 1) never repeats a parameter, and
//      every chord carries the parameter's latest committed value. A new chord's parameters must
//      also be independent of those still in flight: with D > 1 they are updated against the
//      same stale residual, exactly like members of one chord (without this, correlated
//      parameters of consecutive chords interfere and the run can diverge).
//   4. a commit sets priority(j) = |delta_j| + eta; an optimality check sets it to the predicted
//      step |violation_j| / ||x_j||^2 + eta, so parameters that are not yet moving but should
//      are found.
// Other policies (Schedule): random = B uniform draws, no filter (Shotgun); cyclic = the next B
// parameters in order; static = uniform candidates with the filter, no priorities.
// Thread-compatibility: owned by the scheduler's event loop.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "common/huge_pages.h"
#include "engine/dependency_filter.h"
#include "engine/priority_sampler.h"
#include "scheduler/ascending_ids.h"
#include "strads.pb.h"

namespace strads {

struct ChordPolicy {
  proto::Schedule schedule = proto::SCHEDULE_DYNAMIC;
  uint32_t chord_size = 32;
  uint32_t candidates = 64;
  double rho = 0.1;
  double eta = 1e-6;
  uint64_t seed = 1;
  // Check new chords against the parameters in flight (step 3). Not needed at pipeline depth 1:
  // a chord is computed only after every earlier commit is applied, so nothing is stale.
  bool check_in_flight = true;
  // Without a filter (rho >= 1), the dynamic schedule's chord lists its parameters in index
  // order instead of priority order: the workers, the only readers of the order, pass over their
  // columns in memory order, and the scheduler sorts no (priority, tie) records, only ids after a
  // draw of several passes (a one-pass draw is in index order already).
  bool index_order = false;
  // The dual pipeline (the STRADS poster, on the owner-computes layout): each draw makes two
  // chords of at most chord_size, its highest-priority parameters the fresh lane (the chord Next
  // returns first) and the next ones the stale lane (the chord after it, which the workers may
  // compute before the fresh one's commit reaches them: Chord.stale_lane). Both come from one
  // draw through one filter, so the lanes are independent of each other.
  bool dual_lanes = false;
};

class ChordBuilder {
 public:
  // REQUIRES: `store` outlives the builder; the builder covers store.first()..store.end().
  ChordBuilder(const ColumnStore& store, ChordPolicy policy);

  // The parameters of the next chord (global ids), marked in flight: the stale lane of the last
  // draw if it is waiting (dual_lanes), else the prepared chord if there is one, else a new one.
  // May be empty when every parameter is in flight or has zero priority.
  std::vector<uint64_t> Next();
  // Whether the chord the last Next returned is a stale lane (dual_lanes).
  bool last_was_stale() const { return last_was_stale_; }

  // Builds the next chord ahead of its request (latency hiding: the scheduler does this while
  // the workers compute), marked in flight like a dispatched one, so it stays valid: commits
  // arriving meanwhile only shrink the in-flight set it was checked against. Worth it only while
  // AheadDrawsWhole(): the caller decides.
  void Prepare();

  // Whether a chord built now, ahead of its request, would draw from most of the partition: at
  // most 1 / kAheadInFlightShare of it in flight. No chord holds a parameter in flight; built
  // ahead, it is drawn before the commit that frees the last chord's parameters, so where one
  // chord holds much of the partition (chords as large as the partition, e.g. Fashion-MNIST's
  // 784 features in chords of ~460 after the filter) it takes what the last one left: rounds
  // alternated between ~460 and ~30 parameters, the small ones the filter's leftovers. The
  // scheduler then builds the chord on request, after that commit (docs/performance.md).
  static constexpr size_t kAheadInFlightShare = 4;
  bool AheadDrawsWhole() const { return in_flight_ * kAheadInFlightShare <= priority_.size(); }

  // Frees the parameters of the chords built and not yet taken by Next (the prepared one, and
  // with dual_lanes the stale lanes waiting), e.g. before a check resets the priorities.
  void DropPrepared();
  // Whether a chord is built and not yet taken by Next (prepared ahead, or a stale lane).
  bool prepared() const { return !stale_.empty() || prepared_.has_value(); }
  // Whether Next() will return a built chord, without building one (it is not empty).
  bool ready() const { return !stale_.empty() || (prepared_.has_value() && !prepared_->empty()); }
  // The chord Next() will return without building one. REQUIRES: prepared().
  std::span<const uint64_t> prepared_chord() const {
    return stale_.empty() ? std::span<const uint64_t>(*prepared_) : stale_;
  }

  // A committed change of parameter j (in flight before): priority |delta| + eta.
  void OnCommit(uint64_t j, double delta);
  // How many commits ahead a caller of OnCommit prefetches with PrefetchCommit.
  static constexpr size_t kCommitsAhead = 8;
  // Asks the CPU to fetch what OnCommit(j) will read (a hint: a commit's ids are scattered over
  // the partition, and each costs a cache miss per array on a large one). REQUIRES: j in the
  // partition.
  void PrefetchCommit(uint64_t j) const {
    const size_t local = j - store_.first();
    __builtin_prefetch(priority_.data() + local);
    __builtin_prefetch(flying_.data() + local);
    store_.PrefetchSquaredNorm(j);
  }

  // The optimality check measured `violation` for parameter j (not in flight): priority becomes
  // the predicted step violation / ||x_j||^2 + eta.
  void OnCheck(uint64_t j, double violation);
  // OnCheck for every parameter of the partition at once: violations[local] for parameter
  // first + local. The same priorities and sampler weights as a call of OnCheck for each, in
  // order, without queueing one weight a parameter (on a partition of 100,000 a check's
  // priorities and the next chord took 265 + 428 us that way, 122 + 347 us now:
  // strads-sampler-bench --builder --after-check).
  // REQUIRES: violations.size() is the partition's size.
  void OnCheckAll(std::span<const double> violations);

  // Parameters of one group are never checked against each other (DependencyFilter::SetGroups).
  void SetGroups(std::vector<uint32_t> group_by_local) {
    filter_.SetGroups(std::move(group_by_local));
  }
  // Parameter j is now updated by worker `group` (DependencyFilter::SetGroup).
  void SetGroup(uint64_t j, uint32_t group) { filter_.SetGroup(j, group); }

  // The filter checks candidates against these lists (built at the policy's rho) instead of
  // computing correlations (DependencyFilter::UseNeighbours). REQUIRES: built from the builder's
  // store; outlives the builder.
  void UseNeighbours(const NeighbourLists* lists) { filter_.UseNeighbours(lists, policy_.rho); }

  size_t in_flight() const { return in_flight_; }
  double Priority(uint64_t j) const { return priority_[j - store_.first()]; }

 private:
  // A chord of at most `size` parameters, in index order where `by_index` (and no filter).
  std::vector<uint64_t> Build(size_t size, bool by_index);
  // The next draw: one chord, or with dual_lanes the fresh lane (the stale one goes to `stale`).
  std::vector<uint64_t> Draw(std::vector<uint64_t>& stale);
  // Frees chord parameters never sent (in flight since they were drawn).
  void Release(std::span<const uint64_t> ids);
  // Sampler weights change in batches (PrioritySampler::SetMany): commits, checks and dropped
  // chords queue theirs, and Build applies them, in order, before it samples.
  void SetLater(size_t local, double weight);
  void FlushPending();
  bool Eligible(size_t local) const;
  // A check's priority: the predicted step violation / sq_norm + eta (0 for an empty column).
  double CheckPriority(double violation, double sq_norm) const {
    return sq_norm > 0 ? violation / sq_norm + policy_.eta : 0.0;
  }
  // Marks a parameter in flight and gives it weight 0 in the sampler (unless weight_is_zero: it
  // is already, or the caller sets it).
  void MarkInFlight(size_t local, bool weight_is_zero = false);

  const ColumnStore& store_;
  ChordPolicy policy_;
  std::mt19937_64 rng_;
  HugePageVector<double> priority_;   // by local index
  HugePageVector<char> flying_;       // by local index
  std::vector<uint64_t> flying_ids_;  // global ids in flight (and, until Build, committed ones)
  PrioritySampler sampler_;           // weight = priority, 0 while in flight
  std::vector<size_t> pending_ids_;   // SetLater: applied by FlushPending, in order
  std::vector<double> pending_weights_;
  DependencyFilter filter_;
  AscendingIds ascending_;  // index order without a filter
  size_t in_flight_ = 0;
  uint64_t cursor_ = 0;  // cyclic policy
  std::optional<std::vector<uint64_t>> prepared_;
  std::vector<uint64_t> prepared_stale_;  // the stale lane of prepared_ (dual_lanes)
  std::vector<uint64_t> stale_;           // the stale lane Next returns next (dual_lanes)
  bool last_was_stale_ = false;
  std::vector<uint8_t> chosen_;  // Build's scratch: a draw's candidates in the chord, by position
};

}  // namespace strads
