// A check's evaluation for the apps with the L1 penalty lambda |beta| and lasso::Violation's
// optimality conditions (Lasso, L1-regularised logistic regression): DynamicApp::EvaluateCheck.
#pragma once

#include <cmath>
#include <span>

#include "apps/linear/lasso_update.h"
#include "engine/dynamic_app.h"

namespace strads {

// `gradients` are the loss's (lasso::Violation takes x_j^T r, their negative).
inline CheckSums EvaluateL1Check(std::span<double> gradients, std::span<const double> values,
                                 double lambda) {
  return EvaluateCheckWith(
      gradients, values,
      [lambda](double g, double beta) { return lasso::Violation(-g, beta, lambda); },
      [lambda](double beta) { return lambda * std::abs(beta); });
}

}  // namespace strads
