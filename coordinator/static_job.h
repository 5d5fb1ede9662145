// StaticJob: one run of a static-engine job (lda, mf), as the coordinator sees it.
//
// The static engine runs a schedule planned before the run (engine/rotation_plan.h): P workers,
// B = P * K model blocks homed at the schedulers (block b at scheduler b mod S), a Latin-square
// rotation so that in every sub-round each worker holds a different block. The coordinator is the
// clock: it holds the sub-round barrier and all-reduces the app's small global aggregates (LDA's
// topic totals). The steps are those of engine/static_app.h:
//
//   loading    JobStart to every member; workers load their shard and answer Ready with their
//              initial aggregates; schedulers load their blocks. Begin (scheduler endpoints) then
//              goes to the workers.
//   a pass     PassStart(i, p) to the schedulers, which send each block they own to its first
//              holder; SubRoundStart(i, p, 0, aggregates) to the workers. A worker works on its
//              block once it has both the start and the block, passes the block on (directly to
//              the next holder, or home after its last visit) and answers SubRoundDone with its
//              change of the aggregates, its compute seconds and work units. When all P are in,
//              the deltas are summed into the aggregates and SubRoundStart(r + 1) follows. After
//              the last sub-round the pass ends once every scheduler has its blocks back
//              (PassDone).
//   iteration  iteration 0 is the evaluation pass alone; iterations 1..N run every pass, the
//              evaluation pass only when due (--eval-every) and always in the last iteration. A
//              trace row follows each evaluation pass, from the metrics the workers (with their
//              last SubRoundDone) and the schedulers (with PassDone) sent.
//   model      ModelRequest to every member, StaticOutput back; the app assembles the files.
//
// Stops after spec.static_engine().iterations() iterations, or at the first iteration end past
// --max-seconds (with an evaluation pass if that iteration had none). Every compute time is
// recorded per (sub-round, worker) in subrounds.csv, so load imbalance is visible.
// Thread-compatibility: owned by the coordinator's event loop.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/logging.h"
#include "common/transport.h"
#include "coordinator/engine_job.h"
#include "engine/rotation_plan.h"
#include "engine/static_app.h"

namespace strads {

class StaticJob final : public EngineJob {
 public:
  StaticJob(Transport& transport, uint64_t id, proto::JobSpec spec, const StaticApp* app,
            std::vector<JobMember> schedulers, std::vector<JobMember> workers, Logger log,
            Clock::time_point now, JobDeadlines deadlines = {}, Incarnation incarnation = {});

  void Start(Clock::time_point now) override;
  proto::JobInfo Info(Clock::time_point now) const override;
  std::vector<proto::ResultFile> ResultFiles() const override;
  // The last checkpoint taken between iterations (apps whose Checkpoints() is true; the others
  // run again from their first iteration): this run's, else the one it was to resume from (also
  // while it is still loading, so a loss then keeps the checkpoint).
  std::optional<proto::Checkpoint> TakeCheckpoint(Clock::time_point now) override {
    if (checkpoint_ || !app_->Checkpoints(spec_)) return checkpoint_;
    return incarnation_.resume;
  }
  bool PacesCheckpoints() const override { return app_->Checkpoints(spec_); }
  uint64_t checkpoints_collected() const override { return checkpoints_collected_; }
  uint64_t Progress() const override { return iterations_done_; }

 private:
  enum class Phase { kLoading, kRunning, kCheckpoint, kModel, kDone };

  bool Handle(const proto::Envelope& envelope, Clock::time_point now) override;
  proto::Engine engine() const override { return proto::ENGINE_STATIC; }
  bool Loading() const override { return phase_ == Phase::kLoading; }
  std::string Waiting() const override;
  void OnFinished(proto::JobState state, Clock::time_point now) override;

  void HandleReady(const proto::Envelope& e, Clock::time_point now);
  void HandleSubRoundDone(const proto::Envelope& e, Clock::time_point now);
  void HandlePassDone(const proto::Envelope& e, Clock::time_point now);
  void HandleOutput(const proto::Envelope& e, Clock::time_point now);

  void StartPass(uint64_t iteration, uint32_t pass, Clock::time_point now);
  void StartSubRound(Clock::time_point now);
  void MaybeEndPass(Clock::time_point now);
  void EndIteration(Clock::time_point now);
  // Whether `e` is the part of the member's reply expected next (then counts it); a repeat or
  // a gap is dropped, logged.
  bool NextPart(size_t slot, const proto::Envelope& e);
  // Enters `phase` and sends `e` to every member; their replies are counted afresh (seen_,
  // outputs_).
  void AskEveryone(Phase phase, const proto::Envelope& e, Clock::time_point now);
  void RequestModel(Clock::time_point now);
  // Between iterations, every --checkpoint-every seconds: StateRequest to every member; their
  // pieces, the aggregates and the trace become checkpoint_, then the next iteration starts.
  bool CheckpointDue(Clock::time_point now) const;
  void RequestState(Clock::time_point now);
  void HandleState(const proto::Envelope& e, Clock::time_point now);
  // A resumed run, once every member is ready: StaticRestore, then the iteration after the
  // checkpoint's.
  void Resume(Clock::time_point now);
  bool LimitReached(Clock::time_point now) const;
  bool Evaluation() const { return pass_ + 1 == passes_; }

  const StaticApp* app_;
  RotationPlan plan_;
  uint32_t passes_ = 1;
  Phase phase_ = Phase::kLoading;
  std::vector<char> seen_;  // per member in the current step: schedulers, then workers
  // Per member: the part of its multi-message reply (StaticOutput.part) expected next.
  std::vector<uint32_t> next_part_;

  // Loading.
  uint32_t ready_ = 0;
  uint64_t rows_ = 0, items_ = 0, total_work_ = 0;

  // The schedule.
  uint64_t iteration_ = 0;
  uint32_t pass_ = 0;
  uint32_t sub_round_ = 0;
  bool evaluated_ = false;  // the current iteration ran its evaluation pass
  uint32_t sub_round_dones_ = 0;
  bool sub_rounds_over_ = false;  // every sub-round of the current pass is done
  uint32_t pass_dones_ = 0;
  std::vector<double> aggregates_, next_aggregates_;
  uint64_t sub_rounds_done_ = 0;
  uint64_t work_ = 0;  // work units of non-evaluation passes
  std::map<std::string, double> pass_metrics_;
  std::map<std::string, double> metrics_;  // of the last evaluation
  std::optional<double> objective_;
  std::string note_;            // the app's ProgressNote on the last evaluation
  bool stopped_early_ = false;  // the app's StopsAfter said so at the last evaluation
  uint64_t iterations_done_ = 0;

  // Imbalance: per sub-round the slowest worker against the mean, summed over an iteration.
  std::vector<double> sub_round_seconds_;       // by worker, current sub-round
  std::vector<double> last_sub_round_seconds_;  // by worker, last completed sub-round
  double max_sum_ = 0, mean_sum_ = 0;           // current iteration
  double imbalance_ = 1.0;                      // last completed iteration
  double compute_seconds_ = 0;                  // sum over workers and non-evaluation sub-rounds

  // Model.
  uint32_t outputs_ = 0;
  std::vector<proto::OutputPiece> pieces_;
  std::vector<proto::ResultFile> files_;

  // Checkpoints.
  std::optional<proto::Checkpoint> checkpoint_;  // taken in this run
  Clock::time_point state_requested_;            // when the pending checkpoint was asked for
  uint64_t checkpoints_collected_ = 0;
  double last_checkpoint_s_ = 0;  // job time of the last one (or of the start)
  proto::Checkpoint pending_;     // being collected

  std::string trace_;
  std::string sub_rounds_csv_ = "iteration,pass,sub_round,worker,block,seconds,work\n";
};

}  // namespace strads
