#include "engine/dynamic_member_job.h"

#include <algorithm>

#include "common/protocol.h"

namespace strads {

DynamicMemberJob::DynamicMemberJob(const JobContext& context, const DynamicApp* app)
    : MemberJob(context),
      spec_(context.start.spec()),
      app_(app),
      rank_(context.start.rank()),
      num_schedulers_(std::max<uint32_t>(1, context.start.num_schedulers())),
      num_workers_(context.start.num_workers()) {}

void DynamicMemberJob::OnMessage(const proto::Envelope& e) {
  if (errors_.failed()) return;
  if (e.has_column_counts()) return HandleColumnCounts(e);
  if (!data_loaded()) {
    log_->debug("job {}: dropping {} (its data is not loaded)", id_, BodyName(e));
    return;
  }
  Handle(e);
}

}  // namespace strads
