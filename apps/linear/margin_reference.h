// The sequential solver shared by the binary-classification references (logistic, svm): the
// oracles the distributed engine is checked against.
//
// Problem: F(w) = sum_i l(y_i, x_i^T w) + sum_j P(w_j), on the data exactly as loaded (labels
// mapped to +/-1 as margin_model.h says, no intercept). `Loss` is a margin::RowTerms policy;
// `Pen` provides Term(w) (P), Step(g, H, w) (the minimiser over v of g (v - w) + H/2 (v - w)^2 +
// P(v)) and Violation(gradient, w) (distance from 0 to the subdifferential of F in w_j).
//
// Algorithm: cyclic coordinate descent keeping the margins m = X w. Each coordinate update is the
// newGLMNET / Chang-Hsieh-Lin one: the direction d = Step(g, h, w) - w from the exact partial
// derivative g and (generalised) second derivative h (floored at 1e-12 (1 + ||x_j||^2)), then a
// backtracking line search on the step t in {1, 1/2, 1/4, ...} with the sufficient decrease
// condition  F(w + t d) - F(w) <= sigma t (g d + P(w + d) - P(w)),  sigma = 0.01, evaluated
// exactly over the column's rows. Like the Lasso reference it alternates full sweeps with passes
// over the non-zeros until they settle; only full sweeps count as sweeps.
//
// Convergence criterion (the engine uses the same one): lambda_max = max_j |dLoss/dw_j| at w = 0;
// after every full sweep the margins are recomputed exactly, the exact gradient is formed, and
// violation = max_j Violation(gradient_j, w_j) / lambda_max; converged iff violation <= tolerance.
// The check is also made at w = 0 before the first sweep. If lambda_max == 0, w = 0 is returned,
// converged. Convergence is never declared from an active pass.
//
// Thread-safety: reentrant; the Dataset is only read.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "apps/linear/active_set_sweeps.h"
#include "apps/linear/margin_model.h"
#include "common/dataset.h"
#include "common/status.h"

namespace strads::margin {

struct ReferenceOptions {
  double lambda = 0.0;       // >= 0
  double tolerance = 1e-6;   // on the relative violation; >= 0
  uint64_t max_updates = 0;  // 0 = no limit
  double max_seconds = 0;    // checked between passes; 0 = none
  uint64_t max_sweeps = 0;   // 0 = no limit
};

struct ReferenceResult {
  Eigen::VectorXd w;     // x.cols() entries
  double objective = 0;  // F(w), from exactly recomputed margins
  uint64_t updates = 0;  // coordinate updates (full sweeps and active passes)
  uint64_t sweeps = 0;
  double seconds = 0;
  bool converged = false;
  double violation = 0;  // relative, exact
  double lambda_max = 0;
  double training_accuracy = 0;  // fraction of rows with y_i m_i > 0
  std::string label_mapping;     // "0/1 -> -1/+1" or "±1"
};

struct ReferenceTracePoint {
  double seconds = 0;
  uint64_t updates = 0;
  double objective = 0;  // exact
};

template <class Loss, class Pen>
Result<ReferenceResult> SolveReference(const std::string& app, const Dataset& data,
                                       const ReferenceOptions& o, const Pen& pen,
                                       std::function<void(const ReferenceTracePoint&)> on_sweep) {
  using Clock = std::chrono::steady_clock;
  constexpr double kSigma = 0.01;
  constexpr int kMaxHalvings = 60;
  if (!(o.lambda >= 0.0) || !std::isfinite(o.lambda)) {
    return Status::InvalidArgument(app + ": lambda must be a finite number >= 0, got " +
                                   std::to_string(o.lambda));
  }
  if (!(o.tolerance >= 0.0) || !(o.max_seconds >= 0.0)) {
    return Status::InvalidArgument(app + ": tolerance and max_seconds must be >= 0");
  }
  if (data.x.rows() != data.y.size()) {
    return Status::InvalidArgument(app + ": X has " + std::to_string(data.x.rows()) +
                                   " rows but y has " + std::to_string(data.y.size()));
  }
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  Eigen::VectorXd y = data.y;
  auto labels = ToSignedLabels(y, data.first_row, data.path);
  if (!labels.ok()) return labels.status();
  SparseColMatrix x = data.x;
  x.makeCompressed();
  const int64_t n = x.cols(), rows = x.rows();
  std::vector<double> sq_norm(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) sq_norm[static_cast<size_t>(j)] = x.col(j).squaredNorm();

  ReferenceResult res;
  res.label_mapping = labels->zeros > 0 ? "0/1 -> -1/+1" : "±1";
  res.w = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd m = Eigen::VectorXd::Zero(rows);
  std::vector<RowTerms> terms(static_cast<size_t>(rows));

  auto penalty = [&] {
    double p = 0.0;
    for (int64_t j = 0; j < n; ++j) p += pen.Term(res.w[j]);
    return p;
  };
  auto loss = [&] {
    double s = 0.0;
    for (const RowTerms& t : terms) s += t.loss;
    return s;
  };
  // Exact margins, terms and relative violation.
  auto exact_check = [&]() {
    m = x * res.w;
    for (int64_t i = 0; i < rows; ++i) terms[static_cast<size_t>(i)] = Loss::Eval(y[i], m[i]);
    double worst = 0.0, biggest = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      double g = 0.0;
      for (SparseColMatrix::InnerIterator it(x, j); it; ++it) {
        g += it.value() * terms[static_cast<size_t>(it.index())].d1;
      }
      worst = std::max(worst, pen.Violation(g, res.w[j]));
      biggest = std::max(biggest, std::abs(g));
    }
    if (res.lambda_max == 0.0) res.lambda_max = biggest;  // first call: at w = 0
    return res.lambda_max > 0 ? worst / res.lambda_max : 0.0;
  };
  auto finish = [&](bool converged, double violation) {
    res.converged = converged;
    res.violation = violation;
    res.objective = loss() + penalty();
    uint64_t correct = 0;
    for (int64_t i = 0; i < rows; ++i) correct += y[i] * m[i] > 0.0;
    res.training_accuracy = rows > 0 ? static_cast<double>(correct) / static_cast<double>(rows) : 0;
    res.seconds = elapsed();
    return res;
  };

  double violation = exact_check();  // at w = 0; sets lambda_max
  if (res.lambda_max == 0.0) return finish(true, 0.0);

  // One coordinate update with line search; returns H |accepted step| (the size of the change).
  auto update = [&](int64_t j) {
    ++res.updates;
    const double sq = sq_norm[static_cast<size_t>(j)];
    if (sq <= 0.0) return 0.0;
    double g = 0.0, h = 0.0;
    for (SparseColMatrix::InnerIterator it(x, j); it; ++it) {
      const RowTerms& t = terms[static_cast<size_t>(it.index())];
      g += it.value() * t.d1;
      h += it.value() * it.value() * t.d2;
    }
    h = std::max(h, 1e-12 * (1.0 + sq));
    const double w = res.w[j];
    const double d = pen.Step(g, h, w) - w;
    if (d == 0.0) return 0.0;
    const double decrease = g * d + pen.Term(w + d) - pen.Term(w);  // < 0
    double t = 1.0;
    for (int k = 0; k < kMaxHalvings; ++k, t *= 0.5) {
      double change = pen.Term(w + t * d) - pen.Term(w);
      for (SparseColMatrix::InnerIterator it(x, j); it; ++it) {
        const int64_t i = it.index();
        change +=
            Loss::Eval(y[i], m[i] + t * d * it.value()).loss - terms[static_cast<size_t>(i)].loss;
      }
      if (change <= kSigma * t * decrease) {
        res.w[j] = w + t * d;
        for (SparseColMatrix::InnerIterator it(x, j); it; ++it) {
          const int64_t i = it.index();
          m[i] += t * d * it.value();
          terms[static_cast<size_t>(i)] = Loss::Eval(y[i], m[i]);
        }
        return h * std::abs(t * d);
      }
    }
    return 0.0;  // no acceptable step: the direction is below rounding
  };

  SweepLimits limits;
  limits.tolerance = o.tolerance;
  limits.max_updates = o.max_updates;
  limits.max_seconds = o.max_seconds;
  limits.max_sweeps = o.max_sweeps;
  violation = RunActiveSetSweeps(
      n, limits, res.lambda_max, violation, res.updates, res.sweeps, update, exact_check,
      [&](int64_t j) { return res.w[j] != 0.0; },
      [&] {
        if (on_sweep) on_sweep(ReferenceTracePoint{elapsed(), res.updates, loss() + penalty()});
      },
      elapsed);
  return finish(violation <= o.tolerance, violation);
}

}  // namespace strads::margin
