#include "apps/linear/svm_reference.h"

#include <cmath>

#include "apps/linear/lasso_update.h"

namespace strads::svm {
namespace {

struct Pen {
  double lambda;
  Penalty kind;
  double Term(double w) const { return PenaltyTerm(w, lambda, kind); }
  double Step(double g, double H, double w) const {
    if (kind == Penalty::kL2) return (H * w - g) / (H + lambda);
    return lasso::SoftThreshold(H * w - g, lambda) / H;
  }
  double Violation(double gradient, double w) const {
    return svm::Violation(gradient, w, lambda, kind);
  }
};

}  // namespace

Result<SvmReferenceResult> SolveSvmReference(
    const Dataset& data, const SvmReferenceOptions& options,
    std::function<void(const margin::ReferenceTracePoint&)> on_sweep) {
  return margin::SolveReference<SquaredHingeLoss>(
      "svm", data, options, Pen{options.lambda, options.penalty}, std::move(on_sweep));
}

}  // namespace strads::svm
