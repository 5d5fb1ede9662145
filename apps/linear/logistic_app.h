// L1-regularised logistic regression as a dynamic-engine app:
//   F(w) = sum_i log(1 + exp(-y_i x_i^T w)) + lambda ||w||_1,  labels +/-1 (0/1 mapped 0 -> -1).
//
// Worker state (apps/linear/margin_model.h): the margins m = X w over every row. A coordinate step
// takes the gradient g_j and the curvature h_j = sum_i x_ij^2 sigma(m_i) sigma(-m_i) of a column:
// the newGLMNET soft-thresholded Newton step with the descent safeguard of logistic_update.h
// (margin::MarginColumnModel).
// Violation and Penalty are the L1 ones (as Lasso). Metrics: "correct", "rows" and the label
// counts; summary.json gets "training_accuracy" and "label_mapping".
// No intercept: add a constant feature to the data for one. Options: --penalty l1 only (anything
// else is refused); --loss is refused (the loss is logistic).
// Stateless; thread-safe.
#pragma once

#include "apps/linear/linear_model_predictor.h"
#include "engine/dynamic_app.h"

namespace strads {

class LogisticApp : public DynamicApp {
 public:
  std::string name() const override { return "logistic"; }
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
  LinearModelPredictor predictor_{LinearModelKind::kProbabilisticClassifier};
};

}  // namespace strads
