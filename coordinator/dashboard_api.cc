#include "coordinator/dashboard_api.h"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "coordinator/dashboard_assets.h"
#include "coordinator/status_json.h"

namespace strads {
namespace {

constexpr char kJson[] = "application/json";

HttpReply JsonReply(int status, const nlohmann::ordered_json& body) {
  // Replace: a job's error text may hold bytes that are not UTF-8.
  return {status, kJson,
          body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)};
}

HttpReply NotFound(const std::string& message) { return JsonReply(404, {{"error", message}}); }

HttpReply Trace(const DashboardSnapshot& snapshot, std::string_view id_text) {
  uint64_t id = 0;
  const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  if (ec != std::errc() || end != id_text.data() + id_text.size() || id_text.empty()) {
    return NotFound(fmt::format("no job '{}': a job id is a number", id_text.substr(0, 32)));
  }
  const proto::JobInfo* job = nullptr;
  for (const auto& j : snapshot.status.jobs()) {
    if (j.job_id() == id) job = &j;
  }
  if (!job) return NotFound(fmt::format("no job {}", id));
  auto trace = snapshot.traces.find(id);
  if (trace == snapshot.traces.end()) {
    return NotFound(fmt::format("job {}: its trace is no longer kept", id));
  }
  nlohmann::ordered_json out = {
      {"job_id", id},
      {"app", job->app()},
      {"engine", IsStaticJob(*job) ? "static" : "dynamic"},
      {"objective_name",
       job->objective_name().empty() ? std::string("objective") : job->objective_name()},
      {"work_unit", IsStaticJob(*job) ? job->work_unit() : "updates"}};
  out.update(trace->second->Json());
  return JsonReply(200, out);
}

}  // namespace

HttpReply DashboardReply(const DashboardSnapshot& snapshot, const std::string& path) {
  const std::string_view p = path;
  if (p == "/api/status") return JsonReply(200, StatusJson(snapshot.status));
  constexpr std::string_view kJobs = "/api/jobs/", kTrace = "/trace";
  if (p.starts_with(kJobs) && p.ends_with(kTrace) && p.size() >= kJobs.size() + kTrace.size()) {
    return Trace(snapshot, p.substr(kJobs.size(), p.size() - kJobs.size() - kTrace.size()));
  }
  const std::string_view asset = p == "/" ? "/index.html" : p;
  for (const auto& a : dashboard_assets::kAssets) {
    if (a.path == asset) return {200, std::string(a.content_type), std::string(a.body)};
  }
  return NotFound(fmt::format("no page {}", p.substr(0, 64)));
}

}  // namespace strads
