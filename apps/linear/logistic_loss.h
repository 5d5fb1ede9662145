// Logistic regression's loss: F(w) = sum_i log(1 + exp(-y_i x_i^T w)) + lambda ||w||_1 (or
// + lambda/2 ||w||^2 with --penalty l2), labels +/-1 (0/1 mapped 0 -> -1; no --loss).
//
// Worker state (margin_model.h): the margins m = X w over every row. A coordinate step takes the
// gradient g_j and the curvature h_j = sum_i x_ij^2 sigma(m_i) sigma(-m_i) of a column: the
// newGLMNET soft-thresholded Newton step with the descent safeguard of logistic_update.h; shares
// on the loss's quadratic model unless --exact-shares (margin::QuadraticShare). summary.json gets
// "training_accuracy" and "label_mapping"; predict gives P(y = +1) too.
// Immutable; thread-safe.
#pragma once

#include "apps/linear/logistic_update.h"
#include "apps/linear/margin_loss.h"

namespace strads {

class LogisticLoss final : public margin::MarginLoss<logistic::LogisticLoss> {
 public:
  std::string name() const override { return "logistic"; }
  std::string summary() const override {
    return "logistic loss + lambda ||w||_1 or lambda/2 ||w||^2";
  }
  bool accepts_l2() const override { return true; }
  LinearModelKind predictor_kind() const override {
    return LinearModelKind::kProbabilisticClassifier;
  }
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const LinearPenalty& penalty,
                                                       const proto::JobSpec& spec) const override {
    return MakeModel(
        std::move(columns), penalty, spec,
        [penalty](double g, double h, double sq_norm, double w) {
          return logistic::CoordinateUpdate(g, h, sq_norm, w, penalty);
        },
        [penalty](double g, double h, double sq_norm, double w) {
          return logistic::ModelUpdate(g, h, sq_norm, w, penalty);
        });
  }
};

}  // namespace strads
