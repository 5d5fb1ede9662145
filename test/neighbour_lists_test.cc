#include "engine/neighbour_lists.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "engine/dependency_filter.h"

namespace strads {
namespace {

// A random matrix of `rows` x `cols` with columns of varied density, some all zero, some copies
// (scaled, negated, or with one entry changed) of earlier ones.
SparseColMatrix RandomMatrix(std::mt19937_64& rng, int64_t rows, int64_t cols, double max_density) {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(rows, cols);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  for (int64_t j = 0; j < cols; ++j) {
    const double kind = unit(rng);
    if (kind < 0.1) continue;
    if (kind < 0.2 && j > 0) {
      dense.col(j) = dense.col(rng() % j) * (unit(rng) < 0.5 ? -2.0 : 0.5);
      continue;
    }
    if (kind < 0.3 && j > 0) {
      dense.col(j) = dense.col(rng() % j);
      dense(rng() % rows, j) += normal(rng);
      continue;
    }
    const double density = max_density * unit(rng);
    for (int64_t i = 0; i < rows; ++i) {
      if (unit(rng) < density) dense(i, j) = normal(rng);
    }
  }
  return dense.sparseView();
}

// Whether some pair of the store's columns has a correlation within `margin` of rho: the dense
// way may put such a pair on either side.
bool PairNear(const ColumnStore& store, double rho, double margin) {
  for (uint64_t a = store.first(); a < store.end(); ++a) {
    for (uint64_t b = a + 1; b < store.end(); ++b) {
      if (std::abs(store.Correlation(a, b) - rho) < margin) return true;
    }
  }
  return false;
}

TEST_CASE("NeighbourLists holds exactly the pairs above rho, both ways, ascending",
          "[neighbour_lists]") {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int dense_builds = 0, sparse_builds = 0, threaded_builds = 0, pairs_seen = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Half wide and very sparse (the sparse walk), half small and dense (the Gram matrix), every
    // tenth of those with enough columns for the Gram matrix's two threads.
    const bool wide = trial % 2 == 0;
    const bool threaded = trial % 10 == 1;
    const SparseColMatrix x = wide ? RandomMatrix(rng, 300 + rng() % 200, 200 + rng() % 200, 0.01)
                              : threaded
                                  ? RandomMatrix(rng, 20 + rng() % 40, 600 + rng() % 100, 1.0)
                                  : RandomMatrix(rng, 2 + rng() % 40, 2 + rng() % 40, 1.0);
    const uint64_t first = threaded ? rng() % 50 : rng() % (x.cols() / 2 + 1);
    const ColumnStore store(x, first, x.cols());
    const double rho = trial % 10 == 0 ? 0.0 : unit(rng) * 0.999;
    auto lists = NeighbourLists::Build(store, rho);
    REQUIRE(lists.ok());
    (lists->dense() ? dense_builds : sparse_builds) += 1;
    threaded_builds += threaded && lists->dense() ? 1 : 0;
    REQUIRE(lists->first() == first);
    REQUIRE(lists->size() == store.end() - first);
    // The dense way sums in another order: a pair within rounding of rho may go either way.
    const double margin = lists->dense() ? 1e-12 : 0.0;
    uint64_t entries = 0;
    std::vector<std::pair<uint64_t, uint64_t>> wrong;  // pairs listed or missing by mistake
    for (uint64_t a = first; a < store.end(); ++a) {
      const auto of = lists->Of(a);
      entries += of.size();
      REQUIRE(std::is_sorted(of.begin(), of.end()));
      REQUIRE(std::adjacent_find(of.begin(), of.end()) == of.end());
      for (uint64_t b = first; b < store.end(); ++b) {
        const double corr = store.Correlation(a, b);
        if (margin > 0 && std::abs(corr - rho) <= margin) continue;
        const bool expected = a != b && corr > rho;
        const bool listed = std::binary_search(of.begin(), of.end(), uint32_t(b - first));
        if (listed != expected) wrong.emplace_back(a, b);
        pairs_seen += expected ? 1 : 0;
      }
    }
    INFO("trial " << trial << " rho " << rho << (lists->dense() ? " dense" : " sparse"));
    REQUIRE(wrong.empty());
    REQUIRE(entries == lists->entries());
  }
  CHECK(dense_builds > 20);
  CHECK(sparse_builds > 20);
  CHECK(threaded_builds >= 15);
  CHECK(pairs_seen > 1000);  // the property was exercised on non-trivial lists
}

TEST_CASE("NeighbourLists says no, with the figures, when the work or the lists exceed the budget",
          "[neighbour_lists]") {
  Eigen::MatrixXd d = Eigen::MatrixXd::Ones(50, 30);  // every pair parallel
  const SparseColMatrix x = d.sparseView();
  const ColumnStore store(x, 0, 30);

  NeighbourLists::Budget small_work;
  small_work.max_work = 100;
  auto over_work = NeighbourLists::Build(store, 0.5, small_work);
  REQUIRE_FALSE(over_work.ok());
  CHECK(over_work.status().code() == StatusCode::kFailedPrecondition);
  CHECK_THAT(over_work.status().message(),
             Catch::Contains("[0, 30)") && Catch::Contains("over the budget of 100"));

  NeighbourLists::Budget small_lists;
  small_lists.max_entries = 100;  // 30 x 29 = 870 entries needed
  auto over_lists = NeighbourLists::Build(store, 0.5, small_lists);
  REQUIRE_FALSE(over_lists.ok());
  CHECK_THAT(over_lists.status().message(), Catch::Contains("more than 100 entries"));

  auto fits = NeighbourLists::Build(store, 0.5);
  REQUIRE(fits.ok());
  CHECK(fits->entries() == 30u * 29u);
}

TEST_CASE("NeighbourLists::DenseWayFits predicts the dense way from counts alone",
          "[neighbour_lists]") {
  const NeighbourLists::Budget budget;
  // Dense images (Fashion-MNIST's shape, 61% non-zero): dense, and Build agrees.
  CHECK(NeighbourLists::DenseWayFits(12000, 785, 5'700'000, budget));
  // The same shape at 20% non-zero: the sparse walk is cheaper.
  CHECK_FALSE(NeighbourLists::DenseWayFits(12000, 785, 1'880'000, budget));
  // Sparse and wide (the README's quickstart, 5%; the paper's shape, 10%, 1,000,000 columns).
  CHECK_FALSE(NeighbourLists::DenseWayFits(1000, 20000, 1'000'000, budget));
  CHECK_FALSE(NeighbourLists::DenseWayFits(450, 1'000'000, 45'000'000, budget));
  // Dense but too large for the dense matrices or the budget.
  CHECK_FALSE(NeighbourLists::DenseWayFits(100'000, 5000, 500'000'000, budget));
  CHECK_FALSE(NeighbourLists::DenseWayFits(0, 10, 0, budget));

  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const SparseColMatrix x = RandomMatrix(rng, 20 + rng() % 100, 5 + rng() % 60, 1.0);
    const ColumnStore store(x, 0, x.cols());
    auto lists = NeighbourLists::Build(store, 0.5);
    REQUIRE(lists.ok());
    // Rows of equal length are the sparse walk's best case, so a predicted dense way is taken.
    if (NeighbourLists::DenseWayFits(x.rows(), x.cols(), x.nonZeros(), budget)) {
      CHECK(lists->dense());
    }
  }
}

TEST_CASE("DependencyFilter keeps with neighbour lists exactly what it keeps without them",
          "[neighbour_lists][dependency_filter]") {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int compared = 0, kept_total = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const bool wide = trial % 2 == 0;
    const SparseColMatrix x = wide ? RandomMatrix(rng, 200 + rng() % 100, 100 + rng() % 100, 0.03)
                                   : RandomMatrix(rng, 2 + rng() % 30, 2 + rng() % 40, 0.6);
    const uint64_t first = rng() % (x.cols() / 2 + 1);
    const uint64_t end = x.cols();
    const ColumnStore store(x, first, end);
    const double rho = unit(rng) * 0.999;
    auto lists = NeighbourLists::Build(store, rho);
    REQUIRE(lists.ok());
    if (lists->dense() && PairNear(store, rho, 1e-12)) continue;

    // Groups (workers) on half the trials, contiguous blocks as the column layout cuts them.
    std::vector<uint32_t> groups;
    const uint32_t num_groups = trial % 4 < 2 ? 1 + rng() % 3 : 0;
    for (uint64_t i = 0; i < end - first; ++i) {
      groups.push_back(num_groups == 0 ? 0 : uint32_t(i * num_groups / (end - first)));
    }
    std::vector<uint64_t> ids;
    for (uint64_t j = first; j < end; ++j) ids.push_back(j);
    std::shuffle(ids.begin(), ids.end(), rng);
    const size_t running_count = trial % 3 == 0 ? rng() % (ids.size() / 2 + 1) : 0;
    const std::vector<uint64_t> running(ids.begin(), ids.begin() + running_count);
    std::vector<uint64_t> candidates(ids.begin() + running_count, ids.end());
    if (!candidates.empty()) candidates.push_back(candidates.front());  // a repeat
    const size_t max_keep = 1 + rng() % 40;

    DependencyFilter on_the_fly(store);
    DependencyFilter by_lists(store);
    if (num_groups > 0) {
      on_the_fly.SetGroups(groups);
      by_lists.SetGroups(groups);
    }
    by_lists.UseNeighbours(&*lists, rho);
    const auto expected = on_the_fly.Filter(candidates, rho, max_keep, running);
    INFO("trial " << trial << " rho " << rho << " groups " << num_groups << " running "
                  << running.size());
    REQUIRE(by_lists.Filter(candidates, rho, max_keep, running) == expected);
    // Called again, the scratch is clean; at another rho the lists are not used.
    REQUIRE(by_lists.Filter(candidates, rho, max_keep, running) == expected);
    const double other = rho / 2;
    REQUIRE(by_lists.Filter(candidates, other, max_keep, running) ==
            on_the_fly.Filter(candidates, other, max_keep, running));
    ++compared;
    kept_total += static_cast<int>(expected.size());
  }
  CHECK(compared > 200);
  CHECK(kept_total > 1000);
}

}  // namespace
}  // namespace strads
