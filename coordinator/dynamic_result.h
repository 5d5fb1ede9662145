// The parts of a dynamic job's result files that are functions of figures alone: the lines of
// coefficients.tsv, and summary.json's "engine" section (the settings a job ran with, the app's
// and the engine's defaults resolved). DynamicJob::ResultFiles assembles them with its outcome.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "strads.pb.h"

namespace strads {

// `feature_id<TAB>value` a line, the ids 1-based as in the input, values exact (17 digits).
std::string CoefficientsTsv(std::span<const std::pair<uint64_t, double>> model);

// What the members and the coordinator decided at run time, beside the spec.
struct DynamicRunSettings {
  // The largest chord and draw of a scheduler (each its own where chords adapt to partitions);
  // 0: not reported yet, the spec's are shown.
  uint32_t chord_size = 0;
  uint32_t candidates = 0;
  uint32_t inner_passes = 0;            // SharePassesOf for the job's workers
  uint32_t grouped_ranges = 0;          // schedulers whose ranges grouped correlated features
  std::optional<uint64_t> check_every;  // nullopt: checks paced by time ("auto")
  uint64_t checks = 0;
};

// summary.json's "engine": chord_size, candidates (chord_size_cap where chords adapt),
// pipeline_depth, dual_pipeline, aggregation (and fan_in for a tree), rho (and rho_applies_to where
// it applies to dense partitions only), inner_passes, group_rho, grouped_ranges, check_every and
// checks.
nlohmann::ordered_json DynamicEngineJson(const proto::DynamicEngineSpec& spec,
                                         const DynamicRunSettings& run);

}  // namespace strads
