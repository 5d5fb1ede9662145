// CheckPacer: when the dynamic engine's coordinator stops the rounds for a full optimality check.
//
// A check computes every parameter's gradient on the workers (one pass over the data, in
// parallel), the objective exactly, the stopping criterion, and a fresh priority for every
// parameter: the step it would take, violation / ||x_j||^2 + eta. Between checks the priorities
// move only for the parameters the rounds draw, so a parameter whose gradient crossed its
// threshold since the last check waits for the sampler's floor (eta) to find it. On a shape like
// the paper's (450 x 1,000,000, ~400 nonzero coefficients) finding the active set is most of the
// work to 1e-3, and one check refreshes all 1,000,000 priorities in the time of ~35 rounds that
// visit ~70,000 parameters: a check every J updates (the old rule) left it at ~2 sweeps' worth of
// rounds between refreshes (docs/performance.md).
//
// Rules:
//   every_updates > 0 (--check-every N): a check once N updates were committed since the last,
//     whatever the time: deterministic.
//   every_updates = 0 and by_time (the default for the dynamic schedule; the others draw without
//     priorities, so DynamicJob passes by_time = false and they check every J updates): a check
//     once `features` updates were committed since the last, or sooner, once the rounds since the
//     last check have taken as long as that check took (kRoundsPerCheck = 1). A check's time runs
//     from when it was wanted to when the coordinator has every report, so the pipeline's drain
//     counts (the round after it, asked for with the check, may already be under way then). The
//     first check's time also holds the members' start (handling Begin): it is not taken as a
//     measure (Done's `measured`), and the next check comes after the first committed round
//     instead. (With the first check's ~15 ms as the measure, the 20,000 x 20,000 L1-LR problem ran
//     its first three or four rounds, of the eight it needs to 1e-3, on the first check's
//     priorities (at beta = 0), refreshed only where a round drew.) Checks then take about half of
//     the time at most, or more where J updates come sooner (e.g. chords larger than J). 1 measured
//     best of 1, 2 and 4 on the paper's shape, the 1000 x 100,000 Lasso problem and the 20,000 x
//     20,000 L1-LR one (docs/performance.md). The time rule needs at least one committed update
//     since the last check, so a check is never repeated without a round between, and a measured
//     check: a Done without a Wanted before it (a check of unknown cost) keeps the last measure,
//     and before the first measure only the count applies (and, after a check that held the start,
//     the one-round rule above).
// Pure logic over the times it is given; a value type.
#pragma once

#include <cstdint>
#include <optional>

#include "common/event_loop.h"  // Clock

namespace strads {

class CheckPacer {
 public:
  static constexpr double kRoundsPerCheck = 1.0;

  CheckPacer() = default;
  // every_updates 0: every `features` updates, and sooner by time if `by_time`.
  CheckPacer(uint64_t every_updates, uint64_t features, bool by_time);

  // True when a check is due after `updates` committed updates in all.
  [[nodiscard]] bool Due(uint64_t updates, Clock::time_point now) const;

  // A check was wanted (for any reason): its time counts from the first call until Done.
  void Wanted(Clock::time_point now);
  // The check finished after `updates` committed updates; rounds resume at `now`. A check that
  // held the members' start (`measured` false) gives no measure: its time was mostly the start.
  // The time rule then asks for the next check after the first committed round, which is
  // measured.
  void Done(uint64_t updates, Clock::time_point now, bool measured = true);

  // Whether any committed update makes the next check due (the rule after a check that held the
  // start): a caller with a scheduler's round in flight need not issue another of that
  // scheduler's before the check. At a pipeline depth of 2 with one scheduler, the second round
  // was issued on the first check's priorities, and the check after the first round waited for
  // it.
  bool DueAfterNextRound() const { return timed_ && after_start_; }
  uint64_t updates_at_check() const { return updates_at_check_; }
  // The last measured check's time, from wanted to done (0 before the first).
  double last_check_seconds() const { return last_check_seconds_.value_or(0.0); }
  bool timed() const { return timed_; }
  uint64_t every() const { return every_; }  // the count rule's N (J by default)

 private:
  uint64_t every_ = 1;
  bool timed_ = false;  // the time rule applies (every_updates was 0)
  uint64_t updates_at_check_ = 0;
  std::optional<Clock::time_point> wanted_at_;
  std::optional<Clock::time_point> resumed_at_;
  std::optional<double> last_check_seconds_;
  bool after_start_ = false;  // the last check held the start: the next comes after one round
};

}  // namespace strads
