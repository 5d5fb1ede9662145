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

// --format, --labels, --chord-size, --candidates, --rho, --group-rho, --eta, --schedule,
// --tolerance, --max-updates, --pipeline-depth, --check-every, --trace-every, --inner-passes,
// --exact-shares, --dual-pipeline, --aggregation, --fan-in, with defaults and help.
boost::program_options::options_description DynamicEngineOptions();

// Sets spec.dynamic() from options parsed with DynamicEngineOptions() (paths made absolute).
// Errors: InvalidArgument for an unknown --schedule or --aggregation, or a --group-rho out of
// range.
Status DynamicSpecFromOptions(const boost::program_options::variables_map& options,
                              proto::JobSpec& spec);

// The chord size when --chord-size is 0 and the app sets none. A worker applies its share
// sequentially (in up to --inner-passes passes), so a round can carry many updates; 2048 with 4
// passes measured best of 1024-4096 x 1-8 on the Lasso and L1-LR benchmarks.
inline constexpr uint32_t kDefaultChordSize = 2048;

// --fan-in when it is not given (--aggregation tree, engine/share_tree.h): up to 5 workers in one
// level (the star's sums), 21 in two.
inline constexpr uint32_t kDefaultFanIn = 4;

// An app's own defaults, where they differ from the engine's (0 = the engine's). Its FromOptions
// applies them after DynamicSpecFromOptions with SetAppDefaults.
struct AppDefaults {
  uint32_t chord_size = 0;  // the candidates follow: 2 x, unless --candidates was given
  // Without --chord-size each scheduler sizes its chords to its partition's columns, at most the
  // chord size (engine/chord_size.h: the margin apps, whose shares descend a quadratic model).
  bool chord_size_adapts = false;
  uint32_t pipeline_depth = 0;
  uint32_t inner_passes = 0;
};

// Sets each of `defaults` that the user did not give (--chord-size, --pipeline-depth,
// --inner-passes: absent or 0); chord_size_adapts where neither --chord-size nor --candidates is.
void SetAppDefaults(const boost::program_options::variables_map& options,
                    const AppDefaults& defaults, proto::JobSpec& spec);
// --rho when it is not given, which applies only on dense data (DynamicEngineSpec.rho_if_dense;
// elsewhere no filter). The coordinator line-searches every round's combined step
// (engine/step_length.h), so correlated parameters on different workers cannot make a round
// increase the objective. On sparse data the filter then costs more rounds than it saves; on
// dense data, where every pair of features shares rows, two workers' steps interfere in every
// round, and filtering at 0.8 (by neighbour lists, cheap there) took less time on every problem
// measured.
inline constexpr double kDefaultDenseRho = 0.8;
// --group-rho when it is not given (engine/feature_grouping.h): the synthetic problems' groups
// are correlated at 0.9, and the pairs that damp a round are the strongly correlated ones.
inline constexpr double kDefaultGroupRho = 0.5;
// --active-worker: the worker that updates every non-zero parameter of scheduler s's range, and
// the only one that holds the range's columns whole: s mod P (distinct workers while S <= P).
inline uint32_t ActiveWorkerOf(uint32_t scheduler, uint32_t workers) {
  return workers == 0 ? 0 : scheduler % workers;
}
// The most a range's columns may take for its active worker to hold them whole, estimated from
// the column counts as the loader's compressed columns (12 bytes a non-zero, 16 a column): a
// larger range keeps its owners for every parameter. A fixed figure, so that every member
// decides the same from the same counts (the worker's own memory check still applies).
inline constexpr uint64_t kActiveWorkerMaxBytes = uint64_t{1} << 30;
// Whether a range of `nonzeros` entries in `columns` columns has an active worker in a job of
// spec `d` (--active-worker, and the range fits kActiveWorkerMaxBytes).
inline bool RangeHasActiveWorker(const proto::DynamicEngineSpec& d, uint64_t nonzeros,
                                 uint64_t columns) {
  return d.active_worker() && 12 * nonzeros + 16 * columns <= kActiveWorkerMaxBytes;
}
// The workers an adapted chord (engine/chord_size.h) is sized for in a range of a job of
// `workers` workers: 1 where the range has an active worker, which updates every non-zero
// parameter of the chord in sequence (its share is the whole chord's, so a chord sized for P
// workers grew with P: most of Fashion-MNIST's 785 features at P = 8, docs/performance.md).
inline uint32_t ChordSizedForWorkers(const proto::DynamicEngineSpec& d, uint64_t nonzeros,
                                     uint64_t columns, uint32_t workers) {
  return RangeHasActiveWorker(d, nonzeros, columns) ? 1 : workers;
}
// Whether a job of `workers` workers groups correlated features (where cheap; never with
// --active-worker).
bool GroupsFeatures(const proto::DynamicEngineSpec& d, uint32_t workers);

// The passes a worker makes over its share per round: up to d.inner_passes() (set
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
