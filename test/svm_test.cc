// The svm app (squared hinge, l1 and l2): the sequential reference against independently computed
// KKT conditions, the engine against the reference, label conventions and bad input.
#include <cmath>
#include <tuple>

#include <catch2/catch.hpp>

#include "apps/builtin_apps.h"
#include "apps/linear/svm_reference.h"
#include "engine/job_spec.h"
#include "test/binary_test_util.h"

namespace strads {
namespace {

using namespace strads::testing;

double DSquaredHinge(double y, double m) {
  const double a = 1.0 - y * m;
  return a > 0 ? -2.0 * y * a : 0.0;
}

double LambdaMax(const Dataset& d) {
  return Gradient(d, Eigen::VectorXd::Zero(d.x.cols()), DSquaredHinge).cwiseAbs().maxCoeff();
}

svm::SvmReferenceResult Reference(const Dataset& d, double lambda, svm::Penalty penalty) {
  svm::SvmReferenceOptions o;
  o.lambda = lambda;
  o.tolerance = 1e-10;
  o.penalty = penalty;
  auto r = svm::SolveSvmReference(d, o);
  REQUIRE(r.ok());
  REQUIRE(r->converged);
  return *r;
}

proto::JobSpec Spec(const std::string& path, double lambda, const std::string& penalty) {
  auto s = BaseSpec("svm", path, lambda);
  EditAppParams<proto::LinearModelSpec>(s, [&](auto& p) { p.set_penalty(penalty); });
  return s;
}

}  // namespace

TEST_CASE("svm reference satisfies the KKT conditions, computed independently", "[svm]") {
  const Dataset d = Load(WriteProblem("kkt.svm", false));
  const double lmax = LambdaMax(d);
  const Eigen::VectorXd y = SignedLabels(d);
  SECTION("l1") {
    for (double frac : {0.02, 0.2}) {
      CAPTURE(frac);
      const double lambda = frac * lmax;
      const auto r = Reference(d, lambda, svm::Penalty::kL1);
      CHECK(r.lambda_max == Approx(lmax).epsilon(1e-12));
      CHECK(CheckKkt(Gradient(d, r.w, DSquaredHinge), r.w, lambda, lmax) > 0);
      const Eigen::VectorXd m = d.x * r.w;
      double f = lambda * r.w.lpNorm<1>();
      for (int64_t i = 0; i < m.size(); ++i) f += std::pow(std::max(0.0, 1 - y[i] * m[i]), 2);
      CHECK(RelDiff(r.objective, f) < 1e-12);
      CHECK(r.training_accuracy > 0.8);
    }
  }
  SECTION("l2") {
    const double lambda = 0.5;
    const auto r = Reference(d, lambda, svm::Penalty::kL2);
    const Eigen::VectorXd g = Gradient(d, r.w, DSquaredHinge);
    CHECK((g + lambda * r.w).cwiseAbs().maxCoeff() <= 1e-9 * lmax);
    const Eigen::VectorXd m = d.x * r.w;
    double f = 0.5 * lambda * r.w.squaredNorm();
    for (int64_t i = 0; i < m.size(); ++i) f += std::pow(std::max(0.0, 1 - y[i] * m[i]), 2);
    CHECK(RelDiff(r.objective, f) < 1e-12);
  }
}

TEST_CASE(
    "svm engine at D = 1 reaches the reference optimum within 1e-6 (l1, l2 on 1x1, 2x2, 1 and 4 "
    "passes)",
    "[svm][cluster][columns]") {
  const auto path = WriteProblem("engine.svm", false);
  const Dataset d = Load(path);
  const double lmax = LambdaMax(d);
  for (auto [penalty, lambda] :
       {std::pair{svm::Penalty::kL1, 0.05 * lmax}, std::pair{svm::Penalty::kL2, 1.0}}) {
    const bool l2 = penalty == svm::Penalty::kL2;
    const auto ref = Reference(d, lambda, penalty);
    CAPTURE(l2);
    CheckEngineReachesReference(Spec(path, lambda, l2 ? "l2" : "l1"), ref.objective,
                                ref.training_accuracy);
  }
}

TEST_CASE("svm: 0/1 labels give the same optimum as ±1 and say so", "[svm][cluster]") {
  const auto pm = WriteProblem("pm.svm", false);
  const auto zo = WriteProblem("zo.svm", true);
  const Dataset dpm = Load(pm), dzo = Load(zo);
  const double lambda = 0.05 * LambdaMax(dpm);
  const auto rpm = Reference(dpm, lambda, svm::Penalty::kL1);
  const auto rzo = Reference(dzo, lambda, svm::Penalty::kL1);
  CHECK(rzo.label_mapping == "0/1 -> -1/+1");
  CHECK((rpm.w - rzo.w).cwiseAbs().maxCoeff() == 0.0);
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto job = RunJob(cluster, Spec(zo, lambda, ""));  // empty penalty: the default, l1
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK(RelDiff(job.info.objective(), rpm.objective) < 1e-6);
  CHECK(job.summary["label_mapping"] == "0/1 -> -1/+1");
}

TEST_CASE("svm: a non-binary label fails the job naming the file", "[svm][cluster][faults]") {
  const auto path = WriteProblem("bad-label.svm", false, 0.5, 7);
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto job = RunJob(cluster, Spec(path, 1.0, "l2"));
  CHECK(job.info.state() == proto::JOB_FAILED);
  CHECK_THAT(job.info.error(),
             Catch::Contains(path + ": label 0.5 at row 7 is not binary (use ±1 or 0/1)"));
}

TEST_CASE("svm: negative lambda and --loss hinge and unknown penalties are refused at submit",
          "[svm][cluster][faults]") {
  const auto path = WriteProblem("refused.svm", false);
  EmbeddedCluster cluster(1, 1, FastOptions());
  CHECK_THAT(SubmitError(cluster, Spec(path, -1.0, "l1")),
             Catch::Contains("svm: --lambda must be a finite number >= 0"));
  auto hinge = Spec(path, 1.0, "l1");
  EditAppParams<proto::LinearModelSpec>(hinge, [&](auto& p) { p.set_loss("hinge"); });
  CHECK(SubmitError(cluster, hinge) ==
        "svm: --loss hinge is not supported; use --loss squared-hinge");
  CHECK_THAT(SubmitError(cluster, Spec(path, 1.0, "l3")), Catch::Contains("l1 or l2"));
  // The same through the command-line parser.
  auto cli = ParseJobSpec(BuiltinApps(), "svm",
                          {"--data", path, "--lambda", "1", "--loss", "hinge"}, {}, nullptr);
  REQUIRE_FALSE(cli.ok());
  CHECK(cli.status().message() == "svm: --loss hinge is not supported; use --loss squared-hinge");
  auto ok = ParseJobSpec(BuiltinApps(), "svm", {"--data", path, "--lambda", "1", "--penalty", "l2"},
                         {}, nullptr);
  REQUIRE(ok.ok());
  const Result<proto::LinearModelSpec> linear = AppParams<proto::LinearModelSpec>(*ok);
  REQUIRE(linear.ok());
  CHECK(linear->penalty() == "l2");
  CHECK(linear->loss().empty());
  auto lasso = ParseJobSpec(BuiltinApps(), "lasso",
                            {"--data", path, "--lambda", "1", "--penalty", "l2"}, {}, nullptr);
  REQUIRE_FALSE(lasso.ok());
  CHECK_THAT(lasso.status().message(), Catch::Contains("lasso: only --penalty l1"));
}

}  // namespace strads
