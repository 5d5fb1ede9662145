// The modified Huber loss for classification (scikit-learn's SGDClassifier(loss="modified_huber")),
// with the l1 or l2 penalty; labels +/-1 (0/1 mapped 0 -> -1). With z = y m, m = x^T w:
//   l(y, m) = max(0, 1 - z)^2  for z >= -1,    -4 z  for z < -1
// (a squared hinge that turns linear where it reaches slope 4, so mislabelled rows pull less).
// l <= (1 - z)^2 everywhere, with equality and d2 = 2 on the active rows (-1 <= z < 1), d2 = 0
// elsewhere, and dl/dm 2-Lipschitz: svm's generalised Newton step and its safeguard apply
// unchanged (GeneralisedNewtonLoss, svm_loss.h).
// Pure; thread-safe.
#pragma once

#include "apps/linear/margin_model.h"
#include "apps/linear/svm_loss.h"

namespace strads {
namespace huber {

struct ModifiedHuberLoss {
  static margin::RowTerms Eval(double y, double m) {
    const double z = y * m;
    margin::RowTerms r;
    if (z >= 1.0) return r;
    if (z >= -1.0) {
      r.loss = (1.0 - z) * (1.0 - z);
      r.d1 = -2.0 * y * (1.0 - z);
      r.d2 = 2.0;
    } else {
      r.loss = -4.0 * z;
      r.d1 = -4.0 * y;
    }
    return r;
  }
  static margin::RowTerms Derivatives(double y, double m) { return Eval(y, m); }  // l is cheap
  static double Slope(double y, double m) { return Eval(y, m).d1; }
};

}  // namespace huber

class HuberLoss final : public GeneralisedNewtonLoss<huber::ModifiedHuberLoss> {
 public:
  std::string name() const override { return "huber"; }
  std::string summary() const override {
    return "modified Huber loss (classification) + lambda ||w||_1 or lambda/2 ||w||^2";
  }
};

}  // namespace strads
