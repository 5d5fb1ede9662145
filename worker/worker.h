// The worker: a Member (engine/member.h) whose part of a job is a DynamicWorkerJob
// (worker/dynamic_worker_job.h) or a StaticWorkerJob (worker/static_worker_job.h), chosen by the
// engine named in JobStart (MakeWorkerJob).
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include "engine/member.h"

namespace strads {

// The worker's MemberJobFactory.
Result<std::unique_ptr<MemberJob>> MakeWorkerJob(const MemberContext& context, uint64_t job_id,
                                                 const proto::JobStart& start);

class Worker : public Member {
 public:
  // `identity.role` is set to ROLE_WORKER.
  // `apps` must outlive the worker: the app of each JobStart is found in it.
  Worker(Transport& transport, MemberIdentity identity, const AppRegistry& apps, Logger log)
      : Member(transport, proto::ROLE_WORKER, std::move(identity), apps, std::move(log),
               MakeWorkerJob) {}
};

}  // namespace strads
