#include "cli/job_view.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "common/protocol.h"

namespace strads {

namespace {

using Align = TextTable::Align;

bool Started(const proto::JobInfo& j) { return j.state() != proto::JOB_QUEUED; }

// The workers' compute seconds in the last sub-round, e.g. "0.12/0.10" (at most 8 shown).
std::string WorkerSeconds(const proto::JobInfo& j) {
  const auto& t = j.worker_seconds();
  if (t.empty()) return "-";
  if (t.size() > 8) {
    return fmt::format("{:.3g}..{:.3g}", *std::min_element(t.begin(), t.end()),
                       *std::max_element(t.begin(), t.end()));
  }
  std::string out;
  for (double s : t) out += fmt::format("{}{:.3g}", out.empty() ? "" : "/", s);
  return out;
}

std::string Violation(const proto::JobInfo& j) {
  return ViolationMeasured(j) ? fmt::format("{:.2e}", j.violation()) : "-";
}

std::string WorkUnit(const proto::JobInfo& j) {
  return j.work_unit().empty() ? "work units" : j.work_unit();
}

std::string ObjectiveName(const proto::JobInfo& j) {
  return j.objective_name().empty() ? "objective" : j.objective_name();
}

}  // namespace

std::string HeaderFor(const std::string& name, const std::string& fallback) {
  if (name.empty()) return fallback;
  // One pass: "_per_" becomes "/", another "_" a "-", letters upper case.
  constexpr std::string_view kPer = "_per_";
  std::string header;
  for (size_t i = 0; i < name.size();) {
    if (name.compare(i, kPer.size(), kPer) == 0) {
      header += '/';
      i += kPer.size();
    } else {
      const auto c = static_cast<unsigned char>(name[i++]);
      header += c == '_' ? '-' : static_cast<char>(std::toupper(c));
    }
  }
  return header;
}

void AddJobColumns(TextTable& table, bool static_engine, const proto::JobInfo& sample) {
  table.AddColumn("JOB", Align::kRight, 0);
  table.AddColumn("APP", Align::kLeft, 0);
  table.AddColumn("STATE", Align::kLeft, 0);
  if (!static_engine) {
    table.AddColumn("ROUND", Align::kRight, 3);
    table.AddColumn("UPDATES", Align::kRight, 2);
    table.AddColumn("UPDATES/S", Align::kRight, 1);
    table.AddColumn("OBJECTIVE", Align::kRight, 0);
    table.AddColumn("VIOLATION", Align::kRight, 1);
  } else {
    const std::string work = HeaderFor(sample.work_unit(), "WORK");
    table.AddColumn("ITERATION", Align::kRight, 0);
    table.AddColumn("SUB-ROUNDS", Align::kRight, 3);
    table.AddColumn(work, Align::kRight, 3);
    table.AddColumn(work + "/S", Align::kRight, 1);
    table.AddColumn(HeaderFor(sample.objective_name(), "OBJECTIVE"), Align::kRight, 0);
    table.AddColumn("IMBALANCE", Align::kRight, 2);
    table.AddColumn("WORKER-S", Align::kRight, 4);
  }
  table.AddColumn("SECONDS", Align::kRight, 1);
}

std::vector<std::string> JobRow(const proto::JobInfo& j) {
  std::vector<std::string> row = {std::to_string(j.job_id()), j.app(), JobStateName(j.state())};
  auto add = [&](std::string cell) { row.push_back(Started(j) ? std::move(cell) : "-"); };
  if (!IsStaticJob(j)) {
    add(std::to_string(j.round()));
    add(std::to_string(j.updates()));
    add(fmt::format("{:.0f}", j.updates_per_s()));
    add(fmt::format("{:.9g}", j.objective()));
    add(Violation(j));
  } else {
    add(fmt::format("{}/{}", j.iteration(), j.spec().static_engine().iterations()));
    add(std::to_string(j.round()));
    add(std::to_string(j.updates()));
    add(fmt::format("{:.3g}", j.updates_per_s()));
    add(fmt::format("{:.9g}", j.objective()));
    add(fmt::format("{:.2f}", j.imbalance()));
    add(WorkerSeconds(j));
  }
  add(fmt::format("{:.1f}", j.seconds()));
  return row;
}

std::vector<LineField> ProgressFields(const proto::JobInfo& j) {
  std::vector<LineField> f = {{fmt::format("job {} {}", j.job_id(), JobStateName(j.state())), 0}};
  if (!IsStaticJob(j)) {
    f.push_back({fmt::format("[{} {}]", j.app(), ScheduleName(j.spec().dynamic().schedule())), 5});
    f.push_back({fmt::format("round {}", j.round()), 3});
    f.push_back({fmt::format("updates {}", j.updates()), 2});
    f.push_back({fmt::format("({:.0f} updates/s)", j.updates_per_s()), 1});
    f.push_back({fmt::format("objective {:.8g}", j.objective()), 0});
    if (ViolationMeasured(j)) f.push_back({fmt::format("violation {:.2e}", j.violation()), 1});
  } else {
    f.push_back({fmt::format("[{}]", j.app()), 5});
    f.push_back(
        {fmt::format("iteration {}/{}", j.iteration(), j.spec().static_engine().iterations()), 0});
    f.push_back({fmt::format("sub-round {}", j.round()), 3});
    f.push_back({fmt::format("{} {}", j.updates(), WorkUnit(j)), 3});
    f.push_back({fmt::format("({:.3g} {}/s)", j.updates_per_s(), WorkUnit(j)), 1});
    f.push_back({fmt::format("{} {:.8g}", ObjectiveName(j), j.objective()), 0});
    if (!j.note().empty()) f.push_back({j.note(), 0});
    if (j.stopped_early()) f.push_back({"(stopped early)", 0});
    f.push_back({fmt::format("imbalance {:.2f}", j.imbalance()), 2});
    f.push_back({fmt::format("worker-s {}", WorkerSeconds(j)), 4});
  }
  f.push_back({fmt::format("{:.1f}s", j.seconds()), 1});
  return f;
}

}  // namespace strads
