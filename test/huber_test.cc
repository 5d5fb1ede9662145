// The huber app (modified Huber loss, l1 and l2; apps/linear/huber_loss.h): the sequential
// reference (margin::SolveReference over the loss) against independently computed KKT conditions,
// and the engine against the reference.
#include <cmath>

#include <catch2/catch.hpp>

#include "apps/linear/huber_loss.h"
#include "apps/linear/margin_reference.h"
#include "test/binary_test_util.h"

namespace strads {
namespace {

using namespace strads::testing;

// The loss and its derivative in z = y m, written out independently of huber_loss.h.
double Huber(double y, double m) {
  const double z = y * m;
  return z < -1 ? -4 * z : std::pow(std::max(0.0, 1 - z), 2);
}
double DHuber(double y, double m) {
  const double z = y * m;
  return z < -1 ? -4 * y : -2 * y * std::max(0.0, 1 - z);
}

double LambdaMax(const Dataset& d) {
  return Gradient(d, Eigen::VectorXd::Zero(d.x.cols()), DHuber).cwiseAbs().maxCoeff();
}

margin::ReferenceResult Reference(const Dataset& d, double lambda, PenaltyKind penalty) {
  margin::ReferenceOptions o;
  o.lambda = lambda;
  o.tolerance = 1e-10;
  auto r = margin::SolveReference<huber::ModifiedHuberLoss>("huber", d, o,
                                                            LinearPenalty{lambda, penalty}, {});
  REQUIRE(r.ok());
  REQUIRE(r->converged);
  return *r;
}

// The rows at `w` with y m < -1 (the loss's linear piece) and with -1 <= y m < 1 (its quadratic).
std::pair<int, int> LinearAndQuadraticRows(const Dataset& d, const Eigen::VectorXd& w) {
  const Eigen::VectorXd y = SignedLabels(d);
  const Eigen::VectorXd m = d.x * w;
  int linear = 0, quadratic = 0;
  for (int64_t i = 0; i < m.size(); ++i) {
    linear += y[i] * m[i] < -1;
    quadratic += y[i] * m[i] >= -1 && y[i] * m[i] < 1;
  }
  return {linear, quadratic};
}

}  // namespace

TEST_CASE("huber reference satisfies the KKT conditions, computed independently", "[huber]") {
  const Dataset d = Load(WriteProblem("kkt.huber", false, 0, 0, 600, 24));
  const double lmax = LambdaMax(d);
  const Eigen::VectorXd y = SignedLabels(d);
  for (auto [penalty, lambda] :
       {std::pair{PenaltyKind::kL1, 0.02 * lmax}, std::pair{PenaltyKind::kL2, 0.5}}) {
    const bool l2 = penalty == PenaltyKind::kL2;
    CAPTURE(l2);
    const auto r = Reference(d, lambda, penalty);
    CHECK(r.lambda_max == Approx(lmax).epsilon(1e-12));
    // Both pieces of the loss are in play at the optimum, so both are checked.
    const auto [linear, quadratic] = LinearAndQuadraticRows(d, r.w);
    CHECK(linear > 0);
    CHECK(quadratic > 0);
    (void)CheckKkt(Gradient(d, r.w, DHuber), r.w, lambda, lmax, l2);
    const Eigen::VectorXd m = d.x * r.w;
    double f = l2 ? 0.5 * lambda * r.w.squaredNorm() : lambda * r.w.lpNorm<1>();
    for (int64_t i = 0; i < m.size(); ++i) f += Huber(y[i], m[i]);
    CHECK(RelDiff(r.objective, f) < 1e-12);
  }
}

TEST_CASE("huber engine at D = 1 reaches the reference optimum within 1e-6: l1, l2, 1x1, 2x2",
          "[huber][cluster][columns]") {
  const auto path = WriteProblem("engine.huber", false, 0, 0, 600, 24);
  const Dataset d = Load(path);
  const double lmax = LambdaMax(d);
  for (auto [penalty, lambda] :
       {std::pair{PenaltyKind::kL1, 0.02 * lmax}, std::pair{PenaltyKind::kL2, 0.5}}) {
    const bool l2 = penalty == PenaltyKind::kL2;
    const auto ref = Reference(d, lambda, penalty);
    CAPTURE(l2);
    auto spec = BaseSpec("huber", path, lambda);
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_penalty(l2 ? "l2" : "l1"); });
    CheckEngineReachesReference(spec, ref.objective, ref.training_accuracy);
  }
}

}  // namespace strads
