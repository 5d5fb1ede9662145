// Linear SVM (squared hinge loss, l1 or l2 penalty) as a dynamic-engine app:
//   F(w) = sum_i max(0, 1 - y_i x_i^T w)^2 + lambda ||w||_1      (--penalty l1, the default)
//   F(w) = sum_i max(0, 1 - y_i x_i^T w)^2 + lambda/2 ||w||^2    (--penalty l2),
// labels +/-1 (0/1 mapped 0 -> -1), no intercept.
//
// Worker state (apps/linear/margin_model.h): the margins m = X w over every row. A coordinate step
// takes g_j = sum_{active i} -2 y_i x_ij (1 - y_i m_i) and the generalised second derivative h_j =
// sum_{active i} 2 x_ij^2 (Chang, Hsieh and Lin 2008) over the worker's columns: the
// (soft-thresholded for l1) generalised Newton step with the descent safeguard of svm_update.h
// (margin::MarginColumnModel).
// Options: --loss squared-hinge (the default; --loss hinge is refused: the primal coordinate
// Newton method needs a differentiable loss), --penalty l1|l2. Metrics and summary.json fields as
// the logistic app ("training_accuracy", "label_mapping").
// Stateless; thread-safe.
#pragma once

#include "apps/linear/linear_model_predictor.h"
#include "engine/dynamic_app.h"

namespace strads {

class SvmApp : public DynamicApp {
 public:
  std::string name() const override { return "svm"; }
  std::string summary() const override;
  boost::program_options::options_description Options() const override;
  Status FromOptions(const boost::program_options::variables_map& options,
                     proto::JobSpec& spec) const override;
  std::vector<std::string> OutputFiles() const override;
  const ModelPredictor* predictor() const override { return &predictor_; }
  Status Validate(const proto::JobSpec& spec) const override;
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const proto::JobSpec& spec) const override;
  double Violation(double gradient, double value, const proto::JobSpec& spec) const override;
  double Penalty(double value, const proto::JobSpec& spec) const override;
  CheckSums EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                          const proto::JobSpec& spec) const override;
  double PenaltySlope(double value, double direction, const proto::JobSpec& spec) const override;
  double LossSlope(double label, double shared) const override;
  double Loss(std::span<const double> labels, std::span<const double> shared) const override;
  void Summarize(const std::map<std::string, double>& metrics,
                 nlohmann::ordered_json& summary) const override;

 private:
  LinearModelPredictor predictor_{LinearModelKind::kClassifier};
};

}  // namespace strads
