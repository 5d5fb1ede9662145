#include "engine/member.h"

#include "common/protocol.h"
#include "engine/job_error_report.h"
#include "engine/job_spec.h"

namespace strads {
namespace {

MemberIdentity WithRole(MemberIdentity identity, proto::Role role) {
  identity.role = role;
  return identity;
}

}  // namespace

Member::Member(Transport& transport, proto::Role role, MemberIdentity identity,
               const AppRegistry& apps, Logger log, MemberJobFactory factory)
    : transport_(transport),
      apps_(apps),
      log_(log),
      session_(transport, WithRole(std::move(identity), role), log),
      factory_(std::move(factory)) {}

Member::~Member() = default;

void Member::OnTick(Clock::time_point now) {
  session_.OnTick(now, jobs_.id());
  jobs_.Tick();
}

void Member::OnMessage(const proto::Envelope& e, Clock::time_point now) {
  if (session_.OnMessage(e)) {
    if (session_.registrations() > registrations_seen_) {
      if (registrations_seen_ > 0 && jobs_.id() != 0) {
        jobs_.End(log_, "the coordinator was lost and found again");
      }
      registrations_seen_ = session_.registrations();
    }
    return;
  }
  if (e.body_case() == proto::Envelope::kJobStart) return StartJob(e);
  if (!jobs_.Route(e, log_)) {
    log_->debug("dropping {} for job {} (not running it)", BodyName(e), e.job_id());
  }
}

void Member::StartJob(const proto::Envelope& e) {
  const std::string why = "replaced by job " + std::to_string(e.job_id());
  jobs_.End(log_, why);
  for (const auto& path : JobSpecPaths(apps_, e.job_start().spec())) {
    if (Status st = session_.identity().data_roots.Check(path); !st.ok()) {
      log_->warn("job {} refused: {}", e.job_id(), st.message());
      JobErrorReport(session_, transport_.id(), e.job_id(), e.job_start().epoch(), log_)
          .Report(st.message());
      return;
    }
  }
  auto job = factory_(JobContext{transport_, session_, apps_, log_, e.job_id(), e.job_start()});
  if (!job.ok()) {
    JobErrorReport(session_, transport_.id(), e.job_id(), e.job_start().epoch(), log_)
        .Report(job.status().message());
    return;
  }
  jobs_.Replace(std::move(job).value(), log_, why);
}

}  // namespace strads
