// Lasso's loss, least squares: F(beta) = 1/2 ||y - X beta||^2 + lambda ||beta||_1 (l1 only;
// --positive: over beta >= 0);
// with --intercept, F(beta) = min_b 1/2 ||y - X beta - b 1||^2 + lambda ||beta||_1, fitted by
// centring implicitly (DynamicApp::CentresShared).
//
// A worker holds the residual r = y - X beta over every row and runs the exact coordinate
// minimiser (lasso_update.h) on the columns it owns. Engine default: chords requested a round
// ahead (--pipeline-depth 2).
// Immutable; thread-safe.
#pragma once

#include "apps/linear/linear_loss.h"

namespace strads {

class LassoLoss final : public LinearLoss {
 public:
  std::string name() const override { return "lasso"; }
  std::string summary() const override { return "least squares + lambda ||beta||_1 (Lasso)"; }
  LinearModelKind predictor_kind() const override { return LinearModelKind::kRegression; }
  bool accepts_intercept() const override { return true; }
  std::optional<AppDefaults> EngineDefaults(const proto::JobSpec& spec) const override;
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const LinearPenalty& penalty,
                                                       const proto::JobSpec& spec) const override;
  double LossSlope(double label, double residual) const override;
  double Loss(std::span<const double> labels, std::span<const double> residual) const override;
};

}  // namespace strads
