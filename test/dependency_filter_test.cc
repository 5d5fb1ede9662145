#include "engine/dependency_filter.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

namespace strads {
namespace {

// A random sparse matrix with deliberately troublesome columns: some all zero, some scaled or
// negated copies of others (correlation 1), some sharing most of their support.
SparseColMatrix RandomMatrix(std::mt19937_64& rng, int64_t rows, int64_t cols) {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(rows, cols);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  for (int64_t j = 0; j < cols; ++j) {
    const double kind = unit(rng);
    if (kind < 0.1) continue;  // all zero
    if (kind < 0.25 && j > 0) {
      const int64_t src = rng() % j;
      dense.col(j) = dense.col(src) * (unit(rng) < 0.5 ? -3.0 : 0.5);
      continue;
    }
    if (kind < 0.4 && j > 0) {
      dense.col(j) = dense.col(rng() % j);
      dense(rng() % rows, j) += normal(rng);
      continue;
    }
    const double density = 0.05 + 0.5 * unit(rng);
    for (int64_t i = 0; i < rows; ++i) {
      if (unit(rng) < density) dense(i, j) = normal(rng);
    }
  }
  return dense.sparseView();
}

// |cos| of two dense columns, computed without ColumnStore; 0 if either is zero.
double DenseCorrelation(const SparseColMatrix& x, int64_t a, int64_t b) {
  const Eigen::VectorXd u = Eigen::VectorXd(x.col(a));
  const Eigen::VectorXd v = Eigen::VectorXd(x.col(b));
  if (u.norm() == 0.0 || v.norm() == 0.0) return 0.0;
  return std::abs(u.dot(v)) / (u.norm() * v.norm());
}

TEST_CASE("ColumnStore Correlation is the absolute cosine of the raw columns",
          "[dependency_filter]") {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 50; ++trial) {
    const SparseColMatrix x = RandomMatrix(rng, 1 + rng() % 40, 1 + rng() % 30);
    const uint64_t first = rng() % x.cols();
    const uint64_t end = first + 1 + rng() % (x.cols() - first);
    const ColumnStore store(x, first, end);
    REQUIRE(store.first() == first);
    REQUIRE(store.end() == end);
    for (uint64_t a = first; a < end; ++a) {
      REQUIRE(store.SquaredNorm(a) == Approx(x.col(a).squaredNorm()).margin(1e-12));
      for (uint64_t b = first; b < end; ++b) {
        REQUIRE(store.Correlation(a, b) == Approx(DenseCorrelation(x, a, b)).margin(1e-12));
        REQUIRE(store.Correlation(a, b) == store.Correlation(b, a));
        REQUIRE(store.Correlation(a, b) <= 1.0);
      }
    }
  }
}

TEST_CASE("ColumnStore does not depend on column scaling and treats zero columns as independent",
          "[dependency_filter]") {
  Eigen::MatrixXd d(4, 4);
  d << 1, 100, 0, 1,  //
      2, 200, 0, 0,   //
      0, 0, 0, 1,     //
      0, 0, 0, 0;
  const SparseColMatrix x = d.sparseView();
  const ColumnStore store(x, 0, 4);
  CHECK(store.Correlation(0, 1) == Approx(1.0));
  CHECK(store.Correlation(0, 2) == 0.0);
  CHECK(store.Correlation(2, 2) == 0.0);
  CHECK(store.SquaredNorm(1) == Approx(50000.0));
  CHECK(store.SquaredNorm(2) == 0.0);
  CHECK(store.Correlation(0, 3) == Approx(1.0 / std::sqrt(10.0)));
}

TEST_CASE("ColumnStore accepts an uncompressed matrix filled out of order", "[dependency_filter]") {
  SparseColMatrix x(5, 2);
  x.reserve(Eigen::VectorXi::Constant(2, 4));
  x.insert(4, 0) = 1.0;
  x.insert(0, 0) = 2.0;
  x.insert(2, 1) = 3.0;
  x.insert(0, 1) = 4.0;
  x.insert(4, 1) = 5.0;
  REQUIRE_FALSE(x.isCompressed());
  const ColumnStore store(x, 0, 2);
  CHECK(store.Correlation(0, 1) == Approx(DenseCorrelation(x, 0, 1)));
  CHECK(store.Nnz(1) == 3);
}

TEST_CASE(
    "FilterIndependent keeps no pair above rho, in priority order, at most max_keep, "
    "greedily",
    "[dependency_filter]") {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int kept_total = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const SparseColMatrix x = RandomMatrix(rng, 2 + rng() % 30, 2 + rng() % 40);
    const uint64_t first = rng() % (x.cols() / 2 + 1);
    const uint64_t end = x.cols();
    const ColumnStore store(x, first, end);
    std::vector<uint64_t> candidates;
    for (uint64_t j = first; j < end; ++j) candidates.push_back(j);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    candidates.resize(1 + rng() % candidates.size());
    const double rho = trial % 10 == 0 ? 0.0 : unit(rng);
    const size_t max_keep = 1 + rng() % 12;

    const std::vector<uint64_t> kept = FilterIndependent(store, candidates, rho, max_keep);
    kept_total += kept.size();
    REQUIRE(kept.size() <= max_keep);
    REQUIRE(!kept.empty());  // the first candidate is always kept
    REQUIRE(kept[0] == candidates[0]);
    for (size_t a = 0; a < kept.size(); ++a) {
      for (size_t b = a + 1; b < kept.size(); ++b) {
        INFO("rho " << rho << " pair " << kept[a] << "," << kept[b]);
        REQUIRE(DenseCorrelation(x, kept[a], kept[b]) <= rho + 1e-12);
      }
    }
    // Kept ids form a subsequence of the candidates, and every candidate skipped before the last
    // kept one (or before the list ran out, if fewer than max_keep were kept) conflicts with an
    // earlier kept one: the greedy rule, not merely some independent set.
    size_t k = 0;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (k < kept.size() && candidates[c] == kept[k]) {
        ++k;
        continue;
      }
      if (k == max_keep) break;  // the filter stopped here
      bool conflicts = false;
      for (size_t e = 0; e < k; ++e) {
        conflicts = conflicts || DenseCorrelation(x, candidates[c], kept[e]) > rho - 1e-12;
      }
      INFO("candidate " << candidates[c] << " was skipped");
      REQUIRE(conflicts);
    }
    REQUIRE(k == kept.size());
  }
  CHECK(kept_total > 300);  // the property was exercised on non-trivial keeps
}

TEST_CASE("FilterIndependent with rho of 1 keeps the first max_keep distinct candidates",
          "[dependency_filter]") {
  std::mt19937_64 rng(8);
  const SparseColMatrix x = RandomMatrix(rng, 10, 20);
  const ColumnStore store(x, 0, 20);
  const std::vector<uint64_t> candidates = {5, 3, 5, 19, 0, 7};
  CHECK(FilterIndependent(store, candidates, 1.0, 4) == std::vector<uint64_t>{5, 3, 19, 0});
  CHECK(FilterIndependent(store, candidates, 1.0, 0).empty());
  CHECK(FilterIndependent(store, {}, 0.5, 4).empty());
}

TEST_CASE("FilterIndependent bounds its work on dense data: a shorter chord, still independent",
          "[dependency_filter]") {
  // 600 dense Gaussian columns of 200 rows: every pair has |corr| well below 0.99, so an unbounded
  // filter keeps all 600 after walking ~200 x 600^2 / 2 = 36 M index entries; the bound is
  // 4 x 120,000 + 65,536 entries, so it stops after ~70.
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd d(200, 600);
  for (int64_t i = 0; i < d.size(); ++i) d.data()[i] = normal(rng);
  const SparseColMatrix x = d.sparseView();
  const ColumnStore store(x, 0, 600);
  std::vector<uint64_t> candidates(600);
  for (uint64_t j = 0; j < 600; ++j) candidates[j] = j;
  DependencyFilter filter(store);
  filter.SetIndexKind(DependencyFilter::IndexKind::kRows);
  const auto kept = filter.Filter(candidates, 0.99, 600);
  CHECK(kept.size() > 30);
  CHECK(kept.size() < 200);
  // What it kept is the first candidates, each pair independent.
  for (size_t k = 0; k < kept.size(); ++k) {
    CHECK(kept[k] == k);
    for (size_t l = 0; l < k; ++l) CHECK(store.Correlation(kept[k], kept[l]) <= 0.99);
  }
}

TEST_CASE("The dense index bounds its work in multiply-adds: more kept than by rows, still bounded",
          "[dependency_filter]") {
  // The same 600 x 200 dense columns: the dense index allows 8 x (4 x 120,000 + 65,536) = 4.4 M
  // multiply-adds, and keeping k columns walks 200 x k^2 / 2 of them, so it stops near 209.
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd d(200, 600);
  for (int64_t i = 0; i < d.size(); ++i) d.data()[i] = normal(rng);
  const SparseColMatrix x = d.sparseView();
  const ColumnStore store(x, 0, 600);
  std::vector<uint64_t> candidates(600);
  for (uint64_t j = 0; j < 600; ++j) candidates[j] = j;
  DependencyFilter filter(store);
  filter.SetIndexKind(DependencyFilter::IndexKind::kDense);
  const auto kept = filter.Filter(candidates, 0.99, 600);
  CHECK(kept.size() > 180);
  CHECK(kept.size() < 240);
  for (size_t k = 0; k < kept.size(); ++k) CHECK(kept[k] == k);
}

TEST_CASE(
    "The dense index and the row index keep the same parameters, with groups and running ones",
    "[dependency_filter]") {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  size_t kept_total = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const SparseColMatrix x = RandomMatrix(rng, 2 + rng() % 30, 2 + rng() % 40);
    const uint64_t first = rng() % (x.cols() / 2 + 1);
    const ColumnStore store(x, first, x.cols());
    const uint64_t size = store.end() - first;
    std::vector<uint64_t> ids(size);
    for (uint64_t j = 0; j < size; ++j) ids[j] = first + j;
    std::shuffle(ids.begin(), ids.end(), rng);
    const size_t running = trial % 3 == 0 ? rng() % (size / 2 + 1) : 0;
    const std::vector<uint64_t> run(ids.begin(), ids.begin() + running);
    const std::vector<uint64_t> candidates(ids.begin() + running, ids.end());
    std::vector<uint32_t> groups(size);
    const uint32_t num_groups = 1 + rng() % 4;
    for (auto& g : groups) g = rng() % num_groups;
    const double rho = unit(rng);
    const size_t max_keep = 1 + rng() % 12;
    DependencyFilter by_rows(store);
    DependencyFilter dense(store);
    by_rows.SetIndexKind(DependencyFilter::IndexKind::kRows);
    dense.SetIndexKind(DependencyFilter::IndexKind::kDense);
    if (trial % 2 == 0) {
      by_rows.SetGroups(groups);
      dense.SetGroups(groups);
    }
    const auto want = by_rows.Filter(candidates, rho, max_keep, run);
    INFO("trial " << trial);
    REQUIRE(dense.Filter(candidates, rho, max_keep, run) == want);
    // The scratch is reset: a second call without running parameters agrees too.
    REQUIRE(dense.Filter(candidates, rho, max_keep) == by_rows.Filter(candidates, rho, max_keep));
    kept_total += want.size();
  }
  CHECK(kept_total > 300);
}

// Three columns: 0 and 1 parallel, corr(0,1) = 1; corr(0,2) = corr(1,2) = 0.5.
ColumnStore ParallelPairStore() {
  Eigen::MatrixXd d(3, 3);
  d << 1, -2, 0,  //
      1, -2, 1,   //
      0, 0, 1;
  const SparseColMatrix x = d.sparseView();
  return ColumnStore(x, 0, 3);
}

TEST_CASE("FilterIndependent rejects a candidate parallel to a kept one", "[dependency_filter]") {
  const ColumnStore store = ParallelPairStore();
  const std::vector<uint64_t> order = {1, 0, 2};
  CHECK(FilterIndependent(store, order, 0.6, 3) == std::vector<uint64_t>{1, 2});
  CHECK(FilterIndependent(store, order, 0.4, 3) == std::vector<uint64_t>{1});
}

TEST_CASE("SetGroup moves a parameter to another worker's group: same-group pairs go unchecked",
          "[dependency_filter]") {
  const ColumnStore store = ParallelPairStore();
  for (const auto kind :
       {DependencyFilter::IndexKind::kRows, DependencyFilter::IndexKind::kDense}) {
    DependencyFilter filter(store);
    filter.SetIndexKind(kind);
    filter.SetGroups({0, 1, 1});
    const std::vector<uint64_t> order = {1, 0, 2};
    // 0 and 1 are parallel and on different workers: 0 is kept out.
    CHECK(filter.Filter(order, 0.6, 3) == std::vector<uint64_t>{1, 2});
    // Moved to 1's worker, 0 is updated after 1 in sequence there: kept.
    filter.SetGroup(0, 1);
    CHECK(filter.Filter(order, 0.6, 3) == std::vector<uint64_t>{1, 0, 2});
    // Running parameters are checked whatever their group.
    CHECK(filter.Filter(order, 0.6, 3, std::vector<uint64_t>{0}) == std::vector<uint64_t>{2});
  }
}

TEST_CASE("DependencyFilter also keeps new candidates independent of parameters still running",
          "[dependency_filter]") {
  const ColumnStore store = ParallelPairStore();
  DependencyFilter filter(store);
  const std::vector<uint64_t> order = {1, 0, 2};
  const std::vector<uint64_t> running = {0};
  // 1 is parallel to running 0, and 0 itself is running: only 2 is left.
  CHECK(filter.Filter(order, 0.6, 3, running) == std::vector<uint64_t>{2});
  CHECK(filter.Filter(order, 0.4, 3, running).empty());
  // The scratch is reset between calls.
  CHECK(filter.Filter(order, 0.6, 3) == std::vector<uint64_t>{1, 2});
}

}  // namespace
}  // namespace strads
