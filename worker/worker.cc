#include "worker/worker.h"

#include "engine/member_job_factory.h"
#include "worker/dynamic_worker_job.h"
#include "worker/static_worker_job.h"

namespace strads {

Result<std::unique_ptr<MemberJob>> MakeWorkerJob(const JobContext& context) {
  return MakeMemberJob<DynamicWorkerJob, StaticWorkerJob>(context);
}

}  // namespace strads
