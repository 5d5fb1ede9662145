#include "cli/status_view.h"

#include <map>
#include <vector>

#include <fmt/format.h>

#include "cli/fitted_line.h"
#include "cli/job_view.h"
#include "cli/text_table.h"
#include "common/counted_noun.h"
#include "common/protocol.h"

namespace strads {

std::string RenderJobs(const proto::StatusReply& status, size_t width) {
  // Dynamic jobs share their columns; a static app has its own work unit and objective.
  std::vector<const proto::JobInfo*> dynamic_jobs;
  std::map<std::string, std::vector<const proto::JobInfo*>> static_jobs;
  for (const auto& j : status.jobs()) {
    if (IsStaticJob(j)) {
      static_jobs[j.app()].push_back(&j);
    } else {
      dynamic_jobs.push_back(&j);
    }
  }
  std::vector<std::string> tables;
  auto render = [&](const std::vector<const proto::JobInfo*>& jobs, bool static_engine) {
    const proto::JobInfo* sample = jobs.front();
    for (const auto* j : jobs) {
      if (!j->work_unit().empty()) sample = j;
    }
    TextTable table;
    AddJobColumns(table, static_engine, *sample);
    for (const auto* j : jobs) table.AddRow(JobRow(*j));
    tables.push_back(table.Render(width));
  };
  if (!dynamic_jobs.empty()) render(dynamic_jobs, false);
  for (const auto& [app, jobs] : static_jobs) render(jobs, true);
  if (tables.empty()) return "no jobs\n";
  std::string out;
  for (const auto& t : tables) out += (out.empty() ? "" : "\n") + t;
  bool first_error = true;
  for (const auto& j : status.jobs()) {
    if (j.error().empty()) continue;
    out += fmt::format("{}job {}: {}\n", first_error ? "\n" : "", j.job_id(), j.error());
    first_error = false;
  }
  return out;
}

std::string RenderStatus(const proto::StatusReply& status, size_t width) {
  std::string out = CutToWidth(fmt::format("coordinator up {:.0f} s, {}", status.uptime_s(),
                                           CountedNoun(status.members_size(), "member")),
                               width);
  out += "\n";
  if (!status.store_problem().empty()) {
    out += "the coordinator's work dir is not written: " + status.store_problem() + "\n";
  }
  using Align = TextTable::Align;
  TextTable members;
  members.AddColumn("ROLE", Align::kLeft, 0);
  members.AddColumn("ID", Align::kLeft, 1);
  members.AddColumn("HOST", Align::kLeft, 2);
  members.AddColumn("PID", Align::kRight, 3);
  members.AddColumn("HEARTBEAT-AGE", Align::kRight, 1);
  members.AddColumn("STATE", Align::kLeft, 0);
  for (const auto& m : status.members()) {
    members.AddRow({RoleName(m.role()), m.id(), m.host(), std::to_string(m.pid()),
                    fmt::format("{:.1f} s", m.heartbeat_age_s()), m.busy() ? "busy" : "idle"});
  }
  if (members.rows() > 0) out += members.Render(width);
  return out + "\n" + RenderJobs(status, width);
}

}  // namespace strads
