// Tests of the synthetic Lasso generator: determinism, the correlation structure it promises, and
// that what it writes loads back to what it generated.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "test/status_testing.h"
#include "test/temp_dir.h"

#include "common/data_loader.h"
#include "tools/synthetic_lasso.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

using strads::testing::ReadFile;
using strads::testing::TempDir;

SyntheticLassoProblem MustGenerate(const SyntheticLassoOptions& o) {
  return testing::Must(GenerateSyntheticLasso(o));
}

double Correlation(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const Eigen::ArrayXd ca = a.array() - a.mean();
  const Eigen::ArrayXd cb = b.array() - b.mean();
  return (ca * cb).sum() / std::sqrt((ca * ca).sum() * (cb * cb).sum());
}

// Mean correlation over pairs of distinct features in the same group and in different groups.
std::pair<double, double> MeanCorrelations(const SparseColMatrix& x, uint32_t group_size) {
  const Eigen::MatrixXd dense(x);
  double within = 0, across = 0;
  int n_within = 0, n_across = 0;
  for (int64_t i = 0; i < dense.cols(); ++i) {
    for (int64_t j = i + 1; j < dense.cols(); ++j) {
      const double c = Correlation(dense.col(i), dense.col(j));
      if (i / group_size == j / group_size) {
        within += c;
        ++n_within;
      } else {
        across += c;
        ++n_across;
      }
    }
  }
  return {within / n_within, across / n_across};
}

TEST_CASE("synthetic lasso: the same seed writes the same file, another seed another file",
          "[synthetic]") {
  TempDir dir;
  SyntheticLassoOptions o{.rows = 50, .features = 300, .density = 0.3, .true_nonzeros = 7};
  REQUIRE(WriteSyntheticLasso(o, dir.Path("a.svm")).ok());
  REQUIRE(WriteSyntheticLasso(o, dir.Path("b.svm")).ok());
  o.seed = 2;
  REQUIRE(WriteSyntheticLasso(o, dir.Path("c.svm")).ok());
  const std::string a = ReadFile(dir.Path("a.svm"));
  CHECK_FALSE(a.empty());
  CHECK(a == ReadFile(dir.Path("b.svm")));
  CHECK(a != ReadFile(dir.Path("c.svm")));
}

TEST_CASE(
    "synthetic lasso: features of a group have the requested correlation, of different "
    "groups none",
    "[synthetic]") {
  SyntheticLassoOptions o{.rows = 4000, .features = 40, .group_size = 10, .true_nonzeros = 4};
  for (double c : {0.9, 0.5}) {
    for (double density : {1.0, 0.25}) {
      o.correlation = c;
      o.density = density;
      INFO("correlation " << c << ", density " << density);
      SyntheticLassoProblem p = MustGenerate(o);
      const auto [within, across] = MeanCorrelations(p.data.x, o.group_size);
      CHECK(within == Approx(c).margin(0.03));
      CHECK(across == Approx(0.0).margin(0.02));
    }
  }
}

TEST_CASE("synthetic lasso: dense columns are standardised, sparse ones have the density asked",
          "[synthetic]") {
  SyntheticLassoOptions o{.rows = 500, .features = 60, .true_nonzeros = 3};
  SyntheticLassoProblem dense = MustGenerate(o);
  CHECK(dense.data.x.nonZeros() == 500 * 60);
  const Eigen::MatrixXd x(dense.data.x);
  for (int64_t j = 0; j < x.cols(); ++j) {
    CHECK(x.col(j).mean() == Approx(0.0).margin(1e-12));
    CHECK(x.col(j).squaredNorm() / 500 == Approx(1.0).epsilon(1e-12));
  }
  o.rows = 2000;
  o.density = 0.1;
  SyntheticLassoProblem sparse = MustGenerate(o);
  const double fraction =
      static_cast<double>(sparse.data.x.nonZeros()) / static_cast<double>(o.rows * o.features);
  CHECK(fraction == Approx(0.1).margin(0.02));
}

TEST_CASE(
    "synthetic lasso: beta_true has the nonzeros asked, in [1, 2] in size, in distinct "
    "groups",
    "[synthetic]") {
  SyntheticLassoOptions o{.rows = 20, .features = 1000, .group_size = 10, .true_nonzeros = 60};
  SyntheticLassoProblem p = MustGenerate(o);
  REQUIRE(p.beta_true.size() == 60);
  std::set<uint64_t> groups;
  int positive = 0;
  for (size_t k = 0; k < p.beta_true.size(); ++k) {
    const auto [j, beta] = p.beta_true[k];
    CHECK(j < o.features);
    CHECK(std::abs(beta) >= 1.0);
    CHECK(std::abs(beta) <= 2.0);
    if (k > 0) CHECK(p.beta_true[k - 1].first < j);  // sorted, distinct
    groups.insert(j / o.group_size);
    positive += beta > 0;
  }
  CHECK(groups.size() == 60);
  CHECK(positive > 10);
  CHECK(positive < 50);

  // More nonzeros than groups: every group gets one before any gets a second.
  o.features = 25;
  o.group_size = 10;  // groups of 10, 10, 5
  o.true_nonzeros = 25;
  SyntheticLassoProblem all = MustGenerate(o);
  CHECK(all.beta_true.size() == 25);
  o.true_nonzeros = 3;
  SyntheticLassoProblem three = MustGenerate(o);
  std::set<uint64_t> three_groups;
  for (const auto& [j, beta] : three.beta_true) three_groups.insert(j / 10);
  CHECK(three_groups.size() == 3);
}

TEST_CASE("synthetic lasso: without noise y is exactly X beta_true", "[synthetic]") {
  SyntheticLassoOptions o{
      .rows = 100, .features = 200, .density = 0.5, .true_nonzeros = 10, .noise = 0.0};
  SyntheticLassoProblem p = MustGenerate(o);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(200);
  for (const auto& [j, b] : p.beta_true) beta[static_cast<int64_t>(j)] = b;
  const Eigen::VectorXd xb = p.data.x * beta;
  CHECK((p.data.y - xb).cwiseAbs().maxCoeff() < 1e-12);

  o.noise = 0.5;
  SyntheticLassoProblem noisy = MustGenerate(o);
  const double residual_sd = std::sqrt((noisy.data.y - xb).squaredNorm() / 100);
  CHECK(residual_sd == Approx(0.5).margin(0.15));
}

TEST_CASE("synthetic lasso: a written problem loads back exactly, whole and in shards",
          "[synthetic]") {
  TempDir dir;
  SyntheticLassoOptions o{.rows = 97, .features = 400, .density = 0.2, .true_nonzeros = 12};
  SyntheticLassoProblem p = MustGenerate(o);
  const std::string path = dir.Path("p.svm");
  REQUIRE(WriteLibsvmFile(p.data, path).ok());
  const DataSource src{path, "", ""};

  Result<Dataset> full = LoadDataset(src, {});
  REQUIRE(full.ok());
  CHECK(full->total_rows == 97);
  CHECK(full->first_row == 0);
  CHECK(full->x.cols() <= 400);
  const Eigen::MatrixXd expected(p.data.x);
  CHECK(Eigen::MatrixXd(full->x) == expected.leftCols(full->x.cols()));
  CHECK(full->y == p.data.y);

  Result<uint64_t> total = CountRows(src);
  REQUIRE(total.ok());
  REQUIRE(*total == 97);
  for (uint32_t rank = 0; rank < 4; ++rank) {
    const RowRange range = ShardRows(*total, rank, 4);
    Result<Dataset> shard = LoadDataset(src, range);
    REQUIRE(shard.ok());
    CHECK(shard->first_row == range.begin);
    CHECK(shard->total_rows == 97);
    const auto n = static_cast<int64_t>(range.end - range.begin);
    REQUIRE(shard->x.rows() == n);
    CHECK(Eigen::MatrixXd(shard->x) ==
          expected.block(static_cast<int64_t>(range.begin), 0, n, shard->x.cols()));
    CHECK(shard->y == p.data.y.segment(static_cast<int64_t>(range.begin), n));
  }
}

TEST_CASE("synthetic lasso: the truth file lists feature_id TAB value, 1-based, by id",
          "[synthetic]") {
  TempDir dir;
  SyntheticLassoOptions o{.rows = 10, .features = 50, .true_nonzeros = 4};
  SyntheticLassoProblem p = MustGenerate(o);
  const std::string path = dir.Path("truth.tsv");
  REQUIRE(WriteTruthFile(p, path).ok());
  std::istringstream in(ReadFile(path));
  std::string line;
  size_t k = 0;
  while (std::getline(in, line)) {
    REQUIRE(k < p.beta_true.size());
    const size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    CHECK(std::stoull(line.substr(0, tab)) == p.beta_true[k].first + 1);
    CHECK(std::stod(line.substr(tab + 1)) == p.beta_true[k].second);
    ++k;
  }
  CHECK(k == 4);
}

TEST_CASE("synthetic lasso: out-of-range options are InvalidArgument", "[synthetic]") {
  auto invalid = [](auto change) {
    SyntheticLassoOptions o{.rows = 10, .features = 20, .true_nonzeros = 5};
    change(o);
    Status st = ValidateSyntheticLassoOptions(o);
    CHECK(st.code() == StatusCode::kInvalidArgument);
    CHECK_FALSE(GenerateSyntheticLasso(o).ok());
  };
  invalid([](SyntheticLassoOptions& o) { o.rows = 0; });
  invalid([](SyntheticLassoOptions& o) { o.rows = kMaxIndex + 1; });  // past the 32-bit indices
  // About 5,000,000,000 entries: refused before any is generated (this would otherwise take
  // ~80 GB and minutes).
  invalid([](SyntheticLassoOptions& o) {
    o.rows = 100000;
    o.features = 100000;
    o.density = 0.5;
  });
  invalid([](SyntheticLassoOptions& o) { o.features = 0; });
  invalid([](SyntheticLassoOptions& o) { o.group_size = 0; });
  invalid([](SyntheticLassoOptions& o) { o.correlation = 1.5; });
  invalid([](SyntheticLassoOptions& o) { o.correlation = -0.1; });
  invalid([](SyntheticLassoOptions& o) { o.density = 0.0; });
  invalid([](SyntheticLassoOptions& o) { o.density = 1.01; });
  invalid([](SyntheticLassoOptions& o) { o.density = std::nan(""); });
  invalid([](SyntheticLassoOptions& o) { o.true_nonzeros = 21; });
  invalid([](SyntheticLassoOptions& o) { o.noise = -1; });
  TempDir dir;
  SyntheticLassoOptions ok{.rows = 5, .features = 5, .true_nonzeros = 1};
  Status unwritable = WriteSyntheticLasso(ok, dir.Path("no_such_dir/x.svm"));
  CHECK(unwritable.code() == StatusCode::kIoError);
  CHECK(unwritable.message().find("no_such_dir/x.svm") != std::string::npos);
}

TEST_CASE(
    "synthetic lasso: --shuffle permutes columns and truth ids alike, keeping y and every column",
    "[synthetic]") {
  SyntheticLassoOptions o{
      .rows = 50, .features = 200, .group_size = 5, .density = 0.3, .true_nonzeros = 8};
  const SyntheticLassoProblem plain = MustGenerate(o);
  o.shuffle_columns = true;
  const SyntheticLassoProblem shuffled = MustGenerate(o);
  CHECK(shuffled.data.y == plain.data.y);
  CHECK(shuffled.data.x.nonZeros() == plain.data.x.nonZeros());
  // Every column of the plain problem is exactly one column of the shuffled one; find where.
  std::vector<int64_t> where(o.features, -1);
  int moved = 0;
  for (int64_t j = 0; j < plain.data.x.cols(); ++j) {
    const Eigen::VectorXd col = plain.data.x.col(j);
    for (int64_t k = 0; k < shuffled.data.x.cols(); ++k) {
      if (Eigen::VectorXd(shuffled.data.x.col(k)) == col) where[static_cast<size_t>(j)] = k;
    }
    REQUIRE(where[static_cast<size_t>(j)] >= 0);
    moved += where[static_cast<size_t>(j)] != j;
  }
  CHECK(moved > 150);
  // A group's members are no longer side by side.
  int adjacent = 0;
  for (size_t j = 0; j + 1 < where.size(); ++j) {
    if ((j + 1) % o.group_size != 0) adjacent += std::abs(where[j] - where[j + 1]) == 1;
  }
  CHECK(adjacent < 20);
  // beta_true follows its columns, and X beta_true is unchanged.
  REQUIRE(shuffled.beta_true.size() == plain.beta_true.size());
  std::map<uint64_t, double> moved_beta;
  for (const auto& [j, beta] : plain.beta_true) moved_beta[uint64_t(where[j])] = beta;
  CHECK(std::vector<std::pair<uint64_t, double>>(moved_beta.begin(), moved_beta.end()) ==
        shuffled.beta_true);
}

}  // namespace
}  // namespace strads
