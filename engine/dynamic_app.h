// The plug-in interface of the dynamic (SAP) engine: what an app such as Lasso provides.
//
// The engine is generic and owner-computes: a worker owns full columns of the data and a replica
// of the app's shared vector over every row (Lasso: the residual; logistic, SVM: the margins).
// An app supplies:
//   worker side  — ColumnModel::Update applies the worker's share of a chord sequentially,
//                  exactly, and returns the new values and the change of the shared vector;
//                  ColumnModel::ApplyShared adds a round's summed change to the replica;
//   coordinator  — DynamicApp::Loss and LossSlope over its own replica of the shared vector (the
//                  objective, and each round's step length), PenaltySlope for the same;
//   scheduler    — DynamicApp::Violation (optimality of one parameter given its full gradient),
//                  used by the convergence check and to refresh priorities.
// The objective is DynamicApp::Loss over the shared vector plus the sum over parameters of
// DynamicApp::Penalty.
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

// A worker's full columns and its replica of the shared vector over all rows. Loss() is the whole
// loss (every replica holds it), current at least as of the last ExactLoss(). The engine does not
// ask a worker for it: the coordinator sums the loss of its own replica of the shared vector
// (DynamicApp::Loss), at checks and between them.
class ColumnModel {
 public:
  virtual ~ColumnModel() = default;

  // The loss term this model holds under every change applied so far.
  virtual double Loss() const = 0;

  // Recomputes the loss from scratch (removes floating drift of incremental updates).
  virtual double ExactLoss() = 0;

  // out[j - first] = d Loss / d beta_j for j in [first, end): the owned columns' (0 for other
  // columns).
  virtual void Gradient(uint64_t first, uint64_t end, std::span<double> out) const = 0;

  // App-defined sums under the current model (e.g. {"correct": 93, "rows": 100}), reported at
  // every optimality check. Default: none.
  virtual void Metrics(std::map<std::string, double>& out) const {}

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

  // Takes ownership of the owned columns over every row (other columns empty); the model starts
  // at beta = 0.
  virtual Result<std::unique_ptr<ColumnModel>> MakeColumnModel(
      Dataset columns, const proto::JobSpec& spec) const = 0;

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

  // The coordinator's per-round sums over a chord, one call a round instead of one a parameter
  // (an app overrides them with the arithmetic inlined and its settings read once, as
  // EvaluateCheck). REQUIRES: the spans have the same size.
  //
  // sum_k Penalty(values[k]).
  virtual double PenaltySum(std::span<const double> values, const proto::JobSpec& spec) const {
    double sum = 0;
    for (double v : values) sum += Penalty(v, spec);
    return sum;
  }
  // The one-sided derivative in t of sum_k Penalty(base[k] + t direction[k]) at t = alpha: from
  // the right where side is +1, from the left where it is -1.
  virtual double PenaltySlopeAlong(std::span<const double> base, std::span<const double> direction,
                                   double alpha, int side, const proto::JobSpec& spec) const {
    double slope = 0;
    for (size_t k = 0; k < base.size(); ++k) {
      if (direction[k] == 0.0) continue;
      slope += side * PenaltySlope(base[k] + alpha * direction[k], side * direction[k], spec);
    }
    return slope;
  }

  // Whether the job fits an unpenalised intercept by centring (lasso --intercept): its loss is
  // then Loss(labels, shared) - (sum_i shared_i)^2 / (2 rows), which for the squared loss is the
  // loss of the shared vector less its mean (the intercept, fitted exactly at every point). The
  // coordinator's replica adds that term and its slope (engine/shared_replica.h); the workers'
  // models take it into their steps. Default: no.
  virtual bool CentresShared(const proto::JobSpec& spec) const { return false; }

  // The derivative of one row's loss term in its entry `shared` of the shared vector, given the
  // row's label (as ColumnModel::ExportShared writes them). The coordinator uses it to choose
  // each round's step length (engine/step_length.h).
  virtual double LossSlope(double label, double shared) const = 0;

  // The loss, the sum over rows of each row's term at its entry of the shared vector, given the
  // rows' labels (as ColumnModel::ExportShared writes them; the spans have the same size). The
  // coordinator computes the objective from its replica with it, at checks and between them, so
  // the workers need not keep the loss current. A batch, not a row at a time: logistic takes one
  // log per 512 rows.
  virtual double Loss(std::span<const double> labels, std::span<const double> shared) const = 0;

  // Adds app fields to summary.json from the workers' summed Metrics at the last check (e.g.
  // "training_accuracy"). Default: nothing.
  virtual void Summarize(const std::map<std::string, double>& metrics,
                         nlohmann::ordered_json& summary) const {}
};

}  // namespace strads
