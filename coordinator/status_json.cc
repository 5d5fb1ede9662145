#include "coordinator/status_json.h"

#include <vector>

#include "common/protocol.h"

namespace strads {

bool IsStaticJob(const proto::JobInfo& job) {
  return job.spec().engine_case() == proto::JobSpec::kStaticEngine;
}

bool ViolationMeasured(const proto::JobInfo& j) {
  return j.state() != proto::JOB_QUEUED && j.violation() >= 0;
}

nlohmann::ordered_json RecoveryJson(const proto::Recovery& r) {
  return {{"epoch", r.epoch()},
          {"cause", r.cause()},
          {"at_seconds", r.at_s()},
          {"restarted_at_seconds", r.restarted_at_s()},
          {"resumed_from", r.checkpoint_round()},
          {"work_redone", r.work_redone()}};
}

nlohmann::ordered_json JobJson(const proto::JobInfo& j) {
  nlohmann::ordered_json o = {{"job_id", j.job_id()},
                              {"app", j.app()},
                              {"engine", IsStaticJob(j) ? "static" : "dynamic"},
                              {"state", JobStateName(j.state())},
                              {"seconds", j.seconds()},
                              {"data", j.spec().data_path()},
                              {"error", j.error()},
                              {"epoch", j.epoch()}};
  // Each recovery: the run that ended, why, when (job seconds), the progress resumed from
  // (updates or iterations) and the work done twice.
  o["recoveries"] = nlohmann::ordered_json::array();
  for (const auto& r : j.recoveries()) o["recoveries"].push_back(RecoveryJson(r));
  if (!IsStaticJob(j)) {
    o["round"] = j.round();
    o["updates"] = j.updates();
    o["updates_per_s"] = j.updates_per_s();
    o["objective"] = j.objective();
    // Unmeasured before the first optimality check.
    o["violation"] = ViolationMeasured(j) ? nlohmann::ordered_json(j.violation()) : nullptr;
    o["converged"] = j.converged();
  } else {
    o["iteration"] = j.iteration();
    o["iterations"] = j.spec().static_engine().iterations();
    o["sub_rounds"] = j.round();
    o["work_unit"] = j.work_unit();
    o["work"] = j.updates();
    o["work_per_s"] = j.updates_per_s();
    o["objective_name"] = j.objective_name();
    o["objective"] = j.objective();
    o["imbalance"] = j.imbalance();
    o["worker_seconds"] = std::vector<double>(j.worker_seconds().begin(), j.worker_seconds().end());
  }
  return o;
}

namespace {

// {"coordinator": {"bytes_sent": ..., ...}, "worker": ...}: a node's traffic by kind of peer.
nlohmann::ordered_json TrafficJson(
    const google::protobuf::RepeatedPtrField<proto::PeerTraffic>& traffic) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (const auto& t : traffic) {
    o[t.peer() == proto::ROLE_UNSPECIFIED ? "other" : RoleName(t.peer())] = {
        {"bytes_sent", t.bytes_sent()},
        {"bytes_received", t.bytes_received()},
        {"messages_sent", t.messages_sent()},
        {"messages_received", t.messages_received()}};
  }
  return o;
}

}  // namespace

nlohmann::ordered_json StatusJson(const proto::StatusReply& s) {
  nlohmann::ordered_json j;
  j["coordinator"] = s.coordinator();
  j["uptime_s"] = s.uptime_s();
  j["store_problem"] = s.store_problem();
  size_t schedulers = 0, workers = 0;
  for (const auto& m : s.members()) {
    schedulers += m.role() == proto::ROLE_SCHEDULER;
    workers += m.role() == proto::ROLE_WORKER;
  }
  j["schedulers"] = schedulers;
  j["workers"] = workers;
  j["members"] = nlohmann::ordered_json::array();
  for (const auto& m : s.members()) {
    j["members"].push_back({{"id", m.id()},
                            {"role", RoleName(m.role())},
                            {"host", m.host()},
                            {"pid", m.pid()},
                            {"endpoint", m.endpoint()},
                            {"heartbeat_age_s", m.heartbeat_age_s()},
                            {"busy", m.busy()},
                            {"traffic", TrafficJson(m.traffic())}});
  }
  j["coordinator_traffic"] = TrafficJson(s.coordinator_traffic());
  j["jobs"] = nlohmann::ordered_json::array();
  for (const auto& job : s.jobs()) j["jobs"].push_back(JobJson(job));
  return j;
}

}  // namespace strads
