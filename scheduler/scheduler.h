// The scheduler: a Member (engine/member.h) whose part of a job is a DynamicSchedulerJob
// (scheduler/dynamic_scheduler_job.h) or a StaticHomeJob (scheduler/static_home_job.h), chosen by
// the engine named in JobStart (MakeSchedulerJob).
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include "engine/member.h"

namespace strads {

// The scheduler's MemberJobFactory.
Result<std::unique_ptr<MemberJob>> MakeSchedulerJob(const MemberContext& context, uint64_t job_id,
                                                    const proto::JobStart& start);

class Scheduler : public Member {
 public:
  // `identity.role` is set to ROLE_SCHEDULER. `apps` must outlive the scheduler: the app of each
  // JobStart is found in it.
  Scheduler(Transport& transport, MemberIdentity identity, const AppRegistry& apps, Logger log)
      : Member(transport, proto::ROLE_SCHEDULER, std::move(identity), apps, std::move(log),
               MakeSchedulerJob) {}
};

}  // namespace strads
