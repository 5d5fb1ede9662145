// RunStaticLocally: the static engine's schedule executed in one process, without sockets.
//
// It performs exactly the steps documented in engine/static_app.h, in the order the distributed
// engine (coordinator/static_job.h) performs them, with P shards and S homes held in memory. It
// is what the apps' tests run, and a definition of the engine's semantics the distributed runs
// are compared with. Blocks travel by move between the holders the RotationPlan names.
// Checkpoints as the distributed engine takes them (apps whose Checkpoints() is true): the
// `after_iteration` hook sees every shard and home with all blocks home, where SaveState is
// allowed; `resume` starts a run from such a state, as a resumed job does (RestoreState on every
// shard and home, the checkpoint's aggregates, then the iteration after the checkpoint's).
// Thread-compatibility: a plain function; the app objects it creates are its own.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/static_app.h"

namespace strads {

struct StaticLocalOptions {
  uint32_t workers = 1;
  uint32_t schedulers = 1;
  // Called after every sub-round (all P workers done, before the blocks travel on), with the
  // shards and homes as they are then; a non-OK status stops the run with that error.
  std::function<Status(const StaticStep&, const std::vector<StaticShard*>&,
                       const std::vector<StaticHome*>&, const std::vector<StaticBlock*>& held)>
      after_sub_round;
  // Called after every iteration's last pass (0..N, every block at home); non-OK stops the run.
  std::function<Status(uint64_t iteration, const std::vector<StaticShard*>&,
                       const std::vector<StaticHome*>&, const std::vector<double>& aggregates)>
      after_iteration;
  // A state to start from, taken after `iteration` (by SaveState, with any P and S).
  struct Resume {
    uint64_t iteration = 0;
    std::vector<double> aggregates;
    StatePieces pieces;
  };
  std::optional<Resume> resume;
};

struct StaticLocalResult {
  std::vector<std::string> trace;                      // TraceHeader(), then one row per evaluation
  std::vector<std::map<std::string, double>> metrics;  // per evaluation (iteration 0..N)
  std::vector<proto::ResultFile> files;                // Assemble()'s files
  uint64_t work = 0;                                   // work units of non-evaluation passes
  std::vector<double> aggregates;                      // final aggregates
  bool stopped_early = false;                          // StopsAfter ended the run
};

// Runs spec.static_engine().iterations() iterations of `app` (fewer when its StopsAfter says so)
// with options.workers shards and options.schedulers homes, K =
// spec.static_engine().blocks_per_worker() (0 = 1).
Result<StaticLocalResult> RunStaticLocally(const StaticApp& app, const proto::JobSpec& spec,
                                           const StaticLocalOptions& options);

}  // namespace strads
