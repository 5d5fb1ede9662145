#include "coordinator/dynamic_result.h"

#include <fmt/format.h>

namespace strads {

std::string CoefficientsTsv(std::span<const std::pair<uint64_t, double>> model) {
  std::string out;
  for (const auto& [j, value] : model) out += fmt::format("{}\t{:.17g}\n", j + 1, value);
  return out;
}

nlohmann::ordered_json DynamicEngineJson(const proto::DynamicEngineSpec& d,
                                         const DynamicRunSettings& run) {
  nlohmann::ordered_json engine;
  engine["chord_size"] = run.chord_size ? run.chord_size : d.chord_size();
  engine["candidates"] = run.candidates ? run.candidates : d.candidates();
  if (d.chord_size_adapts()) engine["chord_size_cap"] = d.chord_size();
  engine["pipeline_depth"] = d.pipeline_depth();
  engine["dual_pipeline"] = d.dual_pipeline();
  engine["active_worker"] = d.active_worker();
  // How the workers' shares reach the coordinator (engine/share_tree.h).
  if (d.aggregation() == proto::AGGREGATION_TREE) {
    engine["aggregation"] = "tree";
    engine["fan_in"] = d.fan_in();
  } else {
    engine["aggregation"] = "star";
  }
  engine["rho"] = d.rho();
  // By default the filter runs only where a scheduler's partition is dense (its log says whether
  // it did).
  if (d.rho_if_dense()) engine["rho_applies_to"] = "dense partitions only";
  engine["inner_passes"] = run.inner_passes;
  // Whether correlated features went to one worker: where the spec asks and it was cheap.
  engine["group_rho"] = d.group_rho();
  engine["grouped_ranges"] = run.grouped_ranges;
  // How checks were paced (coordinator/check_pacer.h): "auto" depends on timing.
  engine["check_every"] =
      run.check_every ? nlohmann::ordered_json(*run.check_every) : nlohmann::ordered_json("auto");
  engine["checks"] = run.checks;
  return engine;
}

}  // namespace strads
