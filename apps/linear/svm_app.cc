#include "apps/linear/svm_app.h"

#include <cmath>

#include "apps/linear/linear_model_options.h"
#include "apps/linear/margin_model.h"
#include "apps/linear/svm_update.h"
#include "engine/dynamic_spec.h"

namespace strads {
namespace {

// Validate has accepted the spec: empty means the default, l1.
svm::Penalty PenaltyOf(const proto::JobSpec& spec) {
  return spec.svm().penalty() == "l2" ? svm::Penalty::kL2 : svm::Penalty::kL1;
}

}  // namespace

std::string SvmApp::summary() const {
  return "linear SVM: squared hinge loss + lambda ||w||_1 or lambda/2 ||w||^2";
}

boost::program_options::options_description SvmApp::Options() const {
  return LinearModelOptions("svm", "l1 (default) | l2",
                            "squared-hinge (the default; hinge is not supported)");
}

Status SvmApp::FromOptions(const boost::program_options::variables_map& options,
                           proto::JobSpec& spec) const {
  auto flags = LinearModelFromOptions(options);
  if (!flags.ok()) return flags.status();
  spec.mutable_svm()->set_lambda(flags->lambda);
  spec.mutable_svm()->set_penalty(flags->penalty);
  spec.mutable_svm()->set_loss(flags->loss);
  // Shares on the quadratic model, as logistic's: chords of 4096 reached 1e-3 and 1e-6 of F*
  // sooner than 2048 on a sparse 20,000 x 20,000 problem (docs/performance.md); up to
  // 8 passes a share, as logistic's; 4096 a cap, as logistic's (engine/chord_size.h).
  if (!spec.dynamic().exact_shares()) {
    SetAppDefaults(options, {.chord_size = 4096, .chord_size_adapts = true, .inner_passes = 8},
                   spec);
  }
  return Status::Ok();
}

std::vector<std::string> SvmApp::OutputFiles() const { return {"coefficients.tsv"}; }

Status SvmApp::Validate(const proto::JobSpec& spec) const {
  if (!spec.has_svm()) return Status::InvalidArgument("svm: the spec has no svm parameters");
  if (!(spec.svm().lambda() >= 0.0) || !std::isfinite(spec.svm().lambda())) {
    return Status::InvalidArgument("svm: --lambda must be a finite number >= 0, got " +
                                   std::to_string(spec.svm().lambda()));
  }
  if (spec.svm().loss() == "hinge") {
    return Status::InvalidArgument("svm: --loss hinge is not supported; use --loss squared-hinge");
  }
  if (!spec.svm().loss().empty() && spec.svm().loss() != "squared-hinge") {
    return Status::InvalidArgument("svm: --loss must be squared-hinge, got '" + spec.svm().loss() +
                                   "'");
  }
  if (!spec.svm().penalty().empty() && spec.svm().penalty() != "l1" &&
      spec.svm().penalty() != "l2") {
    return Status::InvalidArgument("svm: --penalty must be l1 or l2, got '" + spec.svm().penalty() +
                                   "'");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ColumnModel>> SvmApp::MakeColumnModel(Dataset columns,
                                                             const proto::JobSpec& spec) const {
  const double lambda = spec.svm().lambda();
  const svm::Penalty penalty = PenaltyOf(spec);
  // The share runs on the loss's quadratic model (the active rows as they are at the round's
  // start, margin::QuadraticShare) unless --exact-shares.
  std::optional<margin::QuadraticShare> quadratic;
  if (!spec.dynamic().exact_shares()) {
    quadratic = margin::QuadraticShare{
        [lambda, penalty](double g, double h, double sq_norm, double w) {
          return svm::ModelUpdate(g, h, sq_norm, w, lambda, penalty);
        },
        [lambda, penalty](double w) { return svm::PenaltyTerm(w, lambda, penalty); }};
  }
  return margin::MakeMarginColumnModel<svm::SquaredHingeLoss>(
      std::move(columns),
      [lambda, penalty](double g, double h, double sq_norm, double w) {
        return svm::CoordinateUpdate(g, h, sq_norm, w, lambda, penalty);
      },
      SharePassesOf(spec.dynamic(), spec.workers()), std::move(quadratic));
}

double SvmApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  return svm::Violation(gradient, value, spec.svm().lambda(), PenaltyOf(spec));
}

double SvmApp::Penalty(double value, const proto::JobSpec& spec) const {
  return svm::PenaltyTerm(value, spec.svm().lambda(), PenaltyOf(spec));
}

CheckSums SvmApp::EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                                const proto::JobSpec& spec) const {
  const double lambda = spec.svm().lambda();
  const svm::Penalty penalty = PenaltyOf(spec);
  return EvaluateCheckWith(
      gradients, values,
      [lambda, penalty](double g, double w) { return svm::Violation(g, w, lambda, penalty); },
      [lambda, penalty](double w) { return svm::PenaltyTerm(w, lambda, penalty); });
}

double SvmApp::PenaltySlope(double value, double direction, const proto::JobSpec& spec) const {
  return svm::PenaltySlope(value, direction, spec.svm().lambda(), PenaltyOf(spec));
}

double SvmApp::LossSlope(double label, double margin) const {
  return svm::SquaredHingeLoss::Slope(label, margin);
}

double SvmApp::Loss(std::span<const double> labels, std::span<const double> margins) const {
  return margin::SumOfLosses<svm::SquaredHingeLoss>(labels, margins);
}

void SvmApp::Summarize(const std::map<std::string, double>& metrics,
                       nlohmann::ordered_json& summary) const {
  margin::SummarizeBinary(metrics, summary);
}

}  // namespace strads
