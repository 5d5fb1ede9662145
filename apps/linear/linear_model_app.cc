#include "apps/linear/linear_model_app.h"

#include <cmath>
#include <string>
#include <utility>

#include "apps/linear/linear_model_options.h"
#include "engine/app_params.h"
#include "engine/dynamic_spec.h"

namespace strads {

LinearPenalty PenaltyOf(const proto::LinearModelSpec& spec) {
  return {spec.lambda(), spec.penalty() == "l2" ? PenaltyKind::kL2 : PenaltyKind::kL1,
          spec.positive()};
}

LinearPenalty PenaltyOf(const proto::JobSpec& spec) {
  // An unpack a call (~50 ns): the engine asks once a round or a check (PenaltySum,
  // PenaltySlopeAlong, EvaluateCheck), not once a parameter.
  Result<proto::LinearModelSpec> linear = AppParams<proto::LinearModelSpec>(spec);
  return PenaltyOf(linear.ok() ? *linear : proto::LinearModelSpec());
}

LinearModelApp::LinearModelApp(std::unique_ptr<const LinearLoss> loss)
    : loss_(std::move(loss)), predictor_(loss_->predictor_kind()) {}

boost::program_options::options_description LinearModelApp::Options() const {
  return LinearModelOptions(name(), loss_->accepts_l2() ? "l1 (default) | l2" : "l1 only",
                            loss_->loss_help(), loss_->accepts_intercept());
}

Status LinearModelApp::FromOptions(const boost::program_options::variables_map& options,
                                   proto::JobSpec& spec) const {
  STRADS_ASSIGN_OR_RETURN(const LinearModelFlags flags, LinearModelFromOptions(options));
  proto::LinearModelSpec linear;
  linear.set_lambda(flags.lambda);
  linear.set_penalty(flags.penalty);
  linear.set_loss(flags.loss);
  linear.set_intercept(flags.intercept);
  linear.set_positive(flags.positive);
  SetAppParams(linear, spec);
  if (auto defaults = loss_->EngineDefaults(spec)) SetAppDefaults(options, *defaults, spec);
  return Status::Ok();
}

Status LinearModelApp::Validate(const proto::JobSpec& spec) const {
  const std::string app = name();
  Result<proto::LinearModelSpec> params = AppParams<proto::LinearModelSpec>(spec);
  if (!params.ok()) return Status::InvalidArgument(app + ": " + params.status().message());
  const proto::LinearModelSpec& linear = *params;
  if (!(linear.lambda() >= 0.0) || !std::isfinite(linear.lambda())) {
    return Status::InvalidArgument(app + ": --lambda must be a finite number >= 0, got " +
                                   std::to_string(linear.lambda()));
  }
  if (!linear.loss().empty()) STRADS_RETURN_IF_ERROR(loss_->CheckLoss(linear.loss()));
  if (linear.intercept() && !loss_->accepts_intercept()) {
    return Status::InvalidArgument(app +
                                   ": no --intercept (lasso fits one by centring; a margin "
                                   "model takes a constant column of X instead)");
  }
  const std::string& penalty = linear.penalty();
  if (penalty.empty() || penalty == "l1" || (penalty == "l2" && loss_->accepts_l2())) {
    return Status::Ok();
  }
  if (loss_->accepts_l2()) {
    return Status::InvalidArgument(app + ": --penalty must be l1 or l2, got '" + penalty + "'");
  }
  return Status::InvalidArgument(app + ": only --penalty l1 is supported, got '" + penalty + "'");
}

Result<std::unique_ptr<ColumnModel>> LinearModelApp::MakeColumnModel(
    Dataset columns, const proto::JobSpec& spec) const {
  STRADS_ASSIGN_OR_RETURN(const proto::LinearModelSpec linear,
                          AppParams<proto::LinearModelSpec>(spec));
  return loss_->MakeColumnModel(std::move(columns), PenaltyOf(linear), spec);
}

bool LinearModelApp::CentresShared(const proto::JobSpec& spec) const {
  Result<proto::LinearModelSpec> linear = AppParams<proto::LinearModelSpec>(spec);
  return linear.ok() && linear->intercept();
}

double LinearModelApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  return PenaltyOf(spec).Violation(gradient, value);
}

double LinearModelApp::Penalty(double value, const proto::JobSpec& spec) const {
  return PenaltyOf(spec).Term(value);
}

CheckSums LinearModelApp::EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                                        const proto::JobSpec& spec) const {
  // The arithmetic inlined per penalty, the spec read once (see DynamicApp::EvaluateCheck).
  const LinearPenalty penalty = PenaltyOf(spec);
  const double lambda = penalty.lambda;
  if (penalty.positive) {
    return EvaluateCheckWith(
        gradients, values, [penalty](double g, double w) { return penalty.Violation(g, w); },
        [penalty](double w) { return penalty.Term(w); });
  }
  if (penalty.kind == PenaltyKind::kL2) {
    return EvaluateCheckWith(
        gradients, values, [lambda](double g, double w) { return std::abs(g + lambda * w); },
        [lambda](double w) { return 0.5 * lambda * w * w; });
  }
  return EvaluateCheckWith(
      gradients, values, [lambda](double g, double w) { return lasso::Violation(-g, w, lambda); },
      [lambda](double w) { return lambda * std::abs(w); });
}

double LinearModelApp::PenaltySlope(double value, double direction,
                                    const proto::JobSpec& spec) const {
  return PenaltyOf(spec).Slope(value, direction);
}

double LinearModelApp::PenaltySum(std::span<const double> values,
                                  const proto::JobSpec& spec) const {
  const LinearPenalty penalty = PenaltyOf(spec);
  double sum = 0;
  if (penalty.kind == PenaltyKind::kL2) {
    for (double v : values) sum += v * v;
    return 0.5 * penalty.lambda * sum;
  }
  for (double v : values) sum += std::abs(v);
  return penalty.lambda * sum;
}

double LinearModelApp::PenaltySlopeAlong(std::span<const double> base,
                                         std::span<const double> direction, double alpha, int side,
                                         const proto::JobSpec& spec) const {
  const LinearPenalty penalty = PenaltyOf(spec);
  double slope = 0;
  for (size_t k = 0; k < base.size(); ++k) {
    const double d = direction[k];
    if (d == 0.0) continue;
    slope += side * penalty.Slope(base[k] + alpha * d, side * d);
  }
  return slope;
}

double LinearModelApp::LossSlope(double label, double shared) const {
  return loss_->LossSlope(label, shared);
}

double LinearModelApp::Loss(std::span<const double> labels, std::span<const double> shared) const {
  return loss_->Loss(labels, shared);
}

void LinearModelApp::Summarize(const std::map<std::string, double>& metrics,
                               nlohmann::ordered_json& summary) const {
  loss_->Summarize(metrics, summary);
}

}  // namespace strads
