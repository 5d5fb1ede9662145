// The sequential Lasso solver: the oracle the distributed engine is checked against and the
// single-process baseline benchmarks compare with.
//
// Objective, on the data exactly as loaded (no standardisation, no intercept):
//   F(beta) = 1/2 ||y - X beta||^2 + lambda ||beta||_1.
//
// Algorithm: cyclic coordinate descent that maintains the residual r = y - X beta and updates one
// coefficient at a time with strads::lasso::CoordinateUpdate (apps/linear/lasso_update.h). To be
// fast it alternates a full sweep over all features with "active" passes over the current
// non-zeros only, which it repeats until they have settled; only full sweeps count as sweeps.
//
// Convergence criterion (the distributed engine uses the same one, so their results compare):
//   lambda_max = max_j |x_j^T y|  (the smallest lambda for which beta = 0 is optimal);
//   after every full sweep, r is recomputed from scratch as y - X beta, the exact gradient
//   g = X^T r is formed, and
//   violation = max_j strads::lasso::Violation(g_j, beta_j, lambda) / lambda_max;
//   converged iff violation <= tolerance.
//   The check is also made once at beta = 0 before the first sweep (it passes when
//   lambda >= (1 - tolerance) lambda_max). If lambda_max == 0 (X^T y = 0) beta = 0 is optimal and
//   the solver returns it at once, converged, with violation 0.
// Convergence is never declared from an active pass: only after an exact full check.
//
// Thread-safety: the functions are reentrant; the Dataset is only read.
#pragma once

#include <cstdint>
#include <functional>

#include <Eigen/Dense>

#include "common/dataset.h"
#include "common/status.h"

namespace strads::lasso {

struct LassoReferenceOptions {
  double lambda = 0.0;       // >= 0
  double tolerance = 1e-6;   // on the relative violation (see above); >= 0
  uint64_t max_updates = 0;  // stop after this many coordinate updates; 0 = no limit
  double max_seconds = 0;    // stop after this much wall time (checked between passes); 0 = none
  uint64_t max_sweeps = 0;   // stop after this many full sweeps; 0 = no limit
};

struct LassoReferenceResult {
  Eigen::VectorXd beta;  // x.cols() entries
  double objective = 0;  // F(beta), from the exactly recomputed residual
  uint64_t updates = 0;  // coordinate updates made (full sweeps and active passes)
  uint64_t sweeps = 0;   // full sweeps made
  double seconds = 0;    // wall time of the solve
  bool converged = false;
  double violation = 0;   // relative: max_j Violation(g_j, beta_j, lambda) / lambda_max, exact
  double lambda_max = 0;  // max_j |x_j^T y|
};

// One point of a convergence trace, reported after every full sweep.
struct TracePoint {
  double seconds = 0;  // since the start of the solve
  uint64_t updates = 0;
  double objective = 0;  // exact F(beta)
};

// Solves the Lasso on `data` until converged or a limit in `options` is hit (then converged is
// false and the result is the current iterate, with its exact objective and violation).
// on_sweep, if set, is called after every full sweep (time spent in it counts towards seconds).
// Errors: InvalidArgument if lambda < 0, tolerance < 0, max_seconds < 0 (or any is NaN), or
// x.rows() != y.size().
Result<LassoReferenceResult> SolveLassoReference(
    const Dataset& data, const LassoReferenceOptions& options,
    std::function<void(const TracePoint&)> on_sweep = {});

// F(beta) computed from scratch. REQUIRES: beta.size() == data.x.cols() (NaN otherwise).
double LassoObjective(const Dataset& data, const Eigen::VectorXd& beta, double lambda);

}  // namespace strads::lasso
