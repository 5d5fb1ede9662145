// MakeMemberJob<DynamicJob, StaticJob>: a role's MemberJobFactory (engine/member_job.h), keyed by
// the engine named in JobStart.
//
// The role names its two job classes, each constructible as Job(const JobContext&, const App*),
// App being DynamicApp or StaticApp. This is the one place where a member looks the job's app up.
#pragma once

#include <memory>
#include <string>

#include "engine/dynamic_app.h"
#include "engine/member_job.h"
#include "engine/static_app.h"

namespace strads {

template <typename DynamicJob, typename StaticJob>
Result<std::unique_ptr<MemberJob>> MakeMemberJob(const JobContext& context) {
  const proto::JobStart& start = context.start;
  const std::string& name = start.spec().app();
  switch (start.engine()) {
    case proto::ENGINE_DYNAMIC: {
      STRADS_ASSIGN_OR_RETURN(auto app, context.apps.FindDynamic(name));
      return std::unique_ptr<MemberJob>(std::make_unique<DynamicJob>(context, app));
    }
    case proto::ENGINE_STATIC: {
      STRADS_ASSIGN_OR_RETURN(auto app, context.apps.FindStatic(name));
      return std::unique_ptr<MemberJob>(std::make_unique<StaticJob>(context, app));
    }
    default:
      return Status::InvalidArgument("job " + std::to_string(context.job_id) + " (app '" + name +
                                     "') names no engine this member knows (engine " +
                                     std::to_string(static_cast<int>(start.engine())) + ")");
  }
}

}  // namespace strads
