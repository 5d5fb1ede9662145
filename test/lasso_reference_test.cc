#include "apps/linear/lasso_reference.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

namespace strads::lasso {
namespace {

// y = X beta_true + noise with a sparse beta_true; X sparse with the given density.
Dataset RandomProblem(uint64_t seed, int64_t rows, int64_t cols, double density) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(rows, cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      if (unit(rng) < density) x(i, j) = normal(rng) * (1 + j % 3);  // unequal column scales
    }
  }
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(cols);
  for (int64_t j = 0; j < cols; j += 4) beta[j] = normal(rng) * 2;
  Dataset d;
  d.x = x.sparseView();
  d.y = x * beta;
  for (int64_t i = 0; i < rows; ++i) d.y[i] += 0.1 * normal(rng);
  d.total_rows = rows;
  return d;
}

double LambdaMax(const Dataset& d) {
  return (Eigen::MatrixXd(d.x).transpose() * d.y).cwiseAbs().maxCoeff();
}

// Independent oracle: FISTA (accelerated proximal gradient) on the dense problem, with restart.
Eigen::VectorXd Fista(const Dataset& d, double lambda, int iterations) {
  const Eigen::MatrixXd x(d.x);
  const double lipschitz =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(x.transpose() * x).eigenvalues().maxCoeff();
  const double step = 1.0 / lipschitz;
  auto objective = [&](const Eigen::VectorXd& b) {
    return 0.5 * (d.y - x * b).squaredNorm() + lambda * b.lpNorm<1>();
  };
  auto prox = [&](const Eigen::VectorXd& v) {
    return Eigen::VectorXd(v.unaryExpr(
        [&](double z) { return std::copysign(std::max(0.0, std::abs(z) - step * lambda), z); }));
  };
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(x.cols());
  Eigen::VectorXd z = beta;
  double t = 1.0;
  double last = objective(beta);
  for (int k = 0; k < iterations; ++k) {
    const Eigen::VectorXd next = prox(z - step * (x.transpose() * (x * z - d.y)));
    const double f = objective(next);
    if (f > last) {  // adaptive restart keeps it monotone
      t = 1.0;
      z = beta;
      continue;
    }
    const double t_next = (1 + std::sqrt(1 + 4 * t * t)) / 2;
    z = next + ((t - 1) / t_next) * (next - beta);
    beta = next;
    t = t_next;
    last = f;
  }
  return beta;
}

TEST_CASE("SolveLassoReference result satisfies the KKT conditions to tolerance",
          "[lasso_reference]") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Dataset d = RandomProblem(seed, 40 + seed * 5, 25 + seed * 7, 0.3);
    const double lmax = LambdaMax(d);
    for (const double frac : {0.5, 0.1, 0.01}) {
      LassoReferenceOptions o;
      o.lambda = frac * lmax;
      o.tolerance = 1e-8;
      const auto res = SolveLassoReference(d, o);
      REQUIRE(res.ok());
      REQUIRE(res->converged);
      CHECK(res->lambda_max == Approx(lmax).epsilon(1e-12));
      CHECK(res->violation <= o.tolerance);
      // Gradient recomputed densely here, KKT checked without the library's Violation().
      const Eigen::VectorXd g = Eigen::MatrixXd(d.x).transpose() * (d.y - d.x * res->beta);
      const double slack = o.tolerance * lmax * (1 + 1e-9);
      for (int64_t j = 0; j < g.size(); ++j) {
        INFO("seed " << seed << " lambda/lmax " << frac << " j " << j);
        if (res->beta[j] == 0.0) {
          REQUIRE(std::abs(g[j]) <= o.lambda + slack);
        } else {
          REQUIRE(std::abs(g[j] - o.lambda * (res->beta[j] > 0 ? 1 : -1)) <= slack);
        }
      }
    }
  }
}

TEST_CASE("SolveLassoReference matches an independent FISTA solver to 1e-6 relative objective",
          "[lasso_reference]") {
  struct Shape {
    int64_t rows, cols;
    double density;
  };
  // Tall, square-ish and wide (more features than rows) problems.
  const Shape shapes[] = {{60, 20, 0.4}, {40, 40, 0.25}, {30, 80, 0.2}};
  uint64_t seed = 100;
  for (const Shape& s : shapes) {
    const Dataset d = RandomProblem(++seed, s.rows, s.cols, s.density);
    const double lmax = LambdaMax(d);
    for (const double frac : {0.3, 0.05}) {
      const double lambda = frac * lmax;
      LassoReferenceOptions o;
      o.lambda = lambda;
      o.tolerance = 1e-9;
      const auto res = SolveLassoReference(d, o);
      REQUIRE(res.ok());
      REQUIRE(res->converged);
      const double f_cd = LassoObjective(d, res->beta, lambda);
      const double f_fista = LassoObjective(d, Fista(d, lambda, 20000), lambda);
      INFO("rows " << s.rows << " cols " << s.cols << " lambda/lmax " << frac << " cd " << f_cd
                   << " fista " << f_fista);
      CHECK(std::abs(f_cd - f_fista) <= 1e-6 * std::abs(f_fista));
      CHECK(res->objective == Approx(f_cd).epsilon(1e-12));
    }
  }
}

TEST_CASE("SolveLassoReference gives beta = 0 when lambda >= lambda_max", "[lasso_reference]") {
  const Dataset d = RandomProblem(7, 30, 20, 0.5);
  const double lmax = LambdaMax(d);
  for (const double lambda : {lmax, 2 * lmax, 1e9}) {
    LassoReferenceOptions o;
    o.lambda = lambda;
    const auto res = SolveLassoReference(d, o);
    REQUIRE(res.ok());
    CHECK(res->converged);
    CHECK(res->beta.isZero(0.0));
    CHECK(res->violation == 0.0);
    CHECK(res->objective == Approx(0.5 * d.y.squaredNorm()));
  }
}

TEST_CASE("SolveLassoReference returns beta = 0 at once when X^T y = 0", "[lasso_reference]") {
  Dataset d;
  d.x = Eigen::MatrixXd::Zero(5, 3).sparseView();
  d.y = Eigen::VectorXd::Ones(5);
  LassoReferenceOptions o;
  o.lambda = 0.0;
  const auto res = SolveLassoReference(d, o);
  REQUIRE(res.ok());
  CHECK(res->converged);
  CHECK(res->lambda_max == 0.0);
  CHECK(res->beta.isZero(0.0));
  CHECK(res->objective == Approx(2.5));
}

TEST_CASE("SolveLassoReference rejects a negative or NaN lambda and mismatched shapes",
          "[lasso_reference]") {
  const Dataset d = RandomProblem(3, 10, 5, 0.5);
  LassoReferenceOptions o;
  o.lambda = -1e-3;
  auto res = SolveLassoReference(d, o);
  REQUIRE_FALSE(res.ok());
  CHECK(res.status().code() == StatusCode::kInvalidArgument);
  o.lambda = std::numeric_limits<double>::quiet_NaN();
  CHECK(SolveLassoReference(d, o).status().code() == StatusCode::kInvalidArgument);
  o.lambda = 1.0;
  o.tolerance = -1;
  CHECK(SolveLassoReference(d, o).status().code() == StatusCode::kInvalidArgument);
  Dataset bad = d;
  bad.y.conservativeResize(9);
  o.tolerance = 1e-6;
  CHECK(SolveLassoReference(bad, o).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("SolveLassoReference stops at max_sweeps and max_updates and reports the exact state",
          "[lasso_reference]") {
  const Dataset d = RandomProblem(11, 50, 60, 0.3);
  LassoReferenceOptions o;
  o.lambda = 0.01 * LambdaMax(d);
  o.tolerance = 1e-12;
  o.max_sweeps = 1;
  auto res = SolveLassoReference(d, o);
  REQUIRE(res.ok());
  CHECK_FALSE(res->converged);
  CHECK(res->sweeps == 1);
  CHECK(res->violation > o.tolerance);
  CHECK(res->objective == Approx(LassoObjective(d, res->beta, o.lambda)).epsilon(1e-12));

  o.max_sweeps = 0;
  o.max_updates = 37;
  res = SolveLassoReference(d, o);
  REQUIRE(res.ok());
  CHECK_FALSE(res->converged);
  CHECK(res->updates == 37);
  CHECK(res->sweeps == 0);
  CHECK(res->objective == Approx(LassoObjective(d, res->beta, o.lambda)).epsilon(1e-12));
}

TEST_CASE("SolveLassoReference reports a non-increasing objective after every full sweep",
          "[lasso_reference]") {
  const Dataset d = RandomProblem(12, 40, 30, 0.3);
  LassoReferenceOptions o;
  o.lambda = 0.05 * LambdaMax(d);
  std::vector<TracePoint> trace;
  const auto res = SolveLassoReference(d, o, [&](const TracePoint& p) { trace.push_back(p); });
  REQUIRE(res.ok());
  REQUIRE(res->converged);
  REQUIRE(trace.size() == res->sweeps);
  REQUIRE(!trace.empty());
  for (size_t i = 1; i < trace.size(); ++i) {
    CHECK(trace[i].objective <= trace[i - 1].objective * (1 + 1e-12));
    CHECK(trace[i].updates > trace[i - 1].updates);
    CHECK(trace[i].seconds >= trace[i - 1].seconds);
  }
  CHECK(trace.back().objective == Approx(res->objective).epsilon(1e-12));
}

TEST_CASE("SolveLassoReference gives the same answer on an uncompressed matrix",
          "[lasso_reference]") {
  Dataset d = RandomProblem(13, 30, 20, 0.3);
  LassoReferenceOptions o;
  o.lambda = 0.1 * LambdaMax(d);
  o.tolerance = 1e-10;
  const auto compressed = SolveLassoReference(d, o);
  d.x.uncompress();
  REQUIRE_FALSE(d.x.isCompressed());
  const auto uncompressed = SolveLassoReference(d, o);
  REQUIRE(compressed.ok());
  REQUIRE(uncompressed.ok());
  CHECK((compressed->beta - uncompressed->beta).norm() == 0.0);
}

TEST_CASE("LassoObjective is half the squared residual plus the l1 penalty", "[lasso_reference]") {
  Dataset d;
  Eigen::MatrixXd x(2, 2);
  x << 1, 2, 3, 4;
  d.x = x.sparseView();
  d.y = Eigen::Vector2d(1, 1);
  const Eigen::Vector2d beta(1, -1);  // r = y - X beta = (2, 2)
  CHECK(LassoObjective(d, beta, 0.5) == Approx(0.5 * 8 + 0.5 * 2));
  CHECK(std::isnan(LassoObjective(d, Eigen::Vector3d(1, 1, 1), 0.5)));
}

}  // namespace
}  // namespace strads::lasso
