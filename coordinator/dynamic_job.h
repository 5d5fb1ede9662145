// DynamicJob: one run of a dynamic-engine (SAP) job, as the coordinator sees it.
//
// This is the engine's clock. Its life:
//
//   kLoading   JobStart to every member; each loads its part and answers Ready. Schedulers report
//              the parameter range they own; together they must tile [0, J).
//   kChecking  an optimality check: with no round in flight (but the one asked for with it, below),
//              CheckRequest(t) to the workers and schedulers; the workers send gradient slices
//              to the schedulers and exact losses here; schedulers answer
//              CheckReport (max violation, penalty). The first check, at beta = 0, also gives
//              lambda_max = max_j |grad_j|, the scale of the tolerance. Converged when
//              max violation <= tolerance * lambda_max (the criterion of the sequential reference).
//              The scheduler of round t is asked for its chord with the check
//              (CheckRequest.requests_chord; not when a limit makes the check the last): it builds
//              it once it has reported, so round t's chord and partials may come in before the
//              check ends; they wait for it, and are dropped if the check ends the job.
//   kRunning   rounds: ChordRequest(t) to scheduler t mod S while fewer than D rounds are in
//              flight (riding on the commit just sent to that scheduler when there is one:
//              Commit.requests_chord, or on the check before the round:
//              CheckRequest.requests_chord; while the next commit makes a check due, at most one
//              round a scheduler). The chord of round t comes from its scheduler, and from each
//              worker its ColumnPartials (the new values of the chord ids it owns and the change
//              of the shared vector; with --aggregation tree the workers combine them up a tree,
//              engine/share_tree.h, and only the root's comes, holding every worker's). Strictly
//              in round order, the commit takes their values, and SharedUpdate(t), the sum of
//              their changes in rank order (the tree's order), goes to every worker (to the root,
//              which forwards it down the tree), Commit(t) to the chord's scheduler. When more than
//              one worker moved, the round's step is scaled by the alpha in [0, 1] that minimises
//              the objective along it (engine/step_length.h), so no round increases the objective.
//              When a check is due (coordinator/check_pacer.h: after `check_every` updates, by
//              default J or sooner once the rounds took as long as the last check), a limit is
//              reached or a chord comes back empty, issuing stops, the pipeline drains, and a check
//              follows (asking for the next round with it).
//   kRestoring only in a resumed run (Incarnation::resume), between loading and the first check:
//              round 0 sets every parameter to its checkpointed value: Restore(0) to the workers,
//              who answer with the change of the shared vector their columns make; its sum goes
//              out as SharedUpdate(0), and each scheduler gets Commit(0). Then a check (which
//              also refreshes every priority from the violations), and rounds from 1. lambda_max
//              comes from the checkpoint.
//   kModel     the final model: ModelRequest to the schedulers, ModelSlice back.
//   done       succeeded (converged or a limit), failed (a member's error, a dead member, a broken
//              invariant) or cancelled; JobEnd has gone to every member.
//
// Priorities live in the schedulers, and so does the model the job returns; per round it keeps
// the chord and the workers' shares of the rounds in flight (at most D). It also keeps a copy of
// the committed values (O(J), for the partial result of a job that does not finish) and a replica
// of the shared vector (O(rows): the objective and the step length).
// Thread-compatibility: owned by the coordinator's event loop.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/event_loop.h"
#include "common/huge_pages.h"
#include "common/logging.h"
#include "common/transport.h"
#include "coordinator/answer_set.h"
#include "coordinator/check_pacer.h"
#include "coordinator/check_tally.h"
#include "coordinator/engine_job.h"
#include "coordinator/trace_log.h"
#include "coordinator/wait_ledger.h"
#include "engine/dynamic_app.h"
#include "engine/shared_replica.h"
#include "engine/vector_delta.h"

namespace strads {

class DynamicJob final : public EngineJob {
 public:
  // Times the coordinator's own handling of a message, for the wait ledger: the real clock in a
  // daemon, the test's fake clock in a unit test (so every figure of the ledger is exact there).
  using Stopwatch = std::function<Clock::time_point()>;

  DynamicJob(
      Transport& transport, uint64_t id, proto::JobSpec spec, const DynamicApp* app,
      std::vector<JobMember> schedulers, std::vector<JobMember> workers, Logger log,
      Clock::time_point now, JobDeadlines deadlines = {}, Incarnation incarnation = {},
      Stopwatch stopwatch = [] { return Clock::now(); });

  void OnTick(Clock::time_point now) override;
  proto::JobInfo Info(Clock::time_point now) const override;
  // The result files (coefficients.tsv, trace.csv, summary.json) once the job has ended after
  // loading; unless it succeeded, the coefficients are the values committed so far and
  // summary.json says "partial": true.
  std::vector<proto::ResultFile> ResultFiles() const override;
  // The committed values (every commit of rounds < next round applied): nothing before the first
  // check has given lambda_max.
  std::optional<proto::Checkpoint> TakeCheckpoint(Clock::time_point now) override;
  uint64_t Progress() const override { return updates_; }

 private:
  enum class Phase { kLoading, kRestoring, kChecking, kRunning, kModel, kDone };
  struct Round {
    std::optional<proto::Chord> chord;
    uint32_t partials = 0;
    std::vector<char> seen;                     // by worker rank
    std::vector<proto::ColumnPartials> shares;  // by worker rank
    // When the coordinator took the chord up: handled, or the check's end for one that came
    // during a check (CorrectRoundWaits).
    std::optional<Clock::time_point> chord_in;
  };
  bool Handle(const proto::Envelope& envelope, Clock::time_point now) override;
  bool Dispatch(const proto::Envelope& envelope, Clock::time_point now);
  // What the job waits for now (WaitLedger).
  WaitLedger::Wait WaitState() const;
  // Runs `body` (handling a message, a tick) as the coordinator's own time in the ledger, then
  // marks what the job waits for after it.
  template <class Body>
  void Timed(Clock::time_point now, Body&& body);
  proto::Engine engine() const override { return proto::ENGINE_DYNAMIC; }
  bool Loading() const override { return phase_ == Phase::kLoading; }
  // Who the job is waiting for right now, for the stall error.
  std::string Waiting() const override;
  void OnFinished(proto::JobState state, Clock::time_point now) override;

  void HandleReady(const proto::Envelope& e, Clock::time_point now);
  // Sums the workers' column counts and sends the sum to every member.
  void HandleColumnCounts(const proto::Envelope& e, Clock::time_point now);
  void HandleChord(const proto::Envelope& e, Clock::time_point now);
  // Round `round`'s chord, of scheduler `rank`, taken up while running (its time is the round's
  // chord_in): an exhausted one asks for a check.
  void OnChordIn(int rank, Round& round, Clock::time_point now);
  void HandleColumnPartials(const proto::Envelope& e, Clock::time_point now);
  // The round of a worker's partials, once per worker, or null (late, early or repeated).
  Round* AcceptPartials(const proto::Envelope& e, int rank, Clock::time_point now);
  // Commits round next_commit_ from the chord and the workers' shares; false if the job failed.
  bool CommitColumns(Round& round, proto::Envelope& e, Clock::time_point now);
  // A round's (or the restore's) SharedUpdate: to every worker, or with --aggregation tree to the
  // root, which forwards it down the tree.
  void SendSharedUpdate(proto::Envelope&& e, Clock::time_point now);
  // Shares a round takes (and loss reports a check): one a worker, or with --aggregation tree the
  // root's alone.
  size_t PartialsPerRound() const { return tree_ ? 1 : workers_.size(); }
  // At a round's commit (`now`): the ledger charged the round's wait since the last
  // commit to its chord until the coordinator took the chord up, which can be long after the
  // workers got it; their own compute times say how long they worked. The longest of them, less
  // the time since the chord was taken up (the workers' and the coordinator's own since), moves
  // from the chord's time to the workers', at most what the chord was charged since the last
  // commit (WaitLedger::Move).
  void CorrectRoundWaits(const Round& round, Clock::time_point now);
  // The step length along the round's combined change (engine/step_length.h),
  // from the coordinator's replica and the chord's values and deltas.
  double CombinedStepLength(const proto::Chord& chord, const std::vector<double>& deltas,
                            const proto::VectorDelta& change) const;
  // Resumed run: round 0 restores the checkpoint (see kRestoring above).
  void StartRestore(Clock::time_point now);
  void HandleRestoreShare(const proto::Envelope& e, Clock::time_point now);
  void FinishRestore(Clock::time_point now);
  void HandleLossReport(const proto::Envelope& e, Clock::time_point now);
  void HandleCheckReport(const proto::Envelope& e, Clock::time_point now);
  void HandleModelSlice(const proto::Envelope& e, Clock::time_point now);

  // Requests chords up to the pipeline depth (while the next commit makes a check due, up to one
  // round a scheduler: CheckPacer::DueAfterNextRound). `commit`, the round's last commit held back
  // by TryCommit, is sent first; the first request to the same scheduler rides on it.
  void Issue(Clock::time_point now, std::optional<proto::Envelope> commit = std::nullopt);
  void TryCommit(Clock::time_point now);
  // A check is wanted: the rounds drain, then MaybeStartCheck starts it.
  void WantCheck(Clock::time_point now);
  void MaybeStartCheck(Clock::time_point now);
  void FinishCheck(Clock::time_point now);
  void RequestModel(Clock::time_point now);
  bool LimitReached(Clock::time_point now) const;
  void Trace(Clock::time_point now, bool force);
  // A trace row for the current state, at `now`, with `objective`.
  void AddTraceRow(Clock::time_point now, double objective);
  double ApproxObjective() const;

  const DynamicApp* app_;
  const Stopwatch stopwatch_;
  AnswerSet loaded_;  // Ready, by slot: schedulers, then workers
  Phase phase_ = Phase::kLoading;
  bool start_checked_ = false;  // the run's first check (which holds the start) is done
  // While loading: the workers' counts of their parts of the file, summed, and
  // whether the sum went to the members.
  AnswerSet counted_;  // ColumnCounts, by worker rank
  std::vector<uint64_t> count_sum_;
  uint64_t rows_counted_ = 0;
  bool counts_forwarded_ = false;

  // Loading.
  uint64_t num_features_ = 0;
  uint64_t num_rows_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;  // by scheduler rank
  std::vector<proto::RangeOwners> range_owners_;       // by scheduler rank: Ready.owners
  uint32_t grouped_ranges_ = 0;                        // schedulers whose range was grouped
  // The largest chord size and candidates the schedulers draw (Ready: the spec's, or adapted to
  // their partitions); 0 until they are ready.
  uint32_t chord_size_ = 0, candidates_ = 0;

  // Rounds.
  uint64_t next_issue_ = 0;   // next round to request
  uint64_t next_commit_ = 0;  // next round to commit
  std::map<uint64_t, Round> rounds_;
  uint64_t updates_ = 0;
  CheckPacer pacer_;                                  // when the rounds stop for a check
  std::optional<Clock::time_point> check_logged_at_;  // the last check logged at info level
  bool check_wanted_ = false;
  double penalty_ = 0;
  SharedReplica replica_;  // the shared vector, as every worker holds it
  uint64_t damped_rounds_ = 0;
  uint64_t stale_rounds_ = 0;  // the dual pipeline's stale-lane rounds committed
  double step_sum_ = 0;
  std::optional<DeltaAccumulator> sum_;  // a round's summed change (scratch)

  // Checks.
  CheckTally tally_;  // the answers to the check running, or the last one's
  uint64_t checks_ = 0;
  uint64_t updates_at_previous_check_ = UINT64_MAX;
  // By scheduler rank: it sent an exhausted chord (nothing to schedule) since the last check
  // that found the updates grown. A check without progress fails the job only once every
  // scheduler said so.
  std::vector<uint8_t> exhausted_;
  // --aggregation tree (engine/share_tree.h): the shares of a round and the loss reports of a
  // check come combined from worker 0, the tree's root, and SharedUpdate and CheckRequest go to
  // that worker alone.
  const bool tree_;
  std::optional<double> lambda_max_;
  double violation_ = -1;  // relative, last check
  bool converged_ = false;
  double objective_ = 0;

  // Model.
  AnswerSet model_slices_;  // by scheduler rank
  std::vector<std::pair<uint64_t, double>> model_;
  // Every parameter's latest committed value, by id (sized J once the ranges tile; 8 bytes a
  // parameter, a hash map cost 8 % of a 1-worker Lasso job): the coefficients of a job that ends
  // unfinished.
  HugePageVector<double> committed_;

  // Trace and rate.
  // Restoring: the workers' shares of round 0.
  std::vector<proto::ColumnPartials> restore_shares_;
  AnswerSet restored_;  // by worker rank

  TraceLog trace_{"seconds,round,updates,objective,schedule,epoch"};
  WaitLedger waits_;  // where the solve's time went
  // The ledger's chord seconds at the last commit (CorrectRoundWaits).
  double chord_s_at_commit_ = 0;
  Clock::time_point last_row_at_{};  // the time of the last trace row added (AddTraceRow)
};

}  // namespace strads
