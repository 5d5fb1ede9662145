// The penalties of the linear models (apps/linear/linear_model_app.h): lambda ||w||_1 (l1) and
// lambda/2 ||w||^2 (l2), one parameter at a time. Used by the app (violation, penalty and slope at
// the coordinator and the schedulers), by the coordinate steps and by the sequential references
// (it is the Pen of margin::SolveReference).
// Pure; thread-safe.
#pragma once

#include <cmath>

#include "apps/linear/lasso_update.h"

namespace strads {

enum class PenaltyKind { kL1, kL2 };

struct LinearPenalty {
  double lambda = 0;
  PenaltyKind kind = PenaltyKind::kL1;

  // P(w).
  double Term(double w) const {
    return kind == PenaltyKind::kL2 ? 0.5 * lambda * w * w : lambda * std::abs(w);
  }

  // Distance from 0 to the subdifferential of loss + P in w, given the loss's gradient.
  double Violation(double gradient, double w) const {
    if (kind == PenaltyKind::kL2) return std::abs(gradient + lambda * w);
    return lasso::Violation(-gradient, w, lambda);  // it takes minus the loss's gradient
  }

  // The right derivative of P at w in the direction d.
  double Slope(double w, double d) const {
    return kind == PenaltyKind::kL2 ? lambda * w * d : lasso::L1Slope(w, d, lambda);
  }

  // argmin_v g (v - w) + H/2 (v - w)^2 + P(v). REQUIRES: H > 0.
  double Step(double g, double H, double w) const {
    if (kind == PenaltyKind::kL2) return (H * w - g) / (H + lambda);
    return lasso::SoftThreshold(H * w - g, lambda) / H;
  }
};

}  // namespace strads
