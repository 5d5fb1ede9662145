// Linear SVM with the squared hinge loss (primal coordinate descent of Chang, Hsieh and Lin 2008):
// the per-row loss and the coordinate updates, shared by the engine (apps/linear/svm_loss.h) and
// the sequential reference.
//
// Objective (data as loaded, labels y_i in {-1, +1}, no intercept):
//   F(w) = sum_i max(0, 1 - y_i m_i)^2 + P(w),   m_i = x_i^T w,
//   P(w) = lambda ||w||_1 (penalty l1)  or  lambda/2 ||w||^2 (penalty l2).
// With the active rows A = {i : 1 - y_i m_i > 0},
//   g = sum_{i in A} -2 y_i x_ij (1 - y_i m_i)   (the exact partial derivative), and
//   h = sum_{i in A} 2 x_ij^2                    (the generalised second derivative),
// the coordinate step minimises q_H(v) = g (v - w) + H/2 (v - w)^2 + P_j(v):
//   l1: v = S(H w - g, lambda) / H;     l2: v = (H w - g) / (H + lambda).
//
// Safeguard (no round trip is available for the paper's line search). Let d = v - w. Along the
// coordinate, a row in A contributes at most its quadratic (max(0, a)^2 <= a^2) and a row outside A
// at most x_ij^2 d^2 (it may become active), so
//   F(v) - F(w) <= q_h(v) - q_h(w) + (||x_j||^2 - h/2) d^2
//               =  q_H(v) - q_H(w) + (||x_j||^2 - H/2) d^2   (as q_h = q_H - (H - h)/2 d^2)
//               <= (||x_j||^2 - H) d^2,
// the last step because v minimises the H-strongly convex q_H. The rule H = max(h, ||x_j||^2)
// therefore makes every single-coordinate update a descent step: the generalised Newton step
// whenever the active rows carry at least half of the column's squared norm (the usual case near
// the optimum), a damped step otherwise. A column with no active rows (h = 0) still moves
// (H = ||x_j||^2 > 0). The plain safe bound 2 ||x_j||^2 would halve every step for nothing.
// Pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "apps/linear/linear_penalty.h"
#include "apps/linear/margin_model.h"

namespace strads::svm {

using Penalty = PenaltyKind;

struct SquaredHingeLoss {
  // dl/dm alone.
  static double Slope(double y, double m) {
    const double a = 1.0 - y * m;
    return a > 0.0 ? -2.0 * y * a : 0.0;
  }

  static margin::RowTerms Derivatives(double y, double m) { return Eval(y, m); }  // l is cheap

  static margin::RowTerms Eval(double y, double m) {
    const double a = 1.0 - y * m;
    margin::RowTerms r;
    if (a > 0.0) {
      r.loss = a * a;
      r.d1 = -2.0 * y * a;
      r.d2 = 2.0;
    }
    return r;
  }
};

// New w_j from the summed g and h, sq_norm = ||x_j||^2 and the current w_j (see above).
// An all-zero column stays at 0.
inline double CoordinateUpdate(double g, double h, double sq_norm, double w,
                               const LinearPenalty& penalty) {
  if (sq_norm <= 0.0) return 0.0;
  return penalty.Step(g, std::max(h, sq_norm), w);
}

// The minimiser of the quadratic model (the round's active rows, frozen) along coordinate j: the
// generalised Newton step without the safeguard (the share's line search checks the true
// objective, margin::QuadraticShare). h is floored at 1e-12 (1 + ||x_j||^2); an all-zero column
// stays at 0.
inline double ModelUpdate(double g, double h, double sq_norm, double w,
                          const LinearPenalty& penalty) {
  if (sq_norm <= 0.0) return 0.0;
  return penalty.Step(g, std::max(h, 1e-12 * (1.0 + sq_norm)), w);
}

}  // namespace strads::svm
