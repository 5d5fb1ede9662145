#include "cli/status_json.h"

#include "common/protocol.h"

namespace strads {

nlohmann::ordered_json StatusToJson(const proto::StatusReply& s) {
  nlohmann::ordered_json j;
  j["coordinator"] = s.coordinator();
  j["uptime_s"] = s.uptime_s();
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
                            {"busy", m.busy()}});
  }
  j["jobs"] = nlohmann::ordered_json::array();
  for (const auto& job : s.jobs()) {
    j["jobs"].push_back({{"job_id", job.job_id()},
                         {"app", job.app()},
                         {"state", JobStateName(job.state())},
                         {"round", job.round()},
                         {"updates", job.updates()},
                         {"objective", job.objective()},
                         {"updates_per_s", job.updates_per_s()},
                         {"seconds", job.seconds()},
                         {"converged", job.converged()},
                         {"violation", job.violation()},
                         {"iteration", job.iteration()},
                         {"imbalance", job.imbalance()},
                         {"objective_name", job.objective_name()},
                         {"worker_seconds", std::vector<double>(job.worker_seconds().begin(),
                                                                job.worker_seconds().end())},
                         {"data", job.spec().data_path()},
                         {"error", job.error()}});
  }
  return j;
}

}  // namespace strads
