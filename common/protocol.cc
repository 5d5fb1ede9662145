#include "common/protocol.h"

namespace strads {

proto::Envelope MakeEnvelope(const std::string& sender, uint64_t job_id, uint64_t round) {
  proto::Envelope e;
  e.set_version(kProtocolVersion);
  e.set_sender(sender);
  e.set_job_id(job_id);
  e.set_round(round);
  return e;
}

Status CheckVersion(const proto::Envelope& envelope) {
  if (envelope.version() == kProtocolVersion) return Status::Ok();
  return Status::FailedPrecondition("protocol version mismatch: " + envelope.sender() + " speaks " +
                                    std::to_string(envelope.version()) + ", this node speaks " +
                                    std::to_string(kProtocolVersion));
}

std::string BodyName(const proto::Envelope& envelope) {
  const auto* field =
      envelope.GetDescriptor()->FindFieldByNumber(static_cast<int>(envelope.body_case()));
  return field ? field->name() : "empty";
}

std::string RoleName(proto::Role role) {
  switch (role) {
    case proto::ROLE_COORDINATOR:
      return "coordinator";
    case proto::ROLE_SCHEDULER:
      return "scheduler";
    case proto::ROLE_WORKER:
      return "worker";
    case proto::ROLE_CLIENT:
      return "client";
    default:
      return "unspecified";
  }
}

std::string ScheduleName(proto::Schedule schedule) {
  switch (schedule) {
    case proto::SCHEDULE_RANDOM:
      return "random";
    case proto::SCHEDULE_CYCLIC:
      return "cyclic";
    case proto::SCHEDULE_STATIC:
      return "static";
    default:
      return "dynamic";
  }
}

bool IsFinal(proto::JobState state) {
  return state == proto::JOB_SUCCEEDED || state == proto::JOB_FAILED ||
         state == proto::JOB_CANCELLED;
}

std::string JobStateName(proto::JobState state) {
  switch (state) {
    case proto::JOB_QUEUED:
      return "QUEUED";
    case proto::JOB_LOADING:
      return "LOADING";
    case proto::JOB_RUNNING:
      return "RUNNING";
    case proto::JOB_SUCCEEDED:
      return "SUCCEEDED";
    case proto::JOB_FAILED:
      return "FAILED";
    case proto::JOB_CANCELLED:
      return "CANCELLED";
    case proto::JOB_RECOVERING:
      return "RECOVERING";
    default:
      return "UNSPECIFIED";
  }
}

}  // namespace strads
