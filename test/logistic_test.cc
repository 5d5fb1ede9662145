// The logistic app: the sequential reference against independently computed KKT conditions, the
// engine against the reference, label conventions and bad input.
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "apps/builtin_apps.h"
#include "apps/linear/log_of_product.h"
#include "apps/linear/logistic_reference.h"
#include "apps/linear/logistic_update.h"
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

// log(1 + exp(-y m)) in long double, row by row: the sums below are checked against it.
long double ExactLoss(double y, double m) {
  const long double t = static_cast<long double>(y) * m;
  return std::max(-t, 0.0L) + std::log1p(std::exp(-std::fabs(t)));
}

}  // namespace

TEST_CASE("LogOfProduct: a sum of logs over many factors at the range's ends, no overflow",
          "[logistic]") {
  logistic::LogOfProduct up, down, mixed;
  for (int i = 0; i < 100000; ++i) {
    up.Add(2.0);
    down.Add(0.5);
    mixed.Add(i % 3 == 0 ? 0.5 : 1.9);
  }
  CHECK(up.Sum() == Approx(100000 * std::log(2.0)).epsilon(1e-13));
  CHECK(down.Sum() == Approx(-100000 * std::log(2.0)).epsilon(1e-13));
  const double exact = 33334 * std::log(0.5) + 66666 * std::log(1.9);
  CHECK(mixed.Sum() == Approx(exact).epsilon(1e-13));
  CHECK(logistic::LogOfProduct().Sum() == 0.0);
}

TEST_CASE("logistic loss sums by logs of products match log1p row by row, margins of every size",
          "[logistic]") {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 4.0);
  std::uniform_int_distribution<int> coin(0, 1);
  std::vector<double> y, m0, m1;
  for (double extreme : {0.0, 1e-300, -1e-9, 36.0, -36.0, 745.0, -745.0, 1e6, -1e6}) {
    y.push_back(1.0), m0.push_back(extreme), m1.push_back(extreme / 2);
    y.push_back(-1.0), m0.push_back(extreme / 3), m1.push_back(-extreme);
  }
  for (int i = 0; i < 20000; ++i) {
    y.push_back(coin(rng) ? 1.0 : -1.0);
    m0.push_back(normal(rng));
    m1.push_back(m0.back() + (i % 4 == 0 ? 0.0 : 0.1 * normal(rng)));
  }
  // The loss of every row: positive terms, so relative to the total (~1.4e6, from the 1e6
  // margins) a double sum is good to ~sqrt(rows) ulps.
  logistic::LogisticLoss::Sum sum;
  long double exact_sum = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    sum.Add(y[i], m0[i]);
    exact_sum += ExactLoss(y[i], m0[i]);
  }
  CAPTURE(static_cast<double>(exact_sum));
  CHECK(std::abs(sum.Total() - static_cast<double>(exact_sum)) <= 1e-13 * double(exact_sum));
  // The change, given the terms at m0 as a worker holds them (only d1 is read): over the extreme
  // rows, to a few ulps of the terms' size; over the others (a change of order 1 from terms of
  // order 1), to ~rows x 1e-16.
  auto change_error = [&](size_t begin, size_t end, long double& scale) {
    logistic::LogisticLoss::ChangeSum change;
    long double exact = 0;
    scale = 0;
    for (size_t i = begin; i < end; ++i) {
      change.Add(y[i], m0[i], logistic::LogisticLoss::Derivatives(y[i], m0[i]), m1[i]);
      exact += ExactLoss(y[i], m1[i]) - ExactLoss(y[i], m0[i]);
      scale += ExactLoss(y[i], m1[i]) + ExactLoss(y[i], m0[i]);
    }
    return std::abs(change.Total() - static_cast<double>(exact));
  };
  long double scale = 0;
  const double extremes_error = change_error(0, 18, scale);
  CHECK(extremes_error <= 1e-15 * double(scale));
  CHECK(change_error(18, y.size(), scale) <= 1e-11);
}

TEST_CASE("logistic reference satisfies the KKT conditions, computed independently", "[logistic]") {
  const Dataset d = Load(WriteProblem("kkt.svm", false));
  const double lmax = LambdaMax(d);
  for (double frac : {0.02, 0.2}) {
    CAPTURE(frac);
    const double lambda = frac * lmax;
    const auto r = Reference(d, lambda);
    CHECK(r.lambda_max == Approx(lmax).epsilon(1e-12));
    CHECK(CheckKkt(Gradient(d, r.w, DLogistic), r.w, lambda, lmax) > 0);
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
    "logistic engine at D = 1 reaches the reference optimum within 1e-6 on 1x1 and 2x2, 1 and 4 "
    "passes",
    "[logistic][cluster][columns]") {
  const auto path = WriteProblem("engine.svm", false);
  const Dataset d = Load(path);
  const double lambda = 0.05 * LambdaMax(d);
  const auto ref = Reference(d, lambda);
  CheckEngineReachesReference(BaseSpec("logistic", path, lambda), ref.objective,
                              ref.training_accuracy);
}

TEST_CASE(
    "logistic with chords sized to long columns reaches the optimum, summary.json names the size",
    "[logistic][cluster][columns]") {
  // 80,000 dense rows x 6 features, 8 passes, 1 worker: ceil(2.5e6 / (8 x 80,000)) = 4 of the 6
  // features a chord (engine/chord_size.h), where the spec's cap is 4096.
  const auto path = (TestDir() / "long-columns.svm").string();
  {
    std::mt19937_64 rng(5);
    std::normal_distribution<double> normal;
    const double truth[6] = {1.5, -2.0, 0.0, 0.7, 0.0, 0.0};
    std::ofstream out(path);
    for (int i = 0; i < 80000; ++i) {
      std::ostringstream line;
      double score = 0.5 * normal(rng);
      for (int j = 0; j < 6; ++j) {
        const double v = std::round(normal(rng) * 1000) / 1000;
        score += truth[j] * v;
        line << ' ' << j + 1 << ':' << v;
      }
      out << (score > 0 ? 1 : -1) << line.str() << '\n';
    }
    REQUIRE(out.good());
  }
  const Dataset d = Load(path);
  const double lambda = 0.05 * LambdaMax(d);
  const auto ref = Reference(d, lambda);
  EmbeddedCluster cluster(1, 1, FastOptions());
  auto spec = BaseSpec("logistic", path, lambda);
  spec.mutable_dynamic()->set_chord_size(4096);
  spec.mutable_dynamic()->set_candidates(8192);
  spec.mutable_dynamic()->set_inner_passes(8);
  spec.mutable_dynamic()->set_chord_size_adapts(true);
  auto job = RunJob(cluster, spec);
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK(job.info.converged());
  CHECK(RelDiff(job.info.objective(), ref.objective) < 1e-6);
  const auto& engine = job.summary.at("engine");
  CHECK(engine.at("chord_size").get<uint32_t>() == 4);
  CHECK(engine.at("candidates").get<uint32_t>() == 8);
  CHECK(engine.at("chord_size_cap").get<uint32_t>() == 4096);
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

TEST_CASE("logistic: negative lambda and a penalty other than l1 or l2 are refused at submit",
          "[logistic][cluster][faults]") {
  const auto path = WriteProblem("refused.svm", false);
  EmbeddedCluster cluster(1, 1, FastOptions());
  CHECK_THAT(SubmitError(cluster, BaseSpec("logistic", path, -1.0)),
             Catch::Contains("logistic: --lambda must be a finite number >= 0"));
  auto l3 = BaseSpec("logistic", path, 1.0);
  EditAppParams<proto::LinearModelSpec>(l3, [&](auto& p) { p.set_penalty("elasticnet"); });
  CHECK_THAT(SubmitError(cluster, l3),
             Catch::Contains("logistic: --penalty must be l1 or l2, got 'elasticnet'"));
  auto cli =
      ParseJobSpec(BuiltinApps(), "logistic", {"--data", path, "--lambda", "-0.5"}, {}, nullptr);
  REQUIRE_FALSE(cli.ok());
  CHECK_THAT(cli.status().message(), Catch::Contains("--lambda"));
}

}  // namespace strads
