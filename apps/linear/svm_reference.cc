#include "apps/linear/svm_reference.h"

namespace strads::svm {

Result<SvmReferenceResult> SolveSvmReference(
    const Dataset& data, const SvmReferenceOptions& options,
    std::function<void(const margin::ReferenceTracePoint&)> on_sweep) {
  return margin::SolveReference<SquaredHingeLoss>(
      "svm", data, options, LinearPenalty{options.lambda, options.penalty}, std::move(on_sweep));
}

}  // namespace strads::svm
