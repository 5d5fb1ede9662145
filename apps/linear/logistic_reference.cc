#include "apps/linear/logistic_reference.h"

#include <cmath>

#include "apps/linear/lasso_update.h"
#include "apps/linear/logistic_update.h"

namespace strads::logistic {
namespace {

struct L1 {
  double lambda;
  double Term(double w) const { return lambda * std::abs(w); }
  double Step(double g, double H, double w) const { return ProxNewton(g, H, w, lambda); }
  double Violation(double gradient, double w) const {
    return lasso::Violation(-gradient, w, lambda);
  }
};

}  // namespace

Result<LogisticReferenceResult> SolveLogisticReference(
    const Dataset& data, const LogisticReferenceOptions& options,
    std::function<void(const margin::ReferenceTracePoint&)> on_sweep) {
  return margin::SolveReference<LogisticLoss>("logistic", data, options, L1{options.lambda},
                                              std::move(on_sweep));
}

}  // namespace strads::logistic
