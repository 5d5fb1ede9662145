// The worker: holds one row shard of the data and the app's per-row state (e.g. the residual).
//
// Driven by envelopes and the clock (an Actor; see common/event_loop.h), it
//  - registers with the coordinator and sends heartbeats;
//  - on JobStart loads only its shard (rows ShardRows(total, rank, P)) on a background thread,
//    so heartbeats continue during a long load, and answers Ready;
//  - on Chord(t) pushes the app's partial statistics for the chord to the coordinator, but only
//    once it has applied every commit of rounds <= t - D (D = pipeline depth): no read is staler
//    than D - 1 rounds;
//  - on Commit(t) applies the changes (commits arrive in round order) and releases chords that
//    became eligible;
//  - on CheckRequest sends its gradient slice to each scheduler and its exact loss to the
//    coordinator.
// A malformed or unexpected message is logged and dropped; it never takes the worker down.
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/background_load.h"
#include "common/event_loop.h"
#include "common/logging.h"
#include "common/member_session.h"
#include "common/transport.h"
#include "engine/app_registry.h"
#include "engine/dynamic_app.h"
#include "engine/job_slot.h"
#include "worker/static_worker.h"

namespace strads {

class Worker : public Actor {
 public:
  // `identity.role` is set to ROLE_WORKER.
  // `apps` must outlive the worker: the app of each JobStart is found in it.
  Worker(Transport& transport, MemberIdentity identity, const AppRegistry& apps, Logger log);
  ~Worker() override;

  void OnMessage(const proto::Envelope& envelope, Clock::time_point now) override;
  void OnTick(Clock::time_point now) override;
  bool Finished() const override { return session_.shutdown_requested(); }
  bool Polling() const override { return static_job_.get() && static_job_.get()->computing(); }

  // Test hooks: the number of rounds whose commits are applied, and of chords still waiting.
  uint64_t applied_rounds() const { return job_ ? job_->applied : 0; }
  size_t pending_chords() const { return job_ ? job_->pending.size() : 0; }

 private:
  struct Job {
    uint64_t id = 0;
    proto::JobSpec spec;
    uint32_t rank = 0;
    uint32_t num_workers = 0;
    const DynamicApp* app = nullptr;
    std::unique_ptr<ShardModel> model;
    std::vector<uint64_t> partition_starts;
    std::vector<std::string> scheduler_ids;
    uint64_t applied = 0;  // commits of rounds < applied are applied
    struct Pending {
      proto::Chord chord;
      std::optional<std::vector<double>> tail;  // dual pipeline: stats of ids[fresh_count:]
    };
    std::map<uint64_t, Pending> pending;  // chords waiting for the staleness bound
  };

  void HandleJobStart(const proto::Envelope& e);
  void HandleBegin(const proto::Envelope& e);
  void HandleChord(const proto::Envelope& e);
  void HandleCommit(const proto::Envelope& e);
  void HandleCheck(const proto::Envelope& e);
  void FinishLoading(Result<Dataset> loaded);
  void ComputeEligibleChords();
  void Send(uint64_t round, const std::vector<double>& sums);
  void SendToCoordinator(const proto::Envelope& e) { (void)session_.SendToCoordinator(e); }
  void EndJob(const std::string& why);
  // Reports a failure of this member's part of the job to the coordinator (which fails the job).
  void ReportError(const std::string& what);

  // Static-engine jobs (lda, mf) run in their own object (engine/job_slot.h); true if `e` was
  // one of theirs.
  bool RouteStatic(const proto::Envelope& e);
  uint64_t CurrentJobId() const;

  Transport& transport_;
  const AppRegistry& apps_;
  Logger log_;
  MemberSession session_;
  std::unique_ptr<Job> job_;
  JobSlot<StaticWorkerJob> static_job_;
  BackgroundLoad<Dataset> load_;  // last member: destroyed (waited for) first
};

}  // namespace strads
