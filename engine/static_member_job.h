// StaticMemberJob: what a member's part of a static-engine job knows whatever its role — the
// spec, the app, its rank, the plan (engine/rotation_plan.h) and the peers it sends blocks to —
// for StaticWorkerJob (worker/) and StaticHomeJob (scheduler/).
// Thread-compatibility: used by the member's event loop only.
#pragma once

#include <string>
#include <vector>

#include "engine/member_job.h"
#include "engine/rotation_plan.h"
#include "engine/static_app.h"

namespace strads {

class StaticMemberJob : public MemberJob {
 protected:
  // Connects to every worker of the job but this member (blocks travel to them).
  StaticMemberJob(const MemberContext& context, uint64_t job_id, const proto::JobStart& start,
                  const StaticApp* app);

  // Answers the coordinator's ModelRequest with this member's part of the outputs.
  void SendOutput(std::vector<proto::OutputPiece> pieces);

  const proto::JobSpec spec_;
  const StaticApp* const app_;
  const uint32_t rank_;
  const uint32_t num_schedulers_;  // >= 1
  const std::vector<std::string> worker_ids_;
  const RotationPlan plan_;
  const uint32_t passes_;  // per iteration, the last being the evaluation pass
};

}  // namespace strads
