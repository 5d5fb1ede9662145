#include "apps/mf/mf_reference.h"

#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "test/temp_dir.h"

#include "apps/mf/als_solve.h"
#include "apps/mf/array_mtx.h"
#include "apps/mf/ratings.h"

namespace strads::mf {
namespace {

namespace fs = std::filesystem;

using strads::testing::TempDir;

// A = W* H*^T observed on a random Omega of the given density (plus a "diagonal" so that no row
// or column is empty); W*, H* uniform in [0, 1), so A has exact rank `rank` on Omega, no noise.
Ratings Planted(uint64_t seed, uint32_t rows, uint32_t cols, int rank, double density) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::MatrixXd w(rows, rank), h(cols, rank);
  for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = unit(rng);
  for (Eigen::Index k = 0; k < h.size(); ++k) h.data()[k] = unit(rng);
  std::vector<uint32_t> ri, ci;
  std::vector<double> v;
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < cols; ++j) {
      const bool diagonal = j == i % cols || i == j % rows;
      if (diagonal || unit(rng) < density) {
        ri.push_back(i);
        ci.push_back(j);
        v.push_back(w.row(i).dot(h.row(j)));
      }
    }
  }
  Result<Ratings> r = MakeRatings(rows, cols, ri, ci, v);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Independent CCD++ on a dense observed mask: every coordinate update recomputes the residual it
// needs from scratch, R^_ij = a_ij - sum_{s != t} w_is h_js.
MfModel NaiveCcd(const Ratings& r, const MfOptions& o) {
  const auto m = static_cast<Eigen::Index>(r.rows), n = static_cast<Eigen::Index>(r.cols);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(m, n), mask = Eigen::MatrixXd::Zero(m, n);
  for (uint64_t e = 0; e < r.nnz(); ++e) {
    a(r.row[e], r.col[e]) = r.value[e];
    mask(r.row[e], r.col[e]) = 1.0;
  }
  MfModel model = InitialCcdModel(r, o);
  Eigen::MatrixXd& w = model.W;
  Eigen::MatrixXd& h = model.H;
  const int k = static_cast<int>(o.rank);
  auto rhat = [&](Eigen::Index i, Eigen::Index j, int t) {
    double p = 0.0;
    for (int s = 0; s < k; ++s) {
      if (s != t) p += w(i, s) * h(j, s);
    }
    return a(i, j) - p;
  };
  // Column t of `mine` (W, or H), each entry in turn, the other factor fixed: `cell(a, b)` is the
  // (row, column) of the matrix where mine's row a meets the other's row b.
  auto update = [&](Eigen::MatrixXd& mine, const Eigen::MatrixXd& other, int t, auto cell) {
    for (Eigen::Index a = 0; a < mine.rows(); ++a) {
      double num = 0, den = 0, ratings = 0;
      for (Eigen::Index b = 0; b < other.rows(); ++b) {
        const auto [i, j] = cell(a, b);
        if (mask(i, j) == 0) continue;
        num += rhat(i, j, t) * other(b, t);
        den += other(b, t) * other(b, t);
        ++ratings;
      }
      const bool weighted = o.regularization == Regularization::kWeighted;
      mine(a, t) = num / (den + o.lambda * (weighted ? ratings : 1.0));
    }
  };
  for (uint32_t it = 0; it < o.iterations; ++it) {
    for (int t = 0; t < k; ++t) {
      for (uint32_t inner = 0; inner < o.ccd_inner; ++inner) {
        update(w, h, t, [](Eigen::Index a, Eigen::Index b) { return std::pair{a, b}; });
        update(h, w, t, [](Eigen::Index a, Eigen::Index b) { return std::pair{b, a}; });
      }
    }
  }
  return model;
}

double RelDiff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1e-300, b.norm());
}

TEST_CASE("mf ratings: sorted entries with CSR and CSC views", "[mf]") {
  Result<Ratings> r = MakeRatings(3, 2, {2, 0, 1, 0}, {1, 1, 0, 0}, {4.0, 2.0, 3.0, 1.0});
  REQUIRE(r.ok());
  CHECK(r->row == std::vector<uint32_t>{0, 0, 1, 2});
  CHECK(r->col == std::vector<uint32_t>{0, 1, 0, 1});
  CHECK(r->value == std::vector<double>{1.0, 2.0, 3.0, 4.0});
  CHECK(r->row_start == std::vector<uint64_t>{0, 2, 3, 4});
  CHECK(r->col_start == std::vector<uint64_t>{0, 2, 4});
  CHECK(r->col_entry == std::vector<uint64_t>{0, 2, 1, 3});
}

TEST_CASE("mf ratings: loads a MatrixMarket file and a matching test file", "[mf]") {
  TempDir dir;
  const std::string train = dir.Write("a.mtx",
                                      "%%MatrixMarket matrix coordinate real general\n"
                                      "% comment\n"
                                      "2 3 4\n"
                                      "1 1 5\n2 2 3.5\n1 3 -1\n2 1 2\n");
  Result<Ratings> r = LoadRatings(train);
  REQUIRE(r.ok());
  CHECK(r->rows == 2);
  CHECK(r->cols == 3);
  CHECK(r->nnz() == 4);
  CHECK(r->value == std::vector<double>{5.0, -1.0, 2.0, 3.5});
  const std::string test =
      dir.Write("t.mtx", "%%MatrixMarket matrix coordinate integer general\n2 3 1\n2 3 4\n");
  Result<Ratings> t = LoadRatingsLike(test, r.value());
  REQUIRE(t.ok());
  CHECK(t->nnz() == 1);  // empty rows and columns are fine in a test set
}

TEST_CASE("mf ratings: errors name file and line", "[mf]") {
  TempDir dir;
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  auto error_of = [&](const std::string& name, const std::string& contents) {
    Result<Ratings> r = LoadRatings(dir.Write(name, contents));
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::kInvalidArgument);
    return r.status().message();
  };
  const std::string p = dir.Path("");
  CHECK(error_of("range.mtx", banner + "2 2 2\n1 1 1\n3 1 1\n") ==
        p + "range.mtx:4: entry (3, 1) is outside the 2 x 2 matrix");
  CHECK(error_of("zero.mtx", banner + "2 2 2\n0 1 1\n1 1 1\n").starts_with(p + "zero.mtx:3: "));
  CHECK(error_of("banner.mtx", "%%MatrixMarket matrix array real general\n2 2\n")
            .starts_with(p + "banner.mtx:1: "));
  CHECK(error_of("pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n")
            .starts_with(p + "pattern.mtx:1: "));
  CHECK(error_of("few.mtx", banner + "%\n2 2 3\n1 1 1\n2 2 1\n") ==
        p + "few.mtx:3: declares 3 entries but the file has 2");
  CHECK(error_of("many.mtx", banner + "2 2 1\n1 1 1\n2 2 1\n").starts_with(p + "many.mtx:4: "));
  CHECK(error_of("value.mtx", banner + "1 1 1\n1 1 x\n") == p + "value.mtx:3: bad value 'x'");
  CHECK(error_of("dup.mtx", banner + "2 2 3\n1 1 1\n2 2 1\n1 1 2\n") ==
        p + "dup.mtx:5: entry (1, 1) repeats (first on line 3)");
  CHECK(error_of("emptyrow.mtx", banner + "3 2 2\n1 1 1\n3 2 1\n") ==
        p + "emptyrow.mtx:2: row 2 of 3 has no ratings");
  CHECK(error_of("emptycol.mtx", banner + "1 2 1\n1 1 1\n") ==
        p + "emptycol.mtx:2: column 2 of 2 has no ratings");
  CHECK(LoadRatings(dir.Path("missing.mtx")).status().code() == StatusCode::kNotFound);

  Result<Ratings> train = LoadRatings(dir.Write("ok.mtx", banner + "1 1 1\n1 1 1\n"));
  REQUIRE(train.ok());
  Result<Ratings> test = LoadRatingsLike(dir.Write("t.mtx", banner + "2 1 0\n"), train.value());
  REQUIRE_FALSE(test.ok());
  CHECK(test.status().message() ==
        p + "t.mtx:2: declares a 2 x 1 matrix but the training matrix is 1 x 1");
}

TEST_CASE("mf: WriteArrayMtx round-trips exactly, column-major", "[mf]") {
  TempDir dir;
  Eigen::MatrixXd m(3, 2);
  m << 1.0 / 3.0, -2.5e-300, 7, 1e300, 0.1, -0.0;
  const std::string path = dir.Path("W.mtx");
  REQUIRE(WriteArrayMtx(m, path).ok());
  std::ifstream in(path);
  std::string banner, size, first, second;
  std::getline(in, banner);
  std::getline(in, size);
  std::getline(in, first);
  std::getline(in, second);
  CHECK(banner == "%%MatrixMarket matrix array real general");
  CHECK(size == "3 2");
  CHECK(std::stod(second) == 7.0);  // column-major: m(1, 0) comes second
  Result<Eigen::MatrixXd> back = ReadArrayMtx(path);
  REQUIRE(back.ok());
  CHECK(back.value() == m);

  Eigen::MatrixXd empty(0, 4);
  REQUIRE(WriteArrayMtx(empty, dir.Path("E.mtx")).ok());
  Result<Eigen::MatrixXd> e = ReadArrayMtx(dir.Path("E.mtx"));
  REQUIRE(e.ok());
  CHECK(e->rows() == 0);
  CHECK(e->cols() == 4);

  CHECK(WriteArrayMtx(m, dir.Path("no/such/dir/W.mtx")).code() == StatusCode::kIoError);
  Result<Eigen::MatrixXd> bad =
      ReadArrayMtx(dir.Write("bad.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == dir.Path("bad.mtx") + ":2: declares 2 values but the file has 1");
}

TEST_CASE("mf: the initial model is a pure function of the seed", "[mf]") {
  const Ratings r = Planted(1, 20, 15, 2, 0.3);
  MfOptions o;
  o.rank = 4;
  const MfModel a = InitialCcdModel(r, o), b = InitialCcdModel(r, o);
  CHECK(a.W.isZero());
  CHECK(a.H == b.H);
  CHECK(a.H.minCoeff() >= 0.0);
  CHECK(a.H.maxCoeff() < 0.5);
  CHECK(a.H(3, 2) == 0.5 * InitialUniform(o.seed, Factor::kH, 3, 2));
  // SGD's factors: uniform in [0, sqrt(s / k)), s the ratings' standard deviation.
  const MfModel s = InitialSgdModel(r, o);
  const double scale = std::sqrt(RatingScale(r) / 4);
  CHECK(s.H(3, 2) == scale * InitialUniform(o.seed, Factor::kH, 3, 2));
  CHECK(s.W(7, 1) == scale * InitialUniform(o.seed, Factor::kW, 7, 1));
  o.seed = 2;
  CHECK(InitialCcdModel(r, o).H != a.H);
}

TEST_CASE("mf ccd: objective never increases, trace matches from-scratch F", "[mf]") {
  const Ratings r = Planted(2, 40, 30, 4, 0.3);
  for (Regularization form : {Regularization::kWeighted, Regularization::kPlain}) {
    for (uint32_t inner : {1u, 3u}) {
      // About the same shrinkage in both forms: rows and columns have about 10 ratings.
      const double lambda = form == Regularization::kWeighted ? 0.05 : 0.5;
      MfOptions o{.rank = 6, .lambda = lambda, .iterations = 15, .ccd_inner = inner};
      o.regularization = form;
      std::vector<double> trace;
      Result<MfResult> res = SolveCcdReference(r, o, [&](const MfTracePoint& p) {
        CHECK(p.iteration == trace.size());
        CHECK(std::abs(p.objective - MfObjective(r, *p.model, o.lambda, o.regularization)) <=
              1e-10 * p.objective);
        trace.push_back(p.objective);
      });
      REQUIRE(res.ok());
      REQUIRE(trace.size() == 16);
      for (size_t t = 1; t < trace.size(); ++t) {
        INFO(RegularizationName(form) << " inner " << inner << " iteration " << t);
        CHECK(trace[t] <= trace[t - 1] * (1 + 1e-12));
      }
      CHECK(trace.back() < 0.5 * trace.front());
      CHECK(res->objective == Approx(trace.back()).epsilon(1e-10));
    }
  }
}

TEST_CASE("mf ccd: equals a naive from-scratch implementation to 1e-9 after 3 iterations", "[mf]") {
  const Ratings r = Planted(3, 25, 18, 3, 0.4);
  for (Regularization form : {Regularization::kWeighted, Regularization::kPlain}) {
    for (uint32_t inner : {1u, 2u}) {
      MfOptions o{.rank = 4, .lambda = 0.3, .iterations = 3, .ccd_inner = inner};
      o.regularization = form;
      Result<MfResult> res = SolveCcdReference(r, o);
      REQUIRE(res.ok());
      const MfModel naive = NaiveCcd(r, o);
      INFO(RegularizationName(form) << " inner " << inner);
      CHECK(RelDiff(res->model.W, naive.W) <= 1e-9);
      CHECK(RelDiff(res->model.H, naive.H) <= 1e-9);
      const double f = MfObjective(r, naive, o.lambda, o.regularization);
      CHECK(std::abs(res->objective - f) <= 1e-9 * f);
    }
  }
}

TEST_CASE("mf: the weighted penalty counts every row's and column's ratings", "[mf]") {
  // Row 0 has 2 ratings, row 1 one; column 0 has 2, column 1 one.
  Result<Ratings> r = MakeRatings(2, 2, {0, 0, 1}, {0, 1, 0}, {1.0, 2.0, 3.0});
  REQUIRE(r.ok());
  MfModel m;
  m.W = Eigen::MatrixXd{{1.0}, {2.0}};
  m.H = Eigen::MatrixXd{{3.0}, {0.5}};
  // Squared error: (1 - 3)^2 + (2 - 0.5)^2 + (3 - 6)^2 = 15.25.
  CHECK(MfObjective(*r, m, 0.1, Regularization::kPlain) ==
        Approx(15.25 + 0.1 * (1 + 4 + 9 + 0.25)).epsilon(1e-15));
  CHECK(MfObjective(*r, m, 0.1, Regularization::kWeighted) ==
        Approx(15.25 + 0.1 * (2 * 1 + 1 * 4 + 2 * 9 + 1 * 0.25)).epsilon(1e-15));
  CHECK(ParseRegularization("").value() == Regularization::kWeighted);
  CHECK(ParseRegularization("plain").value() == Regularization::kPlain);
  CHECK(ParseRegularization("l2").status().message() ==
        "unknown regularization 'l2' (weighted or plain)");
}

TEST_CASE("mf sgd: lowers either objective", "[mf]") {
  const Ratings r = Planted(8, 50, 40, 3, 0.3);
  for (Regularization form : {Regularization::kWeighted, Regularization::kPlain}) {
    const double lambda = form == Regularization::kWeighted ? 0.005 : 0.05;
    MfOptions o{.rank = 3, .lambda = lambda, .iterations = 20, .learning_rate = 0.1, .decay = 0};
    o.regularization = form;
    std::vector<double> trace;
    Result<MfResult> res =
        SolveSgdReference(r, o, [&](const MfTracePoint& p) { trace.push_back(p.objective); });
    REQUIRE(res.ok());
    INFO(RegularizationName(form) << ": " << trace.front() << " -> " << trace.back());
    CHECK(trace.back() < 0.1 * trace.front());
    CHECK(res->objective == MfObjective(r, res->model, o.lambda, o.regularization));
  }
}

TEST_CASE("mf als: objective never increases, with many CG steps it is exact ALS", "[mf]") {
  const Ratings r = Planted(9, 40, 30, 3, 0.3);
  for (Regularization form : {Regularization::kWeighted, Regularization::kPlain}) {
    const double lambda = form == Regularization::kWeighted ? 0.05 : 0.5;
    MfOptions o{.rank = 4, .lambda = lambda, .iterations = 10};
    o.regularization = form;
    std::vector<double> trace;
    Result<MfResult> res = SolveAlsReference(r, o, [&](const MfTracePoint& p) {
      CHECK(std::abs(p.objective - MfObjective(r, *p.model, o.lambda, o.regularization)) <=
            1e-12 * p.objective);
      trace.push_back(p.objective);
    });
    REQUIRE(res.ok());
    for (size_t t = 1; t < trace.size(); ++t) {
      INFO(RegularizationName(form) << " iteration " << t);
      CHECK(trace[t] <= trace[t - 1] * (1 + 1e-12));
    }
    CHECK(trace.back() < 0.2 * trace.front());
    // k = 4 CG steps solve each column's 4 x 4 system: every column then satisfies its normal
    // equations, and one more exact column solve changes nothing.
    o.cg_steps = 4;
    o.iterations = 3;
    Result<MfResult> exact = SolveAlsReference(r, o);
    REQUIRE(exact.ok());
    AlsNormalEquations equations(4);
    for (uint64_t j = 0; j < r.cols; ++j) {
      equations.Clear();
      for (uint64_t n = r.col_start[j]; n < r.col_start[j + 1]; ++n) {
        const uint64_t e = r.col_entry[n];
        equations.Add(exact->model.W.row(r.row[e]).eval().data(), r.value[e]);
      }
      Eigen::VectorXd h(4);
      equations.Solve(lambda * PenaltyWeight(form, r.col_start[j + 1] - r.col_start[j]), h.data());
      INFO("column " << j);
      CHECK((h - exact->model.H.row(j).transpose()).norm() <= 1e-8 * h.norm());
    }
  }
  MfOptions bad{.rank = 2};
  bad.cg_steps = 0;
  CHECK(SolveAlsReference(r, bad).status().code() == StatusCode::kInvalidArgument);
}

// Planted ratings with one value negative, one 0, and an empty last row: implicit feedback's
// every case (preference 1 or 0, confidence from |a|, a row without entries).
Ratings ImplicitCases() {
  const Ratings p = Planted(11, 12, 9, 2, 0.3);
  std::vector<double> value = p.value;
  value[0] = -0.7;
  value[1] = 0.0;
  Result<Ratings> r = MakeRatings(p.rows + 1, p.cols, p.row, p.col, value, EmptyLines::kAllow);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// The dense confidence and preference matrices of implicit feedback (c = 1, p = 0 off Omega).
std::pair<Eigen::MatrixXd, Eigen::MatrixXd> DenseImplicit(const Ratings& r, double alpha) {
  Eigen::MatrixXd c =
      Eigen::MatrixXd::Ones(static_cast<Eigen::Index>(r.rows), static_cast<Eigen::Index>(r.cols));
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(c.rows(), c.cols());
  for (uint64_t e = 0; e < r.nnz(); ++e) {
    c(r.row[e], r.col[e]) = 1.0 + alpha * std::abs(r.value[e]);
    p(r.row[e], r.col[e]) = r.value[e] > 0 ? 1.0 : 0.0;
  }
  return {c, p};
}

TEST_CASE("mf als implicit: F is the sum over every pair, and never increases", "[mf]") {
  const Ratings r = ImplicitCases();
  const double alpha = 3.0;
  const auto [c, p] = DenseImplicit(r, alpha);
  for (Regularization form : {Regularization::kWeighted, Regularization::kPlain}) {
    INFO(RegularizationName(form));
    MfOptions o{.rank = 3, .lambda = 0.2, .iterations = 8};
    o.regularization = form;
    o.implicit = true;
    o.alpha = alpha;
    const MfModel model = InitialSgdModel(r, o);  // both factors nonzero
    const Eigen::MatrixXd y = model.W * model.H.transpose();
    double dense = (c.array() * (p - y).array().square()).sum();
    for (uint64_t i = 0; i < r.rows; ++i) {
      dense += o.lambda * PenaltyWeight(form, r.row_start[i + 1] - r.row_start[i]) *
               model.W.row(static_cast<Eigen::Index>(i)).squaredNorm();
    }
    for (uint64_t j = 0; j < r.cols; ++j) {
      dense += o.lambda * PenaltyWeight(form, r.col_start[j + 1] - r.col_start[j]) *
               model.H.row(static_cast<Eigen::Index>(j)).squaredNorm();
    }
    CHECK(std::abs(ImplicitObjective(r, model, o.lambda, form, alpha) - dense) <= 1e-12 * dense);

    std::vector<double> trace;
    Result<MfResult> res = SolveAlsReference(r, o, [&](const MfTracePoint& t) {
      CHECK(std::abs(t.objective - ImplicitObjective(r, *t.model, o.lambda, form, alpha)) <=
            1e-12 * t.objective);
      trace.push_back(t.objective);
    });
    REQUIRE(res.ok());
    for (size_t t = 1; t < trace.size(); ++t) {
      INFO("iteration " << t);
      CHECK(trace[t] <= trace[t - 1] * (1 + 1e-12));
    }
    CHECK(trace.back() < 0.5 * trace.front());
    CHECK(res->model.W.row(static_cast<Eigen::Index>(r.rows - 1)).norm() == 0.0);
  }
  MfOptions bad{.rank = 2};
  bad.implicit = true;
  bad.alpha = -1;
  CHECK(SolveAlsReference(r, bad).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("mf als implicit: rows and columns solve their dense normal equations", "[mf]") {
  const Ratings r = ImplicitCases();
  const double alpha = 3.0, lambda = 0.2;
  const auto [c, p] = DenseImplicit(r, alpha);
  // The dense solve over every pair: (sum_b c_ab x_b x_b^T + reg I)^{-1} sum_b c_ab p_ab x_b for
  // row a of the confidences `ca` and preferences `pa` against the other factor x.
  auto solve = [&](const Eigen::VectorXd& ca, const Eigen::VectorXd& pa, const Eigen::MatrixXd& x,
                   double reg) -> Eigen::VectorXd {
    Eigen::MatrixXd a = x.transpose() * ca.asDiagonal() * x;
    a.diagonal().array() += reg;
    return a.ldlt().solve(x.transpose() * (ca.array() * pa.array()).matrix());
  };
  for (Regularization form : {Regularization::kWeighted, Regularization::kPlain}) {
    INFO(RegularizationName(form));
    MfOptions o{.rank = 3, .lambda = lambda, .iterations = 1};
    o.regularization = form;
    o.implicit = true;
    o.alpha = alpha;
    o.cg_steps = 3;  // = k: CG solves each column's 3 x 3 system
    const MfModel initial = InitialCcdModel(r, o);
    Result<MfResult> one = SolveAlsReference(r, o);
    REQUIRE(one.ok());
    for (uint64_t i = 0; i + 1 < r.rows; ++i) {  // the last row is empty
      const auto row = static_cast<Eigen::Index>(i);
      const Eigen::VectorXd w =
          solve(c.row(row).transpose(), p.row(row).transpose(), initial.H,
                lambda * PenaltyWeight(form, r.row_start[i + 1] - r.row_start[i]));
      INFO("row " << i);
      CHECK((w - one->model.W.row(row).transpose()).norm() <= 1e-10 * w.norm());
    }
    for (uint64_t j = 0; j < r.cols; ++j) {
      const auto col = static_cast<Eigen::Index>(j);
      const Eigen::VectorXd h =
          solve(c.col(col), p.col(col), one->model.W,
                lambda * PenaltyWeight(form, r.col_start[j + 1] - r.col_start[j]));
      INFO("column " << j);
      CHECK((h - one->model.H.row(col).transpose()).norm() <= 1e-8 * h.norm());
    }
  }
}

TEST_CASE("mf ccd: recovers a planted low-rank matrix", "[mf]") {
  const Ratings r = Planted(4, 80, 60, 3, 0.4);
  MfOptions o{.rank = 3, .lambda = 1e-6, .iterations = 100, .ccd_inner = 3};
  Result<MfResult> res = SolveCcdReference(r, o);
  REQUIRE(res.ok());
  INFO("train rmse " << res->train_rmse);
  CHECK(res->train_rmse < 1e-3);
}

TEST_CASE("mf sgd: recovers a planted low-rank matrix, deterministically", "[mf]") {
  const Ratings r = Planted(5, 80, 60, 3, 0.4);
  MfOptions o{.rank = 3, .lambda = 1e-6, .iterations = 300, .learning_rate = 0.1, .decay = 0};
  std::vector<double> trace;
  Result<MfResult> res =
      SolveSgdReference(r, o, [&](const MfTracePoint& p) { trace.push_back(p.train_rmse); });
  REQUIRE(res.ok());
  INFO("train rmse " << res->train_rmse << " after epoch 1: " << trace[1]);
  CHECK(res->train_rmse < 1e-2);
  CHECK(res->objective == MfObjective(r, res->model, o.lambda, o.regularization));
  Result<MfResult> again = SolveSgdReference(r, o);
  REQUIRE(again.ok());
  CHECK(again->model.W == res->model.W);
  CHECK(again->model.H == res->model.H);
}

TEST_CASE("mf: options are validated, divergence is reported", "[mf]") {
  const Ratings r = Planted(6, 10, 10, 2, 0.5);
  MfOptions o;
  o.rank = 0;
  CHECK(SolveCcdReference(r, o).status().code() == StatusCode::kInvalidArgument);
  CHECK(SolveSgdReference(r, o).status().code() == StatusCode::kInvalidArgument);
  o = MfOptions();
  o.lambda = -1;
  CHECK(SolveCcdReference(r, o).status().code() == StatusCode::kInvalidArgument);
  o = MfOptions();
  o.ccd_inner = 0;
  CHECK(SolveCcdReference(r, o).status().code() == StatusCode::kInvalidArgument);
  o = MfOptions();
  o.learning_rate = 0;
  CHECK(SolveSgdReference(r, o).status().code() == StatusCode::kInvalidArgument);
  o = MfOptions();
  o.decay = std::nan("");
  CHECK(SolveSgdReference(r, o).status().code() == StatusCode::kInvalidArgument);
  o = MfOptions();
  o.learning_rate = 1e3;
  o.iterations = 50;
  CHECK(SolveSgdReference(r, o).status().code() == StatusCode::kFailedPrecondition);
}

// Not run by default: `mf_reference_test "[.bench]"` prints time per iteration at 100k ratings.
TEST_CASE("mf bench: time per iteration on 100k ratings", "[.bench]") {
  const Ratings r = Planted(7, 2000, 1000, 10, 0.05);
  MfOptions o{.rank = 10, .iterations = 5};
  Result<MfResult> ccd = SolveCcdReference(r, o);
  REQUIRE(ccd.ok());
  Result<MfResult> sgd = SolveSgdReference(r, o);
  REQUIRE(sgd.ok());
  WARN(r.nnz() << " ratings, k = 10: CCD++ " << 1e3 * ccd->seconds / o.iterations
               << " ms/iteration, SGD " << 1e3 * sgd->seconds / o.iterations << " ms/epoch");
}

}  // namespace
}  // namespace strads::mf
