// StaticWorkerJob: a worker's part of a static-engine job (lda, mf).
//
// It owns the worker's StaticShard (loaded on a background thread) and follows the plan
// (engine/rotation_plan.h) for its rank w: in sub-round r of a pass it works on block
// Block(r, w) once it has both the coordinator's SubRoundStart (the barrier, with the all-reduced
// aggregates) and the block itself (from its home scheduler or from the previous holder; blocks
// that arrive early wait in a buffer). Then it sends the block on — straight to the worker of the
// block's next visit in this pass, or home after its last visit — and reports SubRoundDone (its
// aggregate changes, compute seconds and work units; after the evaluation pass also its metrics)
// to the coordinator. On ModelRequest it sends its part of the outputs.
// Any failure of its part (a load error, a malformed block, an unreachable peer) is reported
// through a JobErrorReport (to the coordinator, which fails the job); the worker stays up.
// Thread-compatibility: used by the worker's event loop only.
#pragma once

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/background_load.h"
#include "engine/static_member_job.h"

namespace strads {

class StaticWorkerJob final : public StaticMemberJob {
 public:
  // Starts loading shard start.rank() of start.num_workers().
  StaticWorkerJob(const JobContext& context, const StaticApp* app);
  ~StaticWorkerJob() override;

  // Polls the background load (answers Ready when it is done) and the sub-round in progress.
  void OnTick() override;
  // A sub-round in progress, or a fresh load: the event loop ticks every millisecond to see it
  // end.
  bool Polling() const override { return compute_.valid() || MemberJob::Polling(); }
  // True while a load (abandoned or not) or a sub-round still runs.
  bool Busy() override {
    return MemberJob::Busy() || (compute_.valid() && compute_.wait_for(std::chrono::seconds(0)) !=
                                                         std::future_status::ready);
  }

 private:
  using BlockKey = std::tuple<uint64_t, uint32_t, uint32_t>;  // iteration, pass, block
  // A sub-round's work, done on its own thread.
  struct Computed {
    StaticStep step;
    StaticBlock block;
    std::vector<double> delta;
    Result<uint64_t> work = uint64_t{0};
    double seconds = 0;
    std::map<std::string, double> metrics;  // after the evaluation pass
  };

  bool Handle(const proto::Envelope& e) override;
  StaticPart* part() const override { return shard_.get(); }
  void FinishLoading(Result<std::unique_ptr<StaticShard>> loaded);
  void HandleBegin(const proto::Envelope& e);
  void HandleBlock(const proto::Envelope& e) override;
  // Starts the current sub-round if its start and its block are both here.
  void TryProcess();
  // Passes the finished sub-round's block on and reports it.
  void Collect();
  void SendBlock(const std::string& to, uint64_t iteration, uint32_t pass, uint32_t sub_round,
                 StaticBlock block);

  std::vector<std::string> scheduler_ids_;
  std::unique_ptr<StaticShard> shard_;
  std::optional<proto::SubRoundStart> start_;  // the barrier passed, not yet worked on
  std::map<BlockKey, StaticBlock> blocks_;     // blocks that arrived before their sub-round
  std::future<Computed> compute_;              // the sub-round in progress
  BackgroundLoad<std::unique_ptr<StaticShard>> load_{work_};  // last member: destroyed first
};

}  // namespace strads
