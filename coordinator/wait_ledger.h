// WaitLedger: where a dynamic job's solve time went, by what the job was waiting for.
//
// The coordinator sees every step of a round and of a check go by, so at any moment it knows what
// the job is blocked on: a scheduler's chord (the oldest round out has none yet: rounds commit in
// order), the workers' shares (it has its chord), the workers' part of a check (their gradients and
// losses) or the schedulers' part (the violations and priorities they compute once every gradient
// slice is in). The job tells the ledger its state after each event (Mark); the ledger adds the
// time since the last mark to the state that held during it. The scheduler is the bottleneck where
// `chord` and `check_schedulers` take much of the time; they include the messages' hops to and from
// the scheduler.
// The coordinator sees a message only once it has a core. With as many busy workers as cores it
// may handle a round's chord after the workers computed most of the round, and the ledger would
// charge their work to the chord. So each share carries its
// worker's compute time, and at the round's commit the job moves the part of it the coordinator
// did not see (the longest compute less the time since it took the chord up) from the round's
// chord time over to the workers, at most what the chord was charged (Move;
// DynamicJob::CorrectRoundWaits). Thread-compatibility: a value type.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/event_loop.h"

namespace strads {

class WaitLedger {
 public:
  enum class Wait {
    kNone,             // not solving: loading, the first check, the final model, done
    kChord,            // the oldest round out has no chord: waiting on its scheduler
    kWorkers,          // the oldest round out has its chord: waiting on the workers' shares
    kCheckWorkers,     // a check: the workers' gradients and losses
    kCheckSchedulers,  // a check: every worker has answered, the schedulers evaluate
    kCoordinator,      // the coordinator handling a message (summing shares, committing)
    kOther,            // solving with no round out and no check (not expected; kept visible)
  };
  static constexpr size_t kWaits = 7;

  // From `now` on the job is in state `wait`: the time since the last mark is added to the state
  // marked then (nothing before the first mark).
  void Mark(Clock::time_point now, Wait wait);

  // Moves up to `seconds` of the time already added to `from` over to `to` (none if `seconds` is
  // not positive; never more than `from` holds). For what a member measured and the coordinator
  // could not see: a worker that computed a round while the coordinator, with no core, had not yet
  // handled the round's chord (DynamicJob::CorrectRoundWaits).
  void Move(Wait from, Wait to, double seconds);
  // Seconds moved so far from one state to another.
  double moved() const { return moved_; }

  Wait state() const { return state_; }
  // Seconds spent in `wait` up to the last mark.
  double Seconds(Wait wait) const { return seconds_[static_cast<size_t>(wait)]; }
  // Seconds spent in every state but kNone.
  double Solving() const;
  // The schedulers' share of the solve: (chord + check_schedulers) / Solving() (0 before any).
  double SchedulersShare() const;

  // {"chord_s", "workers_s", "check_workers_s", "check_schedulers_s", "coordinator_s", "other_s",
  //  "moved_s", "schedulers_share"}: moved_s is moved() (already in the states it went to); the
  //  share is SchedulersShare().
  nlohmann::ordered_json Json() const;

  static std::string_view Name(Wait wait);

 private:
  std::array<double, kWaits> seconds_{};
  double moved_ = 0;
  Wait state_ = Wait::kNone;
  std::optional<Clock::time_point> since_;
};

}  // namespace strads
