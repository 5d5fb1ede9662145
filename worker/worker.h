// The worker: a Member (engine/member.h) whose part of a job is a DynamicWorkerJob
// (worker/dynamic_worker_job.h) or a StaticWorkerJob (worker/static_worker_job.h), chosen by the
// engine named in JobStart (MakeWorkerJob).
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include "engine/member.h"

namespace strads {

Result<std::unique_ptr<MemberJob>> MakeWorkerJob(const JobContext& context);

using Worker = RoleMember<proto::ROLE_WORKER, MakeWorkerJob>;

}  // namespace strads
