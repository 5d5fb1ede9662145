// The logistic app: the sequential reference against independently computed KKT conditions, the
// engine against the reference, label conventions and bad input.
#include <cmath>
#include <tuple>

#include <catch2/catch.hpp>

#include "apps/builtin_apps.h"
#include "apps/logistic/logistic_reference.h"
#include "engine/job_spec.h"
#include "test/binary_test_util.h"

namespace strads {
namespace {

using namespace strads::testing;

double DLogistic(double y, double m) { return -y / (1.0 + std::exp(y * m)); }

double LambdaMax(const Dataset& d) {
  return Gradient(d, Eigen::VectorXd::Zero(d.x.cols()), DLogistic).cwiseAbs().maxCoeff();
}

logistic::LogisticReferenceResult Reference(const Dataset& d, double lambda) {
  logistic::LogisticReferenceOptions o;
  o.lambda = lambda;
  o.tolerance = 1e-10;
  auto r = logistic::SolveLogisticReference(d, o);
  REQUIRE(r.ok());
  REQUIRE(r->converged);
  return *r;
}

}  // namespace

TEST_CASE("logistic reference satisfies the KKT conditions, computed independently", "[logistic]") {
  const Dataset d = Load(WriteProblem("kkt.svm", false));
  const double lmax = LambdaMax(d);
  for (double frac : {0.02, 0.2}) {
    CAPTURE(frac);
    const double lambda = frac * lmax;
    const auto r = Reference(d, lambda);
    CHECK(r.lambda_max == Approx(lmax).epsilon(1e-12));
    const Eigen::VectorXd g = Gradient(d, r.w, DLogistic);
    int nonzeros = 0;
    for (int64_t j = 0; j < g.size(); ++j) {
      if (r.w[j] != 0) {
        ++nonzeros;
        CHECK(std::abs(g[j] + lambda * (r.w[j] > 0 ? 1 : -1)) <= 1e-9 * lmax);
      } else {
        CHECK(std::abs(g[j]) <= lambda + 1e-9 * lmax);
      }
    }
    CHECK(nonzeros > 0);
    // The objective, recomputed here.
    const Eigen::VectorXd m = d.x * r.w;
    const Eigen::VectorXd y = SignedLabels(d);
    double f = lambda * r.w.lpNorm<1>();
    for (int64_t i = 0; i < m.size(); ++i) f += std::log1p(std::exp(-y[i] * m[i]));
    CHECK(RelDiff(r.objective, f) < 1e-12);
    CHECK(r.training_accuracy > 0.8);
    CHECK(r.label_mapping == "±1");
  }
}

TEST_CASE(
    "logistic engine at D = 1 reaches the reference optimum within 1e-6 in both layouts on 1x1 "
    "and 2x2, with 1 and 4 passes a share",
    "[logistic][cluster][columns]") {
  const auto path = WriteProblem("engine.svm", false);
  const Dataset d = Load(path);
  const double lambda = 0.05 * LambdaMax(d);
  const auto ref = Reference(d, lambda);
  for (const auto& [schedulers, workers, layout, passes] : kOracleConfigs) {
    CAPTURE(schedulers, workers, proto::Layout_Name(layout), passes);
    EmbeddedCluster cluster(schedulers, workers, FastOptions());
    auto spec = BaseSpec("logistic", path, lambda);
    spec.mutable_dynamic()->set_layout(layout);
    spec.mutable_dynamic()->set_inner_passes(passes);
    auto job = RunJob(cluster, spec);
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(RelDiff(job.info.objective(), ref.objective) < 1e-6);
    CHECK(job.summary["training_accuracy"].get<double>() == Approx(ref.training_accuracy));
    CHECK(job.summary["label_mapping"] == "±1");
  }
}

TEST_CASE("logistic: 0/1 labels give the same optimum as ±1 and say so", "[logistic][cluster]") {
  const auto pm = WriteProblem("pm.svm", false);
  const auto zo = WriteProblem("zo.svm", true);
  const Dataset dpm = Load(pm), dzo = Load(zo);
  const double lambda = 0.05 * LambdaMax(dpm);
  const auto rpm = Reference(dpm, lambda);
  const auto rzo = Reference(dzo, lambda);
  CHECK(rzo.label_mapping == "0/1 -> -1/+1");
  CHECK((rpm.w - rzo.w).cwiseAbs().maxCoeff() == 0.0);
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto job = RunJob(cluster, BaseSpec("logistic", zo, lambda));
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK(RelDiff(job.info.objective(), rpm.objective) < 1e-6);
  CHECK(job.summary["label_mapping"] == "0/1 -> -1/+1");
}

TEST_CASE("logistic: a non-binary label fails the job naming the file and the row",
          "[logistic][cluster][faults]") {
  const auto path = WriteProblem("bad-label.svm", false, 2.0, 150);
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto job = RunJob(cluster, BaseSpec("logistic", path, 1.0));
  CHECK(job.info.state() == proto::JOB_FAILED);
  CHECK_THAT(job.info.error(),
             Catch::Contains(path + ": label 2 at row 150 is not binary (use ±1 or 0/1)"));
  auto r = logistic::SolveLogisticReference(Load(path), {.lambda = 1.0});
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("label 2 at row 150"));
  // 0 and -1 in one file is ambiguous.
  const auto mixed = WriteProblem("mixed.svm", false, 0.0, 3);
  auto m = logistic::SolveLogisticReference(Load(mixed), {.lambda = 1.0});
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.status().message(), Catch::Contains("both occur"));
}

TEST_CASE("logistic: negative lambda and --penalty l2 are refused at submit",
          "[logistic][cluster][faults]") {
  const auto path = WriteProblem("refused.svm", false);
  EmbeddedCluster cluster(1, 1, FastOptions());
  CHECK_THAT(SubmitError(cluster, BaseSpec("logistic", path, -1.0)),
             Catch::Contains("logistic: --lambda must be a finite number >= 0"));
  auto l2 = BaseSpec("logistic", path, 1.0);
  l2.mutable_logistic()->set_penalty("l2");
  CHECK_THAT(SubmitError(cluster, l2), Catch::Contains("only --penalty l1"));
  auto cli =
      ParseJobSpec(BuiltinApps(), "logistic", {"--data", path, "--lambda", "-0.5"}, {}, nullptr);
  REQUIRE_FALSE(cli.ok());
  CHECK_THAT(cli.status().message(), Catch::Contains("--lambda"));
}

}  // namespace strads
