#include "engine/member.h"

#include <map>
#include <memory>

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
  // With data roots, each file is opened once, beneath its root, and the job reads that open file
  // by its descriptor's path: no later lookup of the job's path (which a swapped symbolic link
  // could send elsewhere) reads anything.
  const DataRoots& roots = session_.identity().data_roots;
  proto::JobStart start = e.job_start();
  std::shared_ptr<OpenedFiles> files;
  if (!roots.empty()) {
    files = std::make_shared<OpenedFiles>();
    std::map<std::string, std::string> read_paths;
    for (const auto& path : JobSpecPaths(apps_, start.spec())) {
      if (read_paths.count(path)) continue;
      auto opened = roots.Open(path);
      if (!opened.ok()) {
        log_->warn("job {} refused: {}", e.job_id(), opened.status().message());
        JobErrorReport(session_, transport_.id(), e.job_id(), start.epoch(), log_)
            .Report(opened.status().message());
        return;
      }
      read_paths[path] = files->Add(std::move(opened).value());
      log_->info("job {}: reads {} as {} (opened beneath --data-root)", e.job_id(), path,
                 read_paths[path]);
    }
    MapJobSpecPaths(apps_, *start.mutable_spec(),
                    [&](const std::string& path) { return read_paths.at(path); });
  }
  auto job = factory_(
      JobContext{transport_, session_, apps_, log_, e.job_id(), start, Execution::kThreads, files});
  if (!job.ok()) {
    JobErrorReport(session_, transport_.id(), e.job_id(), e.job_start().epoch(), log_)
        .Report(job.status().message());
    return;
  }
  jobs_.Replace(std::move(job).value(), log_, why);
}

}  // namespace strads
