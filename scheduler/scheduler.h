// The scheduler: home of one disjoint partition of the parameters, and the source of the chords
// of the rounds t with t mod S == its rank.
//
// Driven by envelopes and the clock (an Actor). On JobStart it reads the whole data file on a
// background thread (it needs every row of its columns for the dependency check and the columns'
// norms), derives the partition [first, end) from the column weights (the same deterministic
// PartitionByWeight on every scheduler), keeps only its own columns, and answers Ready. Then:
//  - ChordRequest(t): the next chord from the ChordBuilder, with the parameters' current values
//    and squared column norms, to every worker and to the coordinator;
//  - Commit(t): new values, and the priorities of the committed parameters;
//  - GradientSlice x P: the optimality check of its partition (CheckReport to the coordinator),
//    which also refreshes every priority;
//  - ModelRequest: its nonzero parameters.
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/background_load.h"
#include "common/event_loop.h"
#include "common/member_session.h"
#include "engine/app_registry.h"
#include "engine/dynamic_app.h"
#include "engine/job_slot.h"
#include "scheduler/chord_builder.h"
#include "scheduler/static_home_job.h"

namespace strads {

class Scheduler : public Actor {
 public:
  // `identity.role` is set to ROLE_SCHEDULER.
  // `apps` must outlive the scheduler: the app of each JobStart is found in it.
  Scheduler(Transport& transport, MemberIdentity identity, const AppRegistry& apps, Logger log);
  ~Scheduler() override;

  void OnMessage(const proto::Envelope& envelope, Clock::time_point now) override;
  void OnTick(Clock::time_point now) override;
  bool Finished() const override { return session_.shutdown_requested(); }

 private:
  // What the background load produces.
  struct Partition {
    uint64_t num_rows = 0;
    uint64_t num_features = 0;
    uint64_t first = 0;
    uint64_t end = 0;
    uint64_t nonzeros = 0;
    std::unique_ptr<ColumnStore> store;
  };
  struct Job {
    uint64_t id = 0;
    proto::JobSpec spec;
    uint32_t rank = 0;
    uint32_t num_schedulers = 0;
    uint32_t num_workers = 0;
    const DynamicApp* app = nullptr;
    std::vector<std::string> worker_ids;
    Partition part;
    std::unique_ptr<ChordBuilder> builder;
    std::vector<double> values;    // by local index
    std::vector<double> gradient;  // check in progress: sum of slices received
    uint32_t slices = 0;
    uint64_t check_round = 0;
    // The coordinator's CheckRequest travels behind the commits on one channel, the workers'
    // slices on others: a check is evaluated only once both are in, so the values it reads
    // reflect every commit before it.
    std::optional<uint64_t> check_requested;
    uint64_t applied_through = 0;  // rounds < applied_through: every commit sent here applied
  };

  // Reads the whole file and keeps the columns of partition `rank` of `parts` (background thread).
  static Result<Partition> LoadPartition(const proto::JobSpec& spec, uint32_t rank, uint32_t parts);
  void HandleJobStart(const proto::Envelope& e);
  void FinishLoading(Result<Partition> loaded);
  void HandleChordRequest(const proto::Envelope& e);
  void HandleCommit(const proto::Envelope& e);
  void HandleGradientSlice(const proto::Envelope& e);
  void HandleModelRequest(const proto::Envelope& e);
  void Send(const std::string& to, const proto::Envelope& e);
  // Reports a failure of this member's part of the job to the coordinator (which fails the job).
  void ReportError(const std::string& what);
  void MaybeFinishCheck();
  void EndJob(const std::string& why);

  // Static-engine jobs (lda, mf) run in their own object (engine/job_slot.h); true if `e` was
  // one of theirs.
  bool RouteStatic(const proto::Envelope& e);
  uint64_t CurrentJobId() const;

  Transport& transport_;
  const AppRegistry& apps_;
  Logger log_;
  MemberSession session_;
  std::unique_ptr<Job> job_;
  JobSlot<StaticHomeJob> static_job_;
  BackgroundLoad<Partition> load_;  // last member: destroyed (waited for) first
};

}  // namespace strads
