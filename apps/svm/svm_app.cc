#include "apps/svm/svm_app.h"

#include <cmath>

#include "apps/margin_model.h"
#include "apps/svm/svm_update.h"

namespace strads {
namespace {

// Validate has accepted the spec: empty means the default, l1.
svm::Penalty PenaltyOf(const proto::JobSpec& spec) {
  return spec.penalty() == "l2" ? svm::Penalty::kL2 : svm::Penalty::kL1;
}

}  // namespace

Status SvmApp::Validate(const proto::JobSpec& spec) const {
  if (!(spec.lambda() >= 0.0) || !std::isfinite(spec.lambda())) {
    return Status::InvalidArgument("svm: --lambda must be a finite number >= 0, got " +
                                   std::to_string(spec.lambda()));
  }
  if (spec.loss() == "hinge") {
    return Status::InvalidArgument("svm: --loss hinge is not supported; use --loss squared-hinge");
  }
  if (!spec.loss().empty() && spec.loss() != "squared-hinge") {
    return Status::InvalidArgument("svm: --loss must be squared-hinge, got '" + spec.loss() + "'");
  }
  if (!spec.penalty().empty() && spec.penalty() != "l1" && spec.penalty() != "l2") {
    return Status::InvalidArgument("svm: --penalty must be l1 or l2, got '" + spec.penalty() + "'");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ShardModel>> SvmApp::MakeShard(Dataset shard,
                                                      const proto::JobSpec& spec) const {
  return margin::MakeMarginShard<svm::SquaredHingeLoss>(std::move(shard));
}

double SvmApp::Pull(std::span<const double> stats, double sq_norm, double value,
                    const proto::JobSpec& spec) const {
  return svm::CoordinateUpdate(stats[0], stats[1], sq_norm, value, spec.lambda(), PenaltyOf(spec));
}

double SvmApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  return svm::Violation(gradient, value, spec.lambda(), PenaltyOf(spec));
}

double SvmApp::Penalty(double value, const proto::JobSpec& spec) const {
  return svm::PenaltyTerm(value, spec.lambda(), PenaltyOf(spec));
}

void SvmApp::Summarize(const std::map<std::string, double>& metrics,
                       nlohmann::ordered_json& summary) const {
  margin::SummarizeBinary(metrics, summary);
}

}  // namespace strads
