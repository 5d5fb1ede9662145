// The linear SVM's loss, the squared hinge, with the l1 or l2 penalty:
//   F(w) = sum_i max(0, 1 - y_i x_i^T w)^2 + lambda ||w||_1      (--penalty l1, the default)
//   F(w) = sum_i max(0, 1 - y_i x_i^T w)^2 + lambda/2 ||w||^2    (--penalty l2),
// labels +/-1 (0/1 mapped 0 -> -1).
//
// Worker state (margin_model.h): the margins m = X w over every row. A coordinate step takes
// g_j = sum_{active i} -2 y_i x_ij (1 - y_i m_i) and the generalised second derivative
// h_j = sum_{active i} 2 x_ij^2 (Chang, Hsieh and Lin 2008) over the worker's columns: the
// (soft-thresholded for l1) generalised Newton step with the descent safeguard of svm_update.h.
// --loss squared-hinge is the default; --loss hinge is refused (the primal coordinate Newton
// method needs a differentiable loss).
// Immutable; thread-safe.
#pragma once

#include "apps/linear/margin_loss.h"
#include "apps/linear/svm_update.h"

namespace strads {

// A margin loss minimised by svm_update.h's generalised Newton step and its descent safeguard, with
// the l1 or l2 penalty. The safeguard's argument needs of RowLoss: each row's loss at most the
// quadratic a^2 (a = 1 - y m) that it equals where d2 = 2 (its active rows), d2 = 0 elsewhere, and
// dl/dm 2-Lipschitz (the squared hinge; the modified Huber loss, huber_loss.h).
template <class RowLoss>
class GeneralisedNewtonLoss : public margin::MarginLoss<RowLoss> {
 public:
  bool accepts_l2() const override { return true; }
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const LinearPenalty& penalty,
                                                       const proto::JobSpec& spec) const override {
    return this->MakeModel(
        std::move(columns), penalty, spec,
        [penalty](double g, double h, double sq_norm, double w) {
          return svm::CoordinateUpdate(g, h, sq_norm, w, penalty);
        },
        [penalty](double g, double h, double sq_norm, double w) {
          return svm::ModelUpdate(g, h, sq_norm, w, penalty);
        });
  }
};

class SvmLoss final : public GeneralisedNewtonLoss<svm::SquaredHingeLoss> {
 public:
  std::string name() const override { return "svm"; }
  std::string summary() const override {
    return "linear SVM: squared hinge loss + lambda ||w||_1 or lambda/2 ||w||^2";
  }
  std::string loss_help() const override {
    return "squared-hinge (the default; hinge is not supported)";
  }
  Status CheckLoss(const std::string& loss) const override {
    if (loss == "hinge") {
      return Status::InvalidArgument(
          "svm: --loss hinge is not supported; use --loss squared-hinge");
    }
    if (loss != "squared-hinge") {
      return Status::InvalidArgument("svm: --loss must be squared-hinge, got '" + loss + "'");
    }
    return Status::Ok();
  }
};

}  // namespace strads
