// The sequential linear-SVM solver (squared hinge loss, l1 or l2 penalty): the oracle the
// distributed engine is checked against.
//
// Objective, on the data exactly as loaded (labels +/-1, or 0/1 mapped 0 -> -1; no intercept):
//   F(w) = sum_i max(0, 1 - y_i x_i^T w)^2 + lambda ||w||_1        (penalty l1)
//   F(w) = sum_i max(0, 1 - y_i x_i^T w)^2 + lambda/2 ||w||^2      (penalty l2).
// Algorithm: primal cyclic coordinate descent of Chang, Hsieh and Lin (2008): a generalised
// Newton direction (soft-thresholded for l1) and a backtracking line search with sufficient
// decrease, with active-set passes (apps/linear/margin_reference.h).
// Convergence criterion, as the engine's: lambda_max = max_j |2 sum_i y_i x_ij| (the gradient at
// w = 0); converged iff max_j dist(0, d_j F) <= tolerance * lambda_max from exact margins, where
// dist is the L1 subdifferential distance (l1) or |g_j + lambda w_j| (l2).
//
// Thread-safety: reentrant; the Dataset is only read.
#pragma once

#include <functional>

#include "apps/linear/margin_reference.h"
#include "apps/linear/svm_update.h"

namespace strads::svm {

struct SvmReferenceOptions : margin::ReferenceOptions {
  Penalty penalty = Penalty::kL1;
};
using SvmReferenceResult = margin::ReferenceResult;

// Solves until converged or a limit in `options` is hit (then converged is false). Errors as
// SolveLogisticReference (bad lambda, tolerance, shapes, non-binary labels).
Result<SvmReferenceResult> SolveSvmReference(
    const Dataset& data, const SvmReferenceOptions& options,
    std::function<void(const margin::ReferenceTracePoint&)> on_sweep = {});

}  // namespace strads::svm
