// StaticHomeJob: a scheduler's part of a static-engine job (lda, mf): the home of the model
// blocks b with b mod S == its rank.
//
// It loads its StaticHome on a background thread and answers Ready. On PassStart(i, p) it gives
// out every block it owns (StaticHome::TakeBlock) to the worker that first works on it in the pass
// (engine/rotation_plan.h); blocks come back after their last visit of the pass
// (StaticHome::ReturnBlock). With all of them home it answers PassDone — after the evaluation pass
// with its metrics. On ModelRequest it sends its part of the outputs. Failures are reported
// through a JobErrorReport (to the coordinator, which fails the job); the scheduler stays up.
// Thread-compatibility: used by the scheduler's event loop only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/background_load.h"
#include "engine/static_member_job.h"

namespace strads {

class StaticHomeJob final : public StaticMemberJob {
 public:
  // Starts loading the home of scheduler start.rank() of start.num_schedulers().
  StaticHomeJob(const JobContext& context, const StaticApp* app);
  ~StaticHomeJob() override;

  void OnTick() override;

 private:
  bool Handle(const proto::Envelope& e) override;
  StaticPart* part() const override { return home_.get(); }
  bool blocks_away() const override { return in_pass_; }
  void FinishLoading(Result<std::unique_ptr<StaticHome>> loaded);
  void HandlePassStart(const proto::Envelope& e);
  void HandleBlock(const proto::Envelope& e) override;
  void SendPassDone();

  std::vector<uint32_t> owned_;  // block ids
  std::unique_ptr<StaticHome> home_;
  bool in_pass_ = false;
  StaticStep step_;
  uint32_t away_ = 0;  // blocks of the current pass not yet back
  BackgroundLoad<std::unique_ptr<StaticHome>> load_{work_};  // last member: destroyed first
};

}  // namespace strads
