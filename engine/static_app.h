// The plug-in interface of the static engine: what an app such as LDA or matrix factorisation
// provides.
//
// The static engine (paper Sections 2.2 and 5.2) plans the whole schedule before the run. The
// data rows (documents, matrix rows) are cut into P worker shards; the model items that rows share
// (vocabulary words, matrix columns) are cut into B = P * K blocks (engine/rotation_plan.h). An
// iteration is a fixed sequence of passes; a pass is plan.sub_rounds() sub-rounds; in sub-round r
// worker w works on block plan.Block(r, w) against its shard. No block is held by two workers at
// once, so updates never conflict.
//
// The run, as the engine executes it (coordinator/static_job.h over sockets; RunStaticLocally in
// engine/static_driver.h in one process — both follow exactly these steps):
//
//   iteration 0 runs only the evaluation pass (the initial state's trace row); iterations
//   1..N run passes 0..PassesPerIteration()-1, the last of which is the evaluation pass: it must
//   not change the model, only measure it. It is skipped in iterations i with
//   i % spec.static_engine().eval_every() != 0 (eval_every 0 = 1), except the last (N), so every
//   run ends with a measured trace row. For each pass:
//     - every home (scheduler) gives out its blocks: TakeBlock(b, step) for the blocks it owns
//       (block b is owned by scheduler b mod S);
//     - for each sub-round r: the aggregates are all-reduced (the barrier); every worker w gets
//       `aggregates` = initial sums + every delta of every earlier sub-round, then
//       Process(step, aggregates, block, delta) on its block, with `delta` zeroed; its delta is
//       added to the aggregates for the next sub-round. Then the block travels to its next
//       holder in this pass, or home after its last visit;
//     - EndPass(step) on every worker (step.sub_round = the last sub-round);
//     - ReturnBlock(block, step) on the homes, for every block;
//     - after the evaluation pass: worker Metrics and home Metrics are summed into one map, from
//       which the app formats the trace row.
//   Finally Output() of every worker and home, and Assemble() turns the pieces into files.
//
// Aggregates are small global sums (LDA: the K topic totals). They are doubles; integer counts
// are exact up to 2^53.
//
// Determinism: given the spec (seed included), the data and P, S, every call sees the same inputs
// in every run; an app that draws randomness from (seed, iteration, rank, block) is reproducible.
//
// Thread-compatibility: a StaticShard is owned by one worker thread, a StaticHome by one
// scheduler thread; StaticApp is stateless and const.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "engine/app.h"
#include "strads.pb.h"

namespace strads {

// For engines: whether iteration `iteration` of `iterations` ends with an evaluation pass.
inline bool EvaluatesIn(uint64_t iteration, uint64_t iterations, uint32_t eval_every) {
  const uint64_t every = eval_every == 0 ? 1 : eval_every;
  return iteration == 0 || iteration == iterations || iteration % every == 0;
}

// A checkpoint's pieces, as the wire carries them (every member's, in StaticRestore).
using StatePieces = google::protobuf::RepeatedPtrField<proto::OutputPiece>;

// A model block: the unit of the model that travels. Contents are app-defined.
struct StaticBlock {
  uint32_t id = 0;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
};

// Where in the run a call is.
struct StaticStep {
  uint64_t iteration = 0;   // 0: the initial evaluation; then 1..N
  uint32_t pass = 0;        // in [0, PassesPerIteration()); the last one is the evaluation pass
  uint32_t sub_round = 0;   // in [0, B)
  bool evaluation = false;  // pass == PassesPerIteration() - 1
};

// What a member holds of the model, on either side (StaticShard, StaticHome): its part of the
// metrics, of the result files and of a checkpoint.
class StaticPart {
 public:
  virtual ~StaticPart() = default;
  // After the evaluation pass (a home: with every block it owns back): this part's sums (e.g.
  // log-likelihood, squared error, lambda ||H||^2). Adds to `out` (out[name] += value): the
  // engine sums every worker's and home's metrics in one map.
  virtual void Metrics(std::map<std::string, double>& out) const = 0;
  // This part of the result files.
  virtual void Output(std::vector<proto::OutputPiece>& out) const = 0;
  // Checkpoints (apps whose Checkpoints() is true), between iterations (every block home): this
  // part's model state as pieces named by global ids (rows, items, blocks), so a later run cut
  // otherwise can take its own; and its own taken from every member's pieces, replacing the state.
  virtual void SaveState(std::vector<proto::OutputPiece>& out) const {}
  virtual Status RestoreState(const StatePieces& pieces) {
    return Status::FailedPrecondition("this app has no checkpoints");
  }
  // Whether RestoreState needs `piece` (a member keeps only those of a checkpoint coming in).
  virtual bool KeepsForRestore(const proto::OutputPiece& piece) const { return true; }
};

// Worker side: one shard of the data and the part of the model that lives with it (LDA: the
// documents' topic assignments and doc-topic counts; MF: the rows of W).
class StaticShard : public StaticPart {
 public:
  // Rows (documents / matrix rows) in the shard, items the data has (words / columns), work units
  // (tokens / ratings) in the shard; for Ready and summary.json.
  virtual uint64_t rows() const = 0;
  virtual uint64_t items() const = 0;
  virtual uint64_t work() const = 0;
  // The shard's contributions to the aggregates in its initial state; NumAggregates() numbers.
  virtual std::vector<double> InitialAggregates() const = 0;
  // Works on `block` in `step`: the shard's data whose items fall in the block. `aggregates` are
  // the global sums as of the start of the sub-round; `delta` (zeroed, same size) receives this
  // shard's changes to them. Returns the work units done (tokens sampled / ratings visited), or
  // an error (e.g. a block of the wrong shape) that fails the job.
  virtual Result<uint64_t> Process(const StaticStep& step, std::span<const double> aggregates,
                                   StaticBlock& block, std::span<double> delta) = 0;
  // After the shard's last sub-round of a pass (it has seen every block once).
  virtual void EndPass(const StaticStep& step) {}
};

// Scheduler side: the home of the blocks b with b mod S == this scheduler's rank.
class StaticHome : public StaticPart {
 public:
  // At the start of a pass: block `block` (owned here) as it leaves home.
  virtual Result<StaticBlock> TakeBlock(uint32_t block, const StaticStep& step) = 0;
  // At the end of a pass: the block is back (e.g. MF CCD++ finishes h_t from accumulated sums).
  virtual Status ReturnBlock(StaticBlock block, const StaticStep& step) = 0;
};

class StaticApp : public App {
 public:
  proto::Engine engine() const final { return proto::ENGINE_STATIC; }
  const StaticApp* AsStatic() const final { return this; }

  virtual uint32_t NumAggregates(const proto::JobSpec& spec) const = 0;
  // Whether shards and homes implement SaveState/RestoreState. Without, a job that loses a
  // member starts again from its first iteration.
  virtual bool Checkpoints(const proto::JobSpec& spec) const { return false; }
  // Passes per iteration, >= 1; the last is the evaluation pass.
  virtual uint32_t PassesPerIteration(const proto::JobSpec& spec) const = 0;
  // Loads shard `rank` of `workers` for a plan of `blocks` blocks (file:line errors for bad
  // input). Every member cuts shards and blocks identically (a pure function of data and spec).
  virtual Result<std::unique_ptr<StaticShard>> LoadShard(const proto::JobSpec& spec, uint32_t rank,
                                                         uint32_t workers,
                                                         uint32_t blocks) const = 0;
  // Loads the home of scheduler `rank` of `schedulers`: blocks b with b mod schedulers == rank.
  virtual Result<std::unique_ptr<StaticHome>> LoadHome(const proto::JobSpec& spec, uint32_t rank,
                                                       uint32_t schedulers, uint32_t workers,
                                                       uint32_t blocks) const = 0;

  // Coordinator side, from the summed metrics of an evaluation pass.
  // trace.csv: the header (no newline) and one row (no newline). `work` counts the work units of
  // every non-evaluation pass so far.
  virtual std::string TraceHeader() const = 0;
  virtual std::string TraceRow(double seconds, uint64_t iteration, uint64_t work,
                               const std::map<std::string, double>& metrics) const = 0;
  // The headline number for status lines, and its name ("loglik_per_token", "objective").
  virtual double Objective(const std::map<std::string, double>& metrics) const = 0;
  virtual std::string ObjectiveName() const = 0;
  // What to try when the objective of `spec`'s job is no longer finite, for the job's error
  // (e.g. mf sgd: "try a smaller --learning-rate"); empty: nothing to suggest. Default: empty.
  virtual std::string DivergenceAdvice(const proto::JobSpec& spec) const { return ""; }
  // What a work unit is, plural, for progress lines ("tokens", "ratings").
  virtual std::string WorkUnit() const = 0;
  // Builds the result files (besides trace.csv, subrounds.csv and summary.json, which the engine
  // writes) from every member's pieces.
  virtual Result<std::vector<proto::ResultFile>> Assemble(
      const proto::JobSpec& spec, const std::vector<proto::OutputPiece>& pieces) const = 0;
  // Adds app fields to summary.json from the last evaluation's metrics.
  virtual void Summarize(const std::map<std::string, double>& metrics,
                         nlohmann::ordered_json& summary) const {}
  // A short note on an evaluation for progress lines and the coordinator's log, after the
  // objective (e.g. mf: "test_rmse 1.81, best 1.80 at iteration 12"); empty: none. Default: none.
  virtual std::string ProgressNote(const std::map<std::string, double>& metrics) const {
    return "";
  }
  // Whether the job ends after the evaluation of `iteration` with `metrics` although iterations
  // remain (e.g. mf: the held-out error has not improved for --patience iterations). The engine
  // then ends it as at its last iteration: Output, Assemble. Default: never.
  virtual bool StopsAfter(const proto::JobSpec& spec, uint64_t iteration,
                          const std::map<std::string, double>& metrics) const {
    return false;
  }
};

}  // namespace strads
