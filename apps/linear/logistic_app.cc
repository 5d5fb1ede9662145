#include "apps/linear/logistic_app.h"

#include <cmath>

#include "apps/linear/l1_check.h"
#include "apps/linear/lasso_update.h"
#include "apps/linear/linear_model_options.h"
#include "apps/linear/logistic_update.h"
#include "apps/linear/margin_model.h"
#include "engine/dynamic_spec.h"

namespace strads {

std::string LogisticApp::summary() const { return "logistic loss + lambda ||w||_1"; }

boost::program_options::options_description LogisticApp::Options() const {
  return LinearModelOptions("logistic", "l1 only");
}

Status LogisticApp::FromOptions(const boost::program_options::variables_map& options,
                                proto::JobSpec& spec) const {
  auto flags = LinearModelFromOptions(options);
  if (!flags.ok()) return flags.status();
  spec.mutable_logistic()->set_lambda(flags->lambda);
  spec.mutable_logistic()->set_penalty(flags->penalty);
  // A share on the quadratic model costs two multiply-adds per non-zero, no exp: chords of 4096
  // reached 1e-3 and 1e-6 of F* in half the time of 2048 on the L1-LR benchmark, 1 and 2
  // workers (docs/performance.md). Up to 8 passes a share: with the passes after the
  // first going over the parameters that moved, 8 reached 1e-6 sooner than 4 on dense
  // Fashion-MNIST (0.66 s against 1.03) and as soon on the sparse L1-LR problem, where 1e-3 came
  // a little later (docs/performance.md, "Active passes"). 4096 is a cap: on long columns the
  // schedulers size chords to the data (engine/chord_size.h).
  if (!spec.dynamic().exact_shares()) {
    SetAppDefaults(options, {.chord_size = 4096, .chord_size_adapts = true, .inner_passes = 8},
                   spec);
  }
  return Status::Ok();
}

std::vector<std::string> LogisticApp::OutputFiles() const { return {"coefficients.tsv"}; }

Status LogisticApp::Validate(const proto::JobSpec& spec) const {
  if (!spec.has_logistic()) {
    return Status::InvalidArgument("logistic: the spec has no logistic parameters");
  }
  if (!(spec.logistic().lambda() >= 0.0) || !std::isfinite(spec.logistic().lambda())) {
    return Status::InvalidArgument("logistic: --lambda must be a finite number >= 0, got " +
                                   std::to_string(spec.logistic().lambda()));
  }
  if (!spec.logistic().penalty().empty() && spec.logistic().penalty() != "l1") {
    return Status::InvalidArgument("logistic: only --penalty l1 is supported, got '" +
                                   spec.logistic().penalty() + "'");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ColumnModel>> LogisticApp::MakeColumnModel(
    Dataset columns, const proto::JobSpec& spec) const {
  const double lambda = spec.logistic().lambda();
  // The share runs on the loss's quadratic model (no exp per non-zero; margin::QuadraticShare)
  // unless --exact-shares.
  std::optional<margin::QuadraticShare> quadratic;
  if (!spec.dynamic().exact_shares()) {
    quadratic = margin::QuadraticShare{[lambda](double g, double h, double sq_norm, double w) {
                                         return logistic::ModelUpdate(g, h, sq_norm, w, lambda);
                                       },
                                       [lambda](double w) { return lambda * std::abs(w); }};
  }
  return margin::MakeMarginColumnModel<logistic::LogisticLoss>(
      std::move(columns),
      [lambda](double g, double h, double sq_norm, double w) {
        return logistic::CoordinateUpdate(g, h, sq_norm, w, lambda);
      },
      SharePassesOf(spec.dynamic(), spec.workers()), std::move(quadratic));
}

double LogisticApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  return lasso::Violation(-gradient, value, spec.logistic().lambda());
}

double LogisticApp::Penalty(double value, const proto::JobSpec& spec) const {
  return spec.logistic().lambda() * std::abs(value);
}

CheckSums LogisticApp::EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                                     const proto::JobSpec& spec) const {
  return EvaluateL1Check(gradients, values, spec.logistic().lambda());
}

double LogisticApp::PenaltySlope(double value, double direction, const proto::JobSpec& spec) const {
  return lasso::L1Slope(value, direction, spec.logistic().lambda());
}

double LogisticApp::LossSlope(double label, double margin) const {
  return logistic::LogisticLoss::Slope(label, margin);
}

double LogisticApp::Loss(std::span<const double> labels, std::span<const double> margins) const {
  return margin::SumOfLosses<logistic::LogisticLoss>(labels, margins);
}

void LogisticApp::Summarize(const std::map<std::string, double>& metrics,
                            nlohmann::ordered_json& summary) const {
  margin::SummarizeBinary(metrics, summary);
}

}  // namespace strads
