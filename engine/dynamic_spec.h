// The dynamic engine's part of a job spec (JobSpec.dynamic, proto/strads.proto): its options,
// how they fill the message, and its validation. Used through engine/job_spec.h for every app
// whose engine is ENGINE_DYNAMIC.
#pragma once

#include <boost/program_options.hpp>

#include "common/status.h"
#include "engine/share_passes.h"
#include "strads.pb.h"

namespace strads {

class DynamicApp;

// --format, --labels, --layout, --chord-size, --candidates, --rho, --eta, --schedule, --tolerance,
// --max-updates, --pipeline-depth, --check-every, --trace-every, --inner-passes, --dual-pipeline,
// with defaults and help.
boost::program_options::options_description DynamicEngineOptions();

// Sets spec.dynamic() from options parsed with DynamicEngineOptions() (paths made absolute).
// Without --layout the layout is columns (a spec built directly with LAYOUT_UNSPECIFIED is rows);
// whether the app has the column layout is checked by ValidateJobSpec (engine/job_spec.h). Errors:
// InvalidArgument for an unknown --schedule or --layout.
Status DynamicSpecFromOptions(const boost::program_options::variables_map& options,
                              proto::JobSpec& spec);

// The chord size when --chord-size is 0: 32 for the row layout, 2048 for the column layout.
uint32_t DefaultChordSize(proto::Layout layout);

// An app's own defaults for the column layout, where they differ from the layout's (0 = the
// layout's). Its FromOptions applies them after DynamicSpecFromOptions with SetColumnDefaults.
struct ColumnDefaults {
  uint32_t chord_size = 0;  // the candidates follow: 2 x, unless --candidates was given
  // Without --chord-size each scheduler sizes its chords to its partition's columns, at most the
  // chord size (engine/chord_size.h: the margin apps, whose shares descend a quadratic model).
  bool chord_size_adapts = false;
  uint32_t pipeline_depth = 0;
  uint32_t inner_passes = 0;
};

// In the column layout, sets each of `defaults` that the user did not give (--chord-size,
// --pipeline-depth, --inner-passes: absent or 0); chord_size_adapts where neither --chord-size
// nor --candidates is.
void SetColumnDefaults(const boost::program_options::variables_map& options,
                       const ColumnDefaults& defaults, proto::JobSpec& spec);
// --rho when it is not given: 0.1 for the row layout; for the column layout kColumnsDenseRho,
// which applies only on dense data (DynamicEngineSpec.rho_if_dense; elsewhere no filter).
inline constexpr double kColumnsDenseRho = 0.8;
double DefaultRho(proto::Layout layout);
// --group-rho when it is not given (engine/feature_grouping.h): the synthetic problems' groups
// are correlated at 0.9, and the pairs that damp a round are the strongly correlated ones.
inline constexpr double kDefaultGroupRho = 0.5;
// Whether a column-layout job of `workers` workers groups correlated features (where cheap).
bool GroupsFeatures(const proto::DynamicEngineSpec& d, uint32_t workers);
// The pipeline depth when --pipeline-depth is 0: 2 for the row layout, 1 for the column layout.
uint32_t DefaultPipelineDepth(proto::Layout layout);

// The passes a column-layout worker makes over its share per round: up to d.inner_passes() (set
// from --inner-passes and the app's default; 0 in a spec = 1), repeated while the last one moved
// some parameter by more than `settle` times the first pass's largest move. `workers` is the
// job's number of workers (0 = not known): 1 gives kLoneSettle, any other kSettle. With several
// workers a repeated pass refines a share against a replica the others' shares are about to
// move; a lone worker's share is the round's whole step, taken as computed, so its passes go on
// longer (exact coordinate descent, or for logistic and svm descent on the round's quadratic
// model before the share's own line search). The rule keys on the job's workers, not on how many
// moved in a round (the coordinator also takes a round whole when only one share moved). On the
// 442 x 64 diabetes data (every parameter in one chord) one worker reached 1e-3 in 2 rounds
// instead of 4, 0.27-0.28 ms instead of 0.52-0.63 ms embedded; on the 1000 x 100,000 problem
// no change beyond noise.
SharePasses SharePassesOf(const proto::DynamicEngineSpec& d, uint32_t workers);

// Checks spec.dynamic(): present, format known, sizes and thresholds in range.
Status ValidateDynamicSpec(const proto::JobSpec& spec);

}  // namespace strads
