// L1-regularised logistic regression: the per-row loss and the coordinate update, shared by the
// engine (apps/linear/logistic_loss.h) and the sequential reference.
//
// Objective (data as loaded, labels y_i in {-1, +1}, no intercept):
//   F(w) = sum_i log(1 + exp(-y_i m_i)) + lambda ||w||_1,   m_i = x_i^T w
// (or + lambda/2 ||w||^2 with the l2 penalty: the same step with the penalty's prox, and the
// same safeguard, which holds for any convex penalty).
// With g = dF_loss/dw_j = sum_i -y_i x_ij sigma(-y_i m_i) and
//      h = d2F_loss/dw_j^2 = sum_i x_ij^2 sigma(m_i) sigma(-m_i),
// the newGLMNET coordinate step minimises the quadratic model
//   q_H(v) = g (v - w) + H/2 (v - w)^2 + lambda |v|   =>   v = S(H w - g, lambda) / H.
//
// Safeguard (there is no round trip for a line search, so the step must be safe by itself).
// Along the coordinate the true curvature is bounded: each row's sigma(m)sigma(-m) changes by at
// most a factor exp(|dm|) when m moves by dm (its log-derivative is tanh-like, |.| <= 1), and
// |x_ij| <= ||x_j||_2, so on the segment [w, w + d] the curvature is at most
//   C = min(h exp(|d| ||x_j||), ||x_j||^2 / 4)       (the second term: the global bound).
// Take d = the Newton step with H = h. If q_H is minimised with any H >= C/2 (and H >= h, so the
// step is no longer than d and stays in the segment), then, q_H being H-strongly convex,
//   F(v) - F(w) <= q_C(v) - q_C(w) <= (C/2 - H) (v - w)^2 <= 0,
// i.e. every single-coordinate update decreases F. The rule used is H = max(h, C/2): the plain
// Newton step whenever |d| ||x_j|| <= ln 2 (always so near the optimum, hence the fast local
// convergence), a damped one early on. h is floored at 1e-12 (1 + ||x_j||^2) so that a column
// whose rows are all classified with huge margins still takes a finite step.
// Pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>

#include "apps/linear/lasso_update.h"
#include "apps/linear/linear_penalty.h"
#include "apps/linear/log_of_product.h"
#include "apps/linear/margin_model.h"

namespace strads::logistic {

struct LogisticLoss {
  // sigma(-t) = 1 / (1 + exp(t)) from e = exp(-|t|), without overflow.
  static double SigmaNeg(double t, double e) { return t >= 0 ? e / (1.0 + e) : 1.0 / (1.0 + e); }

  // dl/dm alone (the coordinator's step length needs no more).
  static double Slope(double y, double m) {
    const double t = y * m;
    return -y * SigmaNeg(t, std::exp(-std::abs(t)));
  }

  // d1 and d2 of Eval, without the loss.
  static margin::RowTerms Derivatives(double y, double m) {
    const double t = y * m;
    const double sig_neg = SigmaNeg(t, std::exp(-std::abs(t)));
    margin::RowTerms r;
    r.d1 = -y * sig_neg;
    r.d2 = sig_neg * (1.0 - sig_neg);
    return r;
  }

  // l = log(1 + exp(-y m)) computed without overflow; d1 = dl/dm; d2 = d2l/dm2.
  static margin::RowTerms Eval(double y, double m) {
    const double t = y * m;
    const double e = std::exp(-std::abs(t));  // in (0, 1]
    margin::RowTerms r;
    r.loss = std::max(-t, 0.0) + std::log1p(e);
    const double sig_neg = SigmaNeg(t, e);
    r.d1 = -y * sig_neg;
    r.d2 = sig_neg * (1.0 - sig_neg);
    return r;
  }

  // The loss sum_i l(y_i, m_i) of rows added one at a time, l = max(-t, 0) + log(1 + e) with
  // t = y m, e = exp(-|t|): an exp per row and a log per 512 rows (LogOfProduct), not a log1p per
  // row.
  class Sum {
   public:
    void Add(double y, double m) {
      const double t = y * m;
      linear_ += std::max(-t, 0.0);
      logs_.Add(1.0 + std::exp(-std::abs(t)));
    }
    double Total() const { return linear_ + logs_.Sum(); }

   private:
    double linear_ = 0.0;
    LogOfProduct logs_;
  };

  // The change sum_i l(y_i, m1_i) - l(y_i, m0_i) of rows added one at a time, given each row's
  // terms at m0: their d1 stands in for the exp at m0. With s = sigma(-t0) = -y d1 (e0/(1 + e0)
  // for t0 >= 0, 1/(1 + e0) for t0 < 0), 1/(1 + e0) = max(s, 1 - s), so a row adds
  // max(-t1, 0) - max(-t0, 0) and the log of (1 + e1) max(s, 1 - s), a factor in [1/2, 2].
  // Summed row by row, the change is also free of the rounding of two large sums' difference.
  class ChangeSum {
   public:
    void Add(double y, double m0, const margin::RowTerms& at_m0, double m1) {
      const double t0 = y * m0, t1 = y * m1;
      linear_ += std::max(-t1, 0.0) - std::max(-t0, 0.0);
      const double s = -y * at_m0.d1;
      logs_.Add((1.0 + std::exp(-std::abs(t1))) * std::max(s, 1.0 - s));
    }
    double Total() const { return linear_ + logs_.Sum(); }

   private:
    double linear_ = 0.0;
    LogOfProduct logs_;
  };
};

// The minimiser of the quadratic model along coordinate j (no safeguard: the model is what is
// minimised; the share's line search checks the true objective, margin::QuadraticShare). h is
// floored as in CoordinateUpdate; an all-zero column stays at 0.
inline double ModelUpdate(double g, double h, double sq_norm, double w,
                          const LinearPenalty& penalty) {
  if (sq_norm <= 0.0) return 0.0;
  return penalty.Step(g, std::max(h, 1e-12 * (1.0 + sq_norm)), w);
}
inline double ModelUpdate(double g, double h, double sq_norm, double w, double lambda) {
  return ModelUpdate(g, h, sq_norm, w, LinearPenalty{lambda, PenaltyKind::kL1});
}

// New w_j from the summed g and h, sq_norm = ||x_j||^2 and the current w_j (see above).
// An all-zero column stays at 0.
inline double CoordinateUpdate(double g, double h, double sq_norm, double w,
                               const LinearPenalty& penalty) {
  if (sq_norm <= 0.0) return 0.0;
  const double h0 = std::max(h, 1e-12 * (1.0 + sq_norm));
  const double newton = penalty.Step(g, h0, w);
  const double bound =
      std::min(h0 * std::exp(std::abs(newton - w) * std::sqrt(sq_norm)), 0.25 * sq_norm);
  const double H = std::max(h0, 0.5 * bound);
  return H == h0 ? newton : penalty.Step(g, H, w);
}
inline double CoordinateUpdate(double g, double h, double sq_norm, double w, double lambda) {
  return CoordinateUpdate(g, h, sq_norm, w, LinearPenalty{lambda, PenaltyKind::kL1});
}

}  // namespace strads::logistic
