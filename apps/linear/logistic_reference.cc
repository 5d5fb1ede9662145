#include "apps/linear/logistic_reference.h"

#include "apps/linear/linear_penalty.h"
#include "apps/linear/logistic_update.h"

namespace strads::logistic {

Result<LogisticReferenceResult> SolveLogisticReference(
    const Dataset& data, const LogisticReferenceOptions& options,
    std::function<void(const margin::ReferenceTracePoint&)> on_sweep) {
  return margin::SolveReference<LogisticLoss>("logistic", data, options,
                                              LinearPenalty{options.lambda}, std::move(on_sweep));
}

}  // namespace strads::logistic
