// The sequential L1-regularised logistic regression solver: the oracle the distributed engine is
// checked against.
//
// Objective, on the data exactly as loaded (labels +/-1, or 0/1 mapped 0 -> -1; no intercept):
//   F(w) = sum_i log(1 + exp(-y_i x_i^T w)) + lambda ||w||_1.
// Algorithm: cyclic coordinate descent with the newGLMNET one-dimensional Newton step, soft
// threshold and a backtracking line search, with active-set passes
// (apps/linear/margin_reference.h). Convergence criterion, as the engine's: lambda_max = max_j
// |sum_i y_i x_ij| / 2 (the gradient at w = 0); converged iff max_j dist(0, d_j F) <= tolerance *
// lambda_max, from exact margins.
//
// Thread-safety: reentrant; the Dataset is only read.
#pragma once

#include <functional>

#include "apps/linear/margin_reference.h"

namespace strads::logistic {

using LogisticReferenceOptions = margin::ReferenceOptions;
using LogisticReferenceResult = margin::ReferenceResult;

// Solves until converged or a limit in `options` is hit (then converged is false and the result
// is the current iterate with its exact objective and violation). on_sweep, if set, is called
// after every full sweep.
// Errors: InvalidArgument if lambda < 0 (or NaN/inf), tolerance or max_seconds < 0, x.rows() !=
// y.size(), or a label is not binary ("PATH: label V at row N is not binary (use ±1 or 0/1)").
Result<LogisticReferenceResult> SolveLogisticReference(
    const Dataset& data, const LogisticReferenceOptions& options,
    std::function<void(const margin::ReferenceTracePoint&)> on_sweep = {});

}  // namespace strads::logistic
