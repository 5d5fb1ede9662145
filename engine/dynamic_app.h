// The plug-in interface of the dynamic (SAP) engine: what an app such as Lasso provides.
//
// The engine is generic; an app supplies three primitives (DESIGN.md "App interface"):
//   worker side  — ShardModel::Push (partial statistics for the parameters of a chord over the
//                  worker's rows) and ShardModel::Apply (fold committed changes into the rows'
//                  state, e.g. the residual);
//   coordinator  — DynamicApp::Pull (new value of a parameter from the summed statistics);
//   scheduler    — DynamicApp::Violation (optimality of one parameter given its full gradient),
//                  used by the convergence check and to refresh priorities.
// That is the row layout (proto::LAYOUT_ROWS). In the column layout (owner-computes,
// proto::LAYOUT_COLUMNS) a worker owns full columns and a replica of the app's shared vector over
// all rows (Lasso: the residual), and the update itself runs on the worker: ColumnModel::Update
// applies the worker's share of a chord sequentially, exactly, and returns the new values and the
// change of the shared vector; ColumnModel::ApplyShared adds the round's summed change. An app
// that offers this layout overrides DynamicApp::MakeColumnModel.
// The objective is the loss (the sum over row shards of ShardModel::Loss(), or the replicated
// ColumnModel::Loss() once) plus the sum over parameters of DynamicApp::Penalty.
// Implementations are stateless (DynamicApp) or owned by one worker thread (the models).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/dataset.h"
#include "common/status.h"
#include "engine/app.h"
#include "engine/vector_delta.h"
#include "strads.pb.h"

namespace strads {

// What a worker's model answers in either layout: the loss and the gradient.
class WorkerModel {
 public:
  virtual ~WorkerModel() = default;

  // The loss term this model holds under every change applied so far.
  virtual double Loss() const = 0;

  // Recomputes the loss from scratch (removes floating drift of incremental updates).
  virtual double ExactLoss() = 0;

  // out[j - first] = d Loss / d beta_j over the data this model holds, for j in [first, end):
  // the rows of a row shard, or the owned columns of a column shard (0 for other columns).
  virtual void Gradient(uint64_t first, uint64_t end, std::span<double> out) const = 0;

  // App-defined sums under the current model (e.g. {"correct": 93, "rows": 100}), reported at
  // every optimality check and summed over the workers. Default: none.
  virtual void Metrics(std::map<std::string, double>& out) const {}
};

// Row layout: a worker's row shard and its per-row state.
class ShardModel : public WorkerModel {
 public:
  // Appends the app's stats_per_param() numbers for each id, in order. Ids past the shard's
  // columns are features this shard never sees: their statistics are zero.
  virtual void Push(std::span<const uint64_t> ids, std::vector<double>& out) const = 0;

  // Applies committed changes new_value - old_value of each id to the per-row state.
  virtual void Apply(std::span<const uint64_t> ids, std::span<const double> deltas) = 0;
};

// Column layout: a worker's full columns and its replica of the shared vector over all rows.
// Loss() is the whole loss (every replica holds it), current at least as of the last ExactLoss().
// The engine does not ask a column worker for it: the coordinator sums the loss of its own
// replica of the shared vector (DynamicApp::Loss), at checks and between them.
class ColumnModel : public WorkerModel {
 public:
  // Updates parameters ids[k] (owned by this worker, current values values[k]) one after another,
  // each by the app's exact coordinate step against the shared vector as changed by the ones
  // before it, in the passes the job's SharePasses rule makes (engine/share_passes.h,
  // --inner-passes: the first over every id, each further one over the ids the pass before moved,
  // by more than SharePasses::revisit of the first pass's largest move).
  // Appends the new values to `updated` (in order) and adds the change of the shared vector to
  // `change`. The replica itself is left exactly as it was: it changes only through ApplyShared, so
  // every worker's replica stays the same. REQUIRES: change.size() == shared_size(); ids are
  // columns this model holds.
  virtual void Update(std::span<const uint64_t> ids, std::span<const double> values,
                      std::vector<double>& updated, DeltaAccumulator& change) = 0;

  // Adds to `change` the change of the shared vector that moving parameter ids[k] by deltas[k]
  // makes, as one step (a resumed job moves every parameter from 0 to its checkpointed value).
  // The replica is left as it is. REQUIRES: as Update.
  virtual void Shift(std::span<const uint64_t> ids, std::span<const double> deltas,
                     DeltaAccumulator& change) const = 0;

  // Adds a change (a round's sum over every worker) to the replica.
  // REQUIRES: CheckDelta(change, shared_size()) is OK.
  virtual void ApplyShared(const proto::VectorDelta& change) = 0;

  // The length of the shared vector (the rows of the data).
  virtual uint64_t shared_size() const = 0;

  // ||x_j||^2 of column j (the model keeps them for its coordinate steps); 0 for a column it does
  // not hold.
  virtual double SquaredNorm(uint64_t j) const = 0;

  // Writes the replica's shared vector and each row's label (as DynamicApp::LossSlope takes it).
  virtual void ExportShared(proto::SharedRows& out) const = 0;
};

// What a scheduler's check report sums over its parameters (DynamicApp::EvaluateCheck).
struct CheckSums {
  double max_violation = 0;
  double max_abs_gradient = 0;
  double penalty = 0;
  uint64_t nonzeros = 0;
};

// A check's evaluation of parameters with full gradients `gradients` and values `values`: each
// gradient becomes that parameter's violation(gradient, value), in place; returns the largest
// violation and |gradient|, the sum of penalty(value) in index order, and the nonzero values.
// REQUIRES: gradients.size() == values.size().
template <class ViolationFn, class PenaltyFn>
CheckSums EvaluateCheckWith(std::span<double> gradients, std::span<const double> values,
                            ViolationFn&& violation, PenaltyFn&& penalty) {
  CheckSums sums;
  for (size_t i = 0; i < gradients.size(); ++i) {
    const double g = gradients[i];
    const double beta = values[i];
    const double v = violation(g, beta);
    sums.max_violation = std::max(sums.max_violation, v);
    sums.max_abs_gradient = std::max(sums.max_abs_gradient, std::abs(g));
    sums.penalty += penalty(beta);
    sums.nonzeros += beta != 0.0;
    gradients[i] = v;
  }
  return sums;
}

class DynamicApp : public App {
 public:
  proto::Engine engine() const final { return proto::ENGINE_DYNAMIC; }
  const DynamicApp* AsDynamic() const final { return this; }

  // Numbers pushed per parameter (Lasso: 1, x_j^T r; logistic: 2, g_j and h_j).
  virtual uint32_t stats_per_param() const = 0;

  // Takes ownership of a loaded shard; the model starts at beta = 0.
  virtual Result<std::unique_ptr<ShardModel>> MakeShard(Dataset shard,
                                                        const proto::JobSpec& spec) const = 0;

  // Column layout: takes ownership of the owned columns over every row (other columns empty); the
  // model starts at beta = 0. Default: InvalidArgument (the app has only the row layout).
  virtual Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                               const proto::JobSpec& spec) const {
    return Status::InvalidArgument(name() + ": --layout columns is not supported");
  }
  virtual bool supports_column_layout() const { return false; }

  // New value of a parameter from the statistics summed over all shards, the squared norm of its
  // column over all rows and its current value.
  virtual double Pull(std::span<const double> stats, double sq_norm, double value,
                      const proto::JobSpec& spec) const = 0;

  // Distance from optimality of one parameter, given the full gradient of the loss.
  virtual double Violation(double gradient, double value, const proto::JobSpec& spec) const = 0;

  // The regulariser's term for one parameter.
  virtual double Penalty(double value, const proto::JobSpec& spec) const = 0;

  // A scheduler's evaluation of its parameters at a check (EvaluateCheckWith of Violation and
  // Penalty). An app overrides it with the same arithmetic inlined, its settings read once: a
  // check evaluates every parameter of a partition, and two virtual calls a parameter (each
  // reading the spec) took ~0.3 ms a check of 100,000 Lasso parameters.
  virtual CheckSums EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                                  const proto::JobSpec& spec) const {
    return EvaluateCheckWith(
        gradients, values, [&](double g, double beta) { return Violation(g, beta, spec); },
        [&](double beta) { return Penalty(beta, spec); });
  }

  // The right derivative of Penalty at `value` in the direction `direction`:
  // lim_{t -> 0+} (Penalty(value + t direction) - Penalty(value)) / t.
  virtual double PenaltySlope(double value, double direction, const proto::JobSpec& spec) const = 0;

  // Column layout: the derivative of one row's loss term in its entry `shared` of the shared
  // vector, given the row's label (as ColumnModel::ExportShared writes them). The coordinator
  // uses it to choose each round's step length (engine/step_length.h). Default: the app has only
  // the row layout, and it is never called.
  virtual double LossSlope(double label, double shared) const { return 0.0; }

  // Column layout: the loss, the sum over rows of each row's term at its entry of the shared
  // vector, given the rows' labels (as ColumnModel::ExportShared writes them; the spans have
  // the same size). The coordinator computes the objective from its replica with it, at checks
  // and between them, so the workers need not keep the loss current. A batch, not a row at a
  // time: logistic takes one log per 512 rows. Default: 0 (row layout only; never called).
  virtual double Loss(std::span<const double> labels, std::span<const double> shared) const {
    return 0.0;
  }

  // Adds app fields to summary.json from the workers' summed Metrics at the last check (e.g.
  // "training_accuracy"). Default: nothing.
  virtual void Summarize(const std::map<std::string, double>& metrics,
                         nlohmann::ordered_json& summary) const {}
};

}  // namespace strads
