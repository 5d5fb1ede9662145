// DynamicWorkerJob: a worker's part of a dynamic-engine job (lasso, logistic, svm).
//
// It holds one row shard of the data and the app's per-row state (e.g. the residual):
//  - from its construction it loads only its shard (rows ShardRows(total, rank, P)) on a
//    background thread, so heartbeats continue during a long load, and answers Ready;
//  - on Chord(t) it pushes the app's partial statistics for the chord to the coordinator, but only
//    once it has applied every commit of rounds <= t - D (D = pipeline depth): no read is staler
//    than D - 1 rounds. With the dual pipeline the chord's tail is pushed as soon as the bound
//    allows, its fresh head (ids[:fresh_count]) only once every earlier commit is applied;
//  - on Commit(t) it applies the changes (commits arrive in round order; one out of order is
//    refused and reported) and releases chords that became eligible;
//  - on CheckRequest it sends its gradient slice to each scheduler and its exact loss to the
//    coordinator.
// Failures of its part go to the coordinator through a JobErrorReport.
// Thread-compatibility: used by the worker's event loop only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/background_load.h"
#include "common/dataset.h"
#include "engine/dynamic_app.h"
#include "engine/member_job.h"

namespace strads {

class DynamicWorkerJob final : public MemberJob {
 public:
  // Starts loading shard start.rank() of start.num_workers().
  DynamicWorkerJob(const MemberContext& context, uint64_t job_id, const proto::JobStart& start,
                   const DynamicApp* app);
  ~DynamicWorkerJob() override;

  void OnMessage(const proto::Envelope& e) override;
  void OnTick() override;
  void Abandon() override { load_.Abandon(); }
  bool Busy() override { return load_.Busy(); }

  // Test hooks: the number of rounds whose commits are applied, and of chords still waiting.
  uint64_t applied_rounds() const { return applied_; }
  size_t pending_chords() const { return pending_.size(); }

 private:
  struct Pending {
    proto::Chord chord;
    std::optional<std::vector<double>> tail;  // dual pipeline: stats of ids[fresh_count:]
  };

  void FinishLoading(Result<Dataset> loaded);
  void HandleBegin(const proto::Envelope& e);
  void HandleCommit(const proto::Envelope& e);
  void HandleCheck(const proto::Envelope& e);
  // Pushes every waiting chord the staleness bound allows, in round order.
  void ComputeEligibleChords();
  void SendPartials(uint64_t round, const std::vector<double>& sums);

  proto::JobSpec spec_;
  uint32_t rank_;
  uint32_t num_workers_;
  const DynamicApp* app_;
  std::unique_ptr<ShardModel> model_;
  std::vector<uint64_t> partition_starts_;
  std::vector<std::string> scheduler_ids_;
  uint64_t applied_ = 0;                 // commits of rounds < applied_ are applied
  std::map<uint64_t, Pending> pending_;  // chords waiting for the staleness bound
  BackgroundLoad<Dataset> load_;         // last member: destroyed (waited for) first
};

}  // namespace strads
