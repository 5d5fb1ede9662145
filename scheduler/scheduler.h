// The scheduler: a Member (engine/member.h) whose part of a job is a DynamicSchedulerJob
// (scheduler/dynamic_scheduler_job.h) or a StaticHomeJob (scheduler/static_home_job.h), chosen by
// the engine named in JobStart (MakeSchedulerJob).
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include "engine/member.h"

namespace strads {

Result<std::unique_ptr<MemberJob>> MakeSchedulerJob(const JobContext& context);

using Scheduler = RoleMember<proto::ROLE_SCHEDULER, MakeSchedulerJob>;

}  // namespace strads
