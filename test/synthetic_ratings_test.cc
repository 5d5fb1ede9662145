// Tests of the power-law ratings generator: the promises of tools/synthetic_ratings.h (sizes,
// distinct cells, non-empty rows and columns, a test set inside train's rows and columns,
// determinism, skew) and that its files load as the mf app's train and test matrices.
#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "test/status_testing.h"
#include "test/temp_dir.h"

#include "apps/mf/ratings.h"
#include "tools/synthetic_ratings.h"

namespace strads {
namespace {

using strads::testing::TempDir;

SyntheticRatings MustGenerate(const SyntheticRatingsOptions& o) {
  return testing::Must(GenerateSyntheticRatings(o));
}

SyntheticRatingsOptions SmallOptions() {
  SyntheticRatingsOptions o{.rows = 300,
                            .cols = 120,
                            .ratings = 6000,
                            .rank = 4,
                            .zipf = 1.0,
                            .test_fraction = 0.2,
                            .seed = 7};
  return o;
}

std::vector<uint64_t> Degrees(const std::vector<uint32_t>& ids, uint64_t n) {
  std::vector<uint64_t> d(n, 0);
  for (uint32_t i : ids) ++d[i];
  return d;
}

TEST_CASE("synthetic ratings have the requested size and no repeated cell", "[synthetic]") {
  for (bool shuffle : {false, true}) {
    SyntheticRatingsOptions o = SmallOptions();
    o.shuffle = shuffle;
    const SyntheticRatings r = MustGenerate(o);
    CHECK(r.rows == o.rows);
    CHECK(r.cols == o.cols);
    CHECK(r.train.size() + r.test.size() == o.ratings);
    CHECK(r.test.size() > 0.1 * o.ratings);
    CHECK(r.test.size() < 0.3 * o.ratings);
    std::set<std::pair<uint32_t, uint32_t>> cells;
    for (const RatingEntries* e : {&r.train, &r.test}) {
      for (uint64_t k = 0; k < e->size(); ++k) {
        REQUIRE(e->row[k] < o.rows);
        REQUIRE(e->col[k] < o.cols);
        cells.emplace(e->row[k], e->col[k]);
      }
    }
    CHECK(cells.size() == o.ratings);
  }
}

TEST_CASE("every row and column is non-empty in train and test cells lie in train's",
          "[synthetic]") {
  const SyntheticRatings r = MustGenerate(SmallOptions());
  const std::vector<uint64_t> rows = Degrees(r.train.row, r.rows);
  const std::vector<uint64_t> cols = Degrees(r.train.col, r.cols);
  CHECK(std::count(rows.begin(), rows.end(), 0u) == 0);
  CHECK(std::count(cols.begin(), cols.end(), 0u) == 0);
}

TEST_CASE("synthetic ratings popularity is skewed towards low ids", "[synthetic]") {
  const SyntheticRatings r = MustGenerate(SmallOptions());
  std::vector<uint64_t> rows = Degrees(r.train.row, r.rows);
  const uint64_t first = rows[0];
  std::nth_element(rows.begin(), rows.begin() + rows.size() / 2, rows.end());
  CHECK(first > 5 * rows[rows.size() / 2]);
}

TEST_CASE("synthetic ratings are deterministic for a seed and differ across seeds", "[synthetic]") {
  SyntheticRatingsOptions o = SmallOptions();
  const SyntheticRatings a = MustGenerate(o);
  const SyntheticRatings b = MustGenerate(o);
  CHECK(a.train.row == b.train.row);
  CHECK(a.train.col == b.train.col);
  CHECK(a.train.value == b.train.value);
  CHECK(a.test.value == b.test.value);
  o.seed = 8;
  const SyntheticRatings c = MustGenerate(o);
  CHECK(a.train.value != c.train.value);
}

TEST_CASE("synthetic ratings files load as an mf train and test pair", "[synthetic]") {
  const SyntheticRatings r = MustGenerate(SmallOptions());
  TempDir dir;
  REQUIRE(WriteRatingsMatrixMarket(r.train, r.rows, r.cols, dir.Path("train.mtx")).ok());
  REQUIRE(WriteRatingsMatrixMarket(r.test, r.rows, r.cols, dir.Path("test.mtx")).ok());
  Result<mf::Ratings> train = mf::LoadRatings(dir.Path("train.mtx"));  // rejects empty lines
  INFO(train.status().ToString());
  REQUIRE(train.ok());
  CHECK(train->nnz() == r.train.size());
  CHECK(train->value == r.train.value);  // written in round-trip form, sorted by (row, col)
  Result<mf::Ratings> test = mf::LoadRatingsLike(dir.Path("test.mtx"), *train);
  REQUIRE(test.ok());
  CHECK(test->nnz() == r.test.size());
}

TEST_CASE("synthetic ratings reject impossible options", "[synthetic]") {
  SyntheticRatingsOptions o = SmallOptions();
  o.ratings = o.rows + o.cols - 1;  // cannot cover every row and column
  CHECK_FALSE(GenerateSyntheticRatings(o).ok());
  o = SmallOptions();
  o.ratings = o.rows * o.cols;  // more than half the cells
  CHECK_FALSE(GenerateSyntheticRatings(o).ok());
  o = SmallOptions();
  o.test_fraction = 1.0;
  CHECK_FALSE(GenerateSyntheticRatings(o).ok());
  o = SmallOptions();
  o.rank = 0;
  CHECK_FALSE(GenerateSyntheticRatings(o).ok());
}

}  // namespace
}  // namespace strads
