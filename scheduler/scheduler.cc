#include "scheduler/scheduler.h"

#include "engine/member_job_factory.h"
#include "scheduler/dynamic_scheduler_job.h"
#include "scheduler/static_home_job.h"

namespace strads {

Result<std::unique_ptr<MemberJob>> MakeSchedulerJob(const JobContext& context) {
  return MakeMemberJob<DynamicSchedulerJob, StaticHomeJob>(context);
}

}  // namespace strads
