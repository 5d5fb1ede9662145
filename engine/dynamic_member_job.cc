#include "engine/dynamic_member_job.h"

#include <algorithm>

#include "common/memory_matrix.h"
#include "common/protocol.h"

namespace strads {

DynamicMemberJob::DynamicMemberJob(const JobContext& context, const DynamicApp* app)
    : MemberJob(context),
      spec_(context.start.spec()),
      app_(app),
      rank_(context.start.rank()),
      num_schedulers_(std::max<uint32_t>(1, context.start.num_schedulers())),
      num_workers_(context.start.num_workers()),
      source_(ResolveDataSource(spec_.data_path(), spec_.dynamic().data_format(),
                                spec_.dynamic().labels_path(),
                                context.session.identity().memory_data.get())) {}

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
