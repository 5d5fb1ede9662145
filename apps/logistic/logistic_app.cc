#include "apps/logistic/logistic_app.h"

#include <cmath>

#include "apps/lasso/lasso_update.h"
#include "apps/logistic/logistic_update.h"
#include "apps/margin_model.h"

namespace strads {

Status LogisticApp::Validate(const proto::JobSpec& spec) const {
  if (!(spec.lambda() >= 0.0) || !std::isfinite(spec.lambda())) {
    return Status::InvalidArgument("logistic: --lambda must be a finite number >= 0, got " +
                                   std::to_string(spec.lambda()));
  }
  if (!spec.loss().empty() && spec.loss() != "logistic") {
    return Status::InvalidArgument("logistic: --loss does not apply (the loss is logistic), got '" +
                                   spec.loss() + "'");
  }
  if (!spec.penalty().empty() && spec.penalty() != "l1") {
    return Status::InvalidArgument("logistic: only --penalty l1 is supported, got '" +
                                   spec.penalty() + "'");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ShardModel>> LogisticApp::MakeShard(Dataset shard,
                                                           const proto::JobSpec& spec) const {
  return margin::MakeMarginShard<logistic::LogisticLoss>(std::move(shard));
}

double LogisticApp::Pull(std::span<const double> stats, double sq_norm, double value,
                         const proto::JobSpec& spec) const {
  return logistic::CoordinateUpdate(stats[0], stats[1], sq_norm, value, spec.lambda());
}

double LogisticApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  return lasso::Violation(-gradient, value, spec.lambda());
}

double LogisticApp::Penalty(double value, const proto::JobSpec& spec) const {
  return spec.lambda() * std::abs(value);
}

void LogisticApp::Summarize(const std::map<std::string, double>& metrics,
                            nlohmann::ordered_json& summary) const {
  margin::SummarizeBinary(metrics, summary);
}

}  // namespace strads
