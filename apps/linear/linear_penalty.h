// The penalties of the linear models (apps/linear/linear_model_app.h): lambda ||w||_1 (l1) and
// lambda/2 ||w||^2 (l2), one parameter at a time; `positive` adds the constraint w >= 0 (a
// parameter's step never leaves it, so Term and Slope are those of the penalty alone). Used by the
// app (violation, penalty and slope at the coordinator and the schedulers), by the coordinate steps
// and by the sequential references (it is the Pen of margin::SolveReference). Pure; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>

#include "apps/linear/lasso_update.h"

namespace strads {

enum class PenaltyKind { kL1, kL2 };

struct LinearPenalty {
  double lambda = 0;
  PenaltyKind kind = PenaltyKind::kL1;
  bool positive = false;  // w >= 0

  // P(w).
  double Term(double w) const {
    return kind == PenaltyKind::kL2 ? 0.5 * lambda * w * w : lambda * std::abs(w);
  }

  // Distance from 0 to the subdifferential of loss + P (+ the constraint) in w, given the loss's
  // gradient. At w = 0 under the constraint only a negative slope (g + P's right slope < 0) is
  // a violation.
  double Violation(double gradient, double w) const {
    if (positive && w <= 0.0) {
      return std::max(0.0, -gradient - (kind == PenaltyKind::kL2 ? 0.0 : lambda));
    }
    if (kind == PenaltyKind::kL2) return std::abs(gradient + lambda * w);
    return lasso::Violation(-gradient, w, lambda);  // it takes minus the loss's gradient
  }

  // The right derivative of P at w in the direction d.
  double Slope(double w, double d) const {
    return kind == PenaltyKind::kL2 ? lambda * w * d : lasso::L1Slope(w, d, lambda);
  }

  // argmin_v g (v - w) + H/2 (v - w)^2 + P(v) (over v >= 0 when positive: the unconstrained
  // minimiser clipped, the model being convex in one variable). REQUIRES: H > 0.
  double Step(double g, double H, double w) const {
    const double v = kind == PenaltyKind::kL2 ? (H * w - g) / (H + lambda)
                                              : lasso::SoftThreshold(H * w - g, lambda) / H;
    return positive ? std::max(0.0, v) : v;
  }
};

}  // namespace strads
