// DynamicApp::EvaluateCheck: a scheduler's evaluation of its parameters at a check. Each app's
// override inlines its Violation and Penalty; it must give what they give a parameter at a time
// (the base class's loop), bit for bit, sums in the same order.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "apps/linear.pb.h"
#include "apps/linear/lasso_loss.h"
#include "apps/linear/linear_model_app.h"
#include "apps/linear/logistic_loss.h"
#include "apps/linear/svm_loss.h"
#include "test/app_params_edit.h"

namespace strads {
namespace {

using strads::testing::EditAppParams;

// Gradients around +-lambda and values with zeros, positives and negatives.
void RandomCheck(uint32_t seed, double lambda, std::vector<double>& gradients,
                 std::vector<double>& values) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2 * lambda, 2 * lambda);
  std::uniform_int_distribution<int> kind(0, 3);
  gradients.resize(1000);
  values.resize(1000);
  for (size_t i = 0; i < gradients.size(); ++i) {
    gradients[i] = u(rng);
    const int k = kind(rng);
    values[i] = k == 0 ? 0.0 : k == 1 ? std::abs(u(rng)) : k == 2 ? -std::abs(u(rng)) : u(rng);
  }
  gradients[0] = lambda;  // on the kink's edges
  gradients[1] = -lambda;
  values[0] = values[1] = 0.0;
}

void CheckMatchesPerParameter(const DynamicApp& app, const proto::JobSpec& spec, double lambda) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::vector<double> gradients, values;
    RandomCheck(seed, lambda, gradients, values);
    std::vector<double> batch = gradients, one_by_one = gradients;
    const CheckSums fast = app.EvaluateCheck(batch, values, spec);
    const CheckSums slow = app.DynamicApp::EvaluateCheck(one_by_one, values, spec);
    CHECK(batch == one_by_one);
    CHECK(fast.max_violation == slow.max_violation);
    CHECK(fast.max_abs_gradient == slow.max_abs_gradient);
    CHECK(fast.penalty == slow.penalty);
    CHECK(fast.nonzeros == slow.nonzeros);
    CHECK(fast.nonzeros > 0);
    CHECK(fast.max_violation > 0);
  }
}

TEST_CASE("EvaluateCheck: Lasso's, by hand", "[check_evaluation]") {
  LinearModelApp app(std::make_unique<LassoLoss>());
  proto::JobSpec spec;
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(1); });
  // The gradient here is x_j^T r's negative (the loss gradient): violation at beta = 0 is
  // max(0, |g| - lambda), at beta > 0 |g + lambda|.
  std::vector<double> gradients = {3, -0.5, -2}, values = {0, 0, 1};
  const CheckSums sums = app.EvaluateCheck(gradients, values, spec);
  CHECK(gradients == std::vector<double>{2, 0, 1});
  CHECK(sums.max_violation == 2);
  CHECK(sums.max_abs_gradient == 3);
  CHECK(sums.penalty == 1);
  CHECK(sums.nonzeros == 1);
}

TEST_CASE("a positive penalty: steps clipped at 0, a violation at 0 only for a negative slope",
          "[check_evaluation]") {
  for (const PenaltyKind kind : {PenaltyKind::kL1, PenaltyKind::kL2}) {
    CAPTURE(static_cast<int>(kind));
    const LinearPenalty free{1.0, kind, false}, positive{1.0, kind, true};
    // A step the unconstrained penalty takes below 0 stops at 0; one above 0 is the same.
    CHECK(free.Step(3.0, 2.0, 0.5) < 0);
    CHECK(positive.Step(3.0, 2.0, 0.5) == 0.0);
    CHECK(positive.Step(-4.0, 2.0, 0.5) == free.Step(-4.0, 2.0, 0.5));
    CHECK(positive.Step(-4.0, 2.0, 0.5) > 0);
    // At 0, a loss slope pushing upwards (negative gradient) past the penalty's is a violation;
    // one pushing downwards is not (where the unconstrained penalty's is).
    const double kink = kind == PenaltyKind::kL1 ? 1.0 : 0.0;
    CHECK(positive.Violation(-3.0, 0.0) == 3.0 - kink);
    CHECK(positive.Violation(3.0, 0.0) == 0.0);
    CHECK(free.Violation(3.0, 0.0) == 3.0 - kink);
    CHECK(positive.Violation(-0.5, 2.0) == free.Violation(-0.5, 2.0));
  }
  // The app's check takes the constraint from the spec.
  LinearModelApp app(std::make_unique<LassoLoss>());
  proto::JobSpec spec;
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) {
    p.set_lambda(1);
    p.set_positive(true);
  });
  std::vector<double> gradients = {3, -2.5, -2}, values = {0, 0, 1};
  const CheckSums sums = app.EvaluateCheck(gradients, values, spec);
  CHECK(gradients == std::vector<double>{0, 1.5, 1});
  CHECK(sums.max_violation == 1.5);
}

TEST_CASE("EvaluateCheck: every app's override is its per-parameter Violation and Penalty",
          "[check_evaluation]") {
  proto::JobSpec spec;
  SECTION("lasso") {
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(0.7); });
    CheckMatchesPerParameter(LinearModelApp(std::make_unique<LassoLoss>()), spec, 0.7);
  }
  SECTION("logistic") {
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(1.3); });
    CheckMatchesPerParameter(LinearModelApp(std::make_unique<LogisticLoss>()), spec, 1.3);
  }
  SECTION("svm, l1") {
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(0.4); });
    CheckMatchesPerParameter(LinearModelApp(std::make_unique<SvmLoss>()), spec, 0.4);
  }
  SECTION("svm, l2") {
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) {
      p.set_lambda(0.4);
      p.set_penalty("l2");
    });
    CheckMatchesPerParameter(LinearModelApp(std::make_unique<SvmLoss>()), spec, 0.4);
  }
  SECTION("logistic, l2, positive") {
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) {
      p.set_lambda(0.4);
      p.set_penalty("l2");
      p.set_positive(true);
    });
    CheckMatchesPerParameter(LinearModelApp(std::make_unique<LogisticLoss>()), spec, 0.4);
  }
}

// The coordinator's per-round sums (DynamicApp::PenaltySum, PenaltySlopeAlong): the linear app's
// overrides give what the per-parameter Penalty and PenaltySlope give, to rounding (the l1 sum
// takes lambda out of the sum).
void RoundSumsMatchPerParameter(const DynamicApp& app, const proto::JobSpec& spec, double lambda) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::vector<double> deltas, values;
    RandomCheck(seed, lambda, deltas, values);
    deltas[2] = 0.0;           // a parameter that did not move
    values[3] = 0.5 * lambda;  // one the step takes through zero at alpha = 1
    deltas[3] = -lambda;
    const double sum = app.PenaltySum(values, spec);
    CHECK(sum > 0);
    CHECK(sum == Approx(app.DynamicApp::PenaltySum(values, spec)).epsilon(1e-13));
    for (const double alpha : {0.0, 0.5, 1.0}) {
      for (const int side : {1, -1}) {
        CAPTURE(alpha, side);
        const double fast = app.PenaltySlopeAlong(values, deltas, alpha, side, spec);
        const double slow = app.DynamicApp::PenaltySlopeAlong(values, deltas, alpha, side, spec);
        CHECK(fast == slow);
      }
    }
  }
}

TEST_CASE("PenaltySum and PenaltySlopeAlong: the linear app's are its per-parameter ones",
          "[check_evaluation]") {
  proto::JobSpec spec;
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(0.4); });
  SECTION("l1") {
    RoundSumsMatchPerParameter(LinearModelApp(std::make_unique<LassoLoss>()), spec, 0.4);
  }
  SECTION("l2") {
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_penalty("l2"); });
    RoundSumsMatchPerParameter(LinearModelApp(std::make_unique<SvmLoss>()), spec, 0.4);
  }
}

TEST_CASE("PenaltySlopeAlong: l1 from either side of a kink, by hand", "[check_evaluation]") {
  LinearModelApp app(std::make_unique<LassoLoss>());
  proto::JobSpec spec;
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(2); });
  // One parameter from 1 along -2: at alpha = 0.5 it is at zero. From the right the penalty
  // grows at lambda |d| = 4; from the left (coming down to the kink) it falls at -lambda |d|.
  const std::vector<double> base = {1.0}, direction = {-2.0};
  CHECK(app.PenaltySlopeAlong(base, direction, 0.5, 1, spec) == 4.0);
  CHECK(app.PenaltySlopeAlong(base, direction, 0.5, -1, spec) == -4.0);
  CHECK(app.PenaltySlopeAlong(base, direction, 0.0, 1, spec) == -4.0);
}

}  // namespace
}  // namespace strads
