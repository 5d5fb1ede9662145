// The column layout's step length: StepLength on convex functions with known minimisers, and the
// coordinator's replica of the shared vector (SharedReplica) with a real app's loss slope.
#include <cmath>

#include <catch2/catch.hpp>

#include "apps/linear/lasso_loss.h"
#include "apps/linear/linear_model_app.h"
#include "apps/linear/logistic_loss.h"
#include "engine/shared_replica.h"
#include "engine/step_length.h"

namespace strads {
namespace {

// phi(a) = c a^2 / 2 - g a + lambda |b + a d| (one L1 kink at a = -b/d), one-sided slopes.
OneSidedSlope Quadratic(double c, double g, double lambda = 0, double b = 0, double d = 0) {
  return [=](double a, int side) {
    const double v = b + a * d;
    double pen = 0;
    if (d != 0) pen = v > 0 ? lambda * d : v < 0 ? -lambda * d : side * lambda * std::abs(d);
    return c * a - g + pen;
  };
}

}  // namespace

TEST_CASE("StepLength is 1 while phi still decreases at 1, and 0 if it never decreases",
          "[columns]") {
  CHECK(StepLength(Quadratic(1.0, 2.0)) == 1.0);   // minimiser 2, beyond the interval
  CHECK(StepLength(Quadratic(1.0, 1.0)) == 1.0);   // minimiser exactly 1
  CHECK(StepLength(Quadratic(1.0, -1.0)) == 0.0);  // increasing from 0
  CHECK(StepLength(Quadratic(0.0, 0.0)) == 1.0);   // flat: every step is as good; taken whole
}

TEST_CASE("StepLength finds the interior minimiser of a smooth and of a kinked phi", "[columns]") {
  // Two workers' identical steps sum to twice the right one: the minimiser is 1/2.
  CHECK(StepLength(Quadratic(4.0, 2.0)) == Approx(0.5).margin(1e-6));
  CHECK(StepLength(Quadratic(3.0, 1.0)) == Approx(1.0 / 3).margin(1e-6));
  // Kink at a = 0.25 (b = 0.25, d = -1: the parameter reaches 0 there); the smooth part alone
  // would go to 0.8, but past the kink the penalty's slope is +lambda, which stops it there:
  // phi'(0.25-) = 0.25 - 0.8 - 1 < 0 and phi'(0.25+) = 0.25 - 0.8 + 1 > 0.
  CHECK(StepLength(Quadratic(1.0, 0.8, 1.0, 0.25, -1.0)) == Approx(0.25).margin(1e-6));
  // Few evaluations: the two ends, then one where the slope is linear (Lasso between kinks), and a
  // handful on a smooth one (logistic-like: phi'(a) = tanh(3a - 1)).
  int calls = 0;
  const OneSidedSlope linear = Quadratic(4.0, 2.0);
  CHECK(StepLength([&](double a, int side) { return ++calls, linear(a, side); }) == 0.5);
  CHECK(calls == 3);
  calls = 0;
  const double smooth = StepLength([&](double a, int) { return ++calls, std::tanh(3 * a - 1); });
  CHECK(smooth == Approx(1.0 / 3).margin(1e-6));
  CHECK(calls <= 12);
  // The result is never past the minimiser: phi decreases on [0, alpha].
  const double a = StepLength(Quadratic(4.0, 2.0));
  CHECK(a <= 0.5);
}

TEST_CASE("SharedReplica refuses a worker export of the wrong size", "[columns]") {
  SharedReplica replica;
  proto::SharedRows rows;
  rows.add_values(1.0);
  rows.add_values(2.0);
  rows.add_labels(1.0);
  CHECK_FALSE(replica.Reset(rows, 2).ok());  // one label short
  rows.add_labels(-1.0);
  CHECK_FALSE(replica.Reset(rows, 3).ok());
  REQUIRE(replica.Reset(rows, 2).ok());
  CHECK(replica.size() == 2);
}

TEST_CASE("SharedReplica's loss slope is the derivative of the app's loss along the change",
          "[columns]") {
  proto::VectorDelta change;  // sparse: rows 0 and 2
  change.set_size(3);
  change.add_indices(0);
  change.add_values(0.5);
  change.add_indices(2);
  change.add_values(-2.0);
  proto::SharedRows rows;
  for (double v : {1.0, 3.0, -1.0}) rows.add_values(v);
  for (double y : {1.0, -1.0, 1.0}) rows.add_labels(y);
  SharedReplica replica;
  REQUIRE(replica.Reset(rows, 3).ok());

  SECTION("lasso: d/da of sum (r + a c)^2 / 2 = sum (r + a c) c") {
    LinearModelApp lasso(std::make_unique<LassoLoss>());
    const double a = 0.3;
    CHECK(replica.LossSlope(change, a, lasso) ==
          Approx((1.0 + a * 0.5) * 0.5 + (-1.0 + a * -2.0) * -2.0));
  }
  SECTION("logistic: matches a central difference of sum log(1 + exp(-y m))") {
    LinearModelApp logistic(std::make_unique<LogisticLoss>());
    auto loss = [&](double a) {
      return std::log1p(std::exp(-(1.0 + a * 0.5))) + std::log1p(std::exp(-(-1.0 - a * 2.0)));
    };
    const double a = 0.7, h = 1e-6;
    CHECK(replica.LossSlope(change, a, logistic) ==
          Approx((loss(a + h) - loss(a - h)) / (2 * h)).epsilon(1e-6));
  }
  SECTION("Apply adds the change, as every worker's ApplyShared does") {
    LinearModelApp lasso(std::make_unique<LassoLoss>());
    replica.Apply(change);
    // The slope at 0 after applying equals the slope at 1 before.
    SharedReplica before;
    REQUIRE(before.Reset(rows, 3).ok());
    CHECK(replica.LossSlope(change, 0.0, lasso) == before.LossSlope(change, 1.0, lasso));
  }
}

TEST_CASE("a centred replica's loss is that of the values less their mean, and its slope too",
          "[columns]") {
  proto::VectorDelta change;  // sparse: rows 0 and 2
  change.set_size(3);
  change.add_indices(0);
  change.add_values(0.5);
  change.add_indices(2);
  change.add_values(-2.0);
  proto::SharedRows rows;
  for (double v : {1.0, 3.0, -1.0}) rows.add_values(v);
  for (double y : {1.0, -1.0, 1.0}) rows.add_labels(y);
  SharedReplica replica;
  REQUIRE(replica.Reset(rows, 3, /*centred=*/true).ok());
  LinearModelApp lasso(std::make_unique<LassoLoss>());
  // 1/2 ||r - mean(r)||^2 along r + a c.
  auto loss = [](double a) {
    const double r[] = {1.0 + a * 0.5, 3.0, -1.0 - a * 2.0};
    const double mean = (r[0] + r[1] + r[2]) / 3;
    double sum = 0;
    for (double v : r) sum += 0.5 * (v - mean) * (v - mean);
    return sum;
  };
  CHECK(replica.Loss(lasso) == Approx(loss(0)).epsilon(1e-14));
  CHECK(replica.Mean() == Approx(1.0));
  const double a = 0.4, h = 1e-6;
  CHECK(replica.LossSlope(change, a, lasso) ==
        Approx((loss(a + h) - loss(a - h)) / (2 * h)).epsilon(1e-8));
  replica.Apply(change);
  CHECK(replica.Loss(lasso) == Approx(loss(1)).epsilon(1e-14));
  CHECK(replica.LossSlope(change, 0.0, lasso) ==
        Approx((loss(1 + h) - loss(1 - h)) / (2 * h)).epsilon(1e-8));
}

}  // namespace strads
