// The Lasso coordinate update and its optimality measure, shared by the engine and the reference.
//
// Objective (exactly as loaded, no hidden scaling or intercept):
//   F(beta) = 1/2 ||y - X beta||^2 + lambda ||beta||_1.
// With r = y - X beta (beta_j's own contribution included) and g_j = x_j^T r, the exact minimiser
// of F over beta_j alone is S(g_j + ||x_j||^2 beta_j, lambda) / ||x_j||^2, S the soft threshold.
// Pure functions; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>

namespace strads::lasso {

inline double SoftThreshold(double z, double t) {
  if (z > t) return z - t;
  if (z < -t) return z + t;
  return 0.0;
}

// New value of beta_j from g = x_j^T r, sq_norm = ||x_j||^2 and the current beta_j.
// An all-zero column stays at 0.
inline double CoordinateUpdate(double g, double sq_norm, double beta, double lambda) {
  if (sq_norm <= 0.0) return 0.0;
  return SoftThreshold(g + sq_norm * beta, lambda) / sq_norm;
}

// Distance from 0 to the subdifferential of F with respect to beta_j (0 exactly at the optimum):
// |g - lambda sign(beta)| when beta != 0, max(0, |g| - lambda) when beta == 0.
inline double Violation(double g, double beta, double lambda) {
  if (beta > 0) return std::abs(g - lambda);
  if (beta < 0) return std::abs(g + lambda);
  return std::max(0.0, std::abs(g) - lambda);
}

// The right derivative of lambda |beta| in the direction d.
inline double L1Slope(double beta, double d, double lambda) {
  if (beta > 0) return lambda * d;
  if (beta < 0) return -lambda * d;
  return lambda * std::abs(d);
}

}  // namespace strads::lasso
