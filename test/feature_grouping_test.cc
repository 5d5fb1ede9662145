// Feature grouping (engine/feature_grouping.h) and the owners it feeds (engine/column_owners.h):
// correlated features whose ids are scattered end on one worker, the workers' weights stay
// balanced, every member gets the same owners, and where the lists would cost too much there is
// no grouping.
#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "common/column_selection.h"
#include "common/partitioner.h"
#include "engine/column_owners.h"
#include "engine/feature_grouping.h"
#include "tools/synthetic_lasso.h"

namespace strads {
namespace {

// A correlated problem (groups of `group` features sharing their rows, correlation 0.9) whose
// columns are shuffled: column perm[j] of the result is column j of the generated one, so the
// members of generated group g are {perm[j] : j / group == g}.
struct Shuffled {
  SparseColMatrix x;
  std::vector<uint64_t> perm;
};

Shuffled ShuffledGroups(uint64_t features, uint32_t group, uint64_t seed) {
  SyntheticLassoOptions o{.rows = 400,
                          .features = features,
                          .group_size = group,
                          .correlation = 0.9,
                          .density = 0.05,
                          .true_nonzeros = 10,
                          .seed = seed};
  auto p = GenerateSyntheticLasso(o);
  REQUIRE(p.ok());
  Shuffled out;
  out.perm.resize(features);
  std::iota(out.perm.begin(), out.perm.end(), 0);
  std::shuffle(out.perm.begin(), out.perm.end(), std::mt19937_64(seed));
  std::vector<Eigen::Triplet<double>> t;
  const SparseColMatrix& x = p->data.x;
  for (int64_t j = 0; j < x.cols(); ++j) {
    for (SparseColMatrix::InnerIterator it(x, j); it; ++it) {
      t.emplace_back(it.row(), static_cast<int64_t>(out.perm[static_cast<size_t>(j)]), it.value());
    }
  }
  out.x.resize(x.rows(), x.cols());
  out.x.setFromTriplets(t.begin(), t.end());
  return out;
}

// Generated groups whose members do not all have one owner.
int SplitGroups(const Shuffled& s, uint32_t group, const std::vector<uint32_t>& owner) {
  int split = 0;
  for (size_t g = 0; g * group < s.perm.size(); ++g) {
    std::set<uint32_t> owners;
    for (size_t j = g * group; j < std::min(s.perm.size(), (g + 1) * group); ++j) {
      owners.insert(owner[s.perm[j]]);
    }
    split += owners.size() > 1;
  }
  return split;
}

TEST_CASE("grouping puts each correlated group on one worker where blocks of ids split most",
          "[grouping]") {
  constexpr uint64_t kFeatures = 600;
  constexpr uint32_t kGroup = 6;
  const Shuffled s = ShuffledGroups(kFeatures, kGroup, 5);
  const std::vector<uint64_t> weights = ColumnWeights(s.x);
  const ColumnStore store(s.x, 0, kFeatures);
  for (const uint32_t workers : {2u, 3u}) {
    CAPTURE(workers);
    auto groups = GroupFeatures(store, weights, workers, 0.5, GroupingBudget());
    REQUIRE(groups.ok());
    REQUIRE(groups->owners.size() == kFeatures);
    // Every group is a clique of 15 pairs at 0.9; a few columns of different groups meet on
    // enough of their rows to pass 0.5 too.
    CHECK(groups->pairs >= kFeatures / kGroup * 15);
    CHECK(groups->pairs <= kFeatures / kGroup * 15 + 20);
    // At most workers - 1 groups are cut, where the order is cut into pieces.
    CHECK(SplitGroups(s, kGroup, groups->owners) <= int(workers) - 1);
    CHECK(groups->cut_pairs <= (workers - 1) * 15);

    // Blocks of ids (what the engine did before) split most groups of the shuffled file.
    const ColumnOwners blocks(weights, 1, workers);
    std::vector<uint32_t> block_owner(kFeatures);
    for (uint64_t j = 0; j < kFeatures; ++j) block_owner[j] = blocks.Worker(j);
    CHECK(SplitGroups(s, kGroup, block_owner) > 50);

    // Balanced by weight: each worker within one group's weight of an even share.
    std::vector<uint64_t> load(workers, 0);
    uint64_t heaviest = 0;
    for (uint64_t j = 0; j < kFeatures; ++j) {
      load[groups->owners[j]] += weights[j];
      heaviest = std::max(heaviest, weights[j]);
    }
    const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t{0});
    for (const uint64_t l : load) {
      CHECK(double(l) >= double(total) / workers - double(heaviest) * kGroup);
      CHECK(double(l) <= double(total) / workers + double(heaviest) * kGroup);
    }
  }
}

TEST_CASE("grouping refuses a range over its budget, from the counts and from the walk",
          "[grouping]") {
  const Shuffled s = ShuffledGroups(120, 4, 2);
  const std::vector<uint64_t> weights = ColumnWeights(s.x);
  const ColumnStore store(s.x, 0, 120);
  NeighbourLists::Budget tiny = GroupingBudget();
  tiny.max_work = 100;
  auto refused = GroupFeatures(store, weights, 2, 0.5, tiny);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kFailedPrecondition);
  // The counts' bound: 450 rows of 100,000 entries (the paper's shape) never fits; a sparse
  // 20,000 x 20,000 file of 800,000 entries does.
  CHECK_FALSE(GroupingMayFit(450, 45'000'000, GroupingBudget()));
  CHECK(GroupingMayFit(20'000, 800'000, GroupingBudget()));
  CHECK_FALSE(GroupingBudget().allow_dense);
}

TEST_CASE("GroupRange groups one scheduler's range and leaves the others in blocks", "[grouping]") {
  const Shuffled s = ShuffledGroups(300, 5, 3);
  const std::vector<uint64_t> weights = ColumnWeights(s.x);
  ColumnOwners owners(weights, 2, 2);
  const ColumnOwners blocks = owners;
  const std::string note = GroupRange(s.x, weights, 0.5, 1, owners);
  CAPTURE(note);
  CHECK_THAT(note, Catch::Contains("grouped over 2 workers"));
  CHECK_FALSE(owners.grouped(0));
  CHECK(owners.grouped(1));
  CHECK(owners.GroupOf(0).empty());
  // A scheduler holds only its range's columns: the same owners as from the whole matrix.
  const ColumnRange range = owners.RangeOf(1);
  const ColumnRange only[] = {range};
  ColumnOwners from_range(weights, 2, 2);
  GroupRange(KeepColumns(s.x, only), weights, 0.5, 1, from_range);
  CHECK(from_range.GroupOf(1) == owners.GroupOf(1));
  // The grouping differs from the blocks it replaces (the groups are scattered).
  int moved = 0;
  for (uint64_t j = range.begin; j < range.end; ++j) {
    moved += owners.WorkerIn(1, j) != blocks.WorkerIn(1, j);
  }
  CHECK(moved > 10);
  // Each worker owns part of both ranges; the masks cover every column once.
  const std::vector<char> m0 = owners.Mask(0), m1 = owners.Mask(1);
  for (uint64_t j = 0; j < 300; ++j) {
    CHECK(m0[j] + m1[j] == 1);
    CHECK(m0[j] == (owners.Worker(j) == 0));
  }
  for (uint32_t s_rank = 0; s_rank < 2; ++s_rank) {
    for (uint32_t w = 0; w < 2; ++w) {
      bool any = false;
      for (uint64_t j = owners.RangeOf(s_rank).begin; j < owners.RangeOf(s_rank).end; ++j) {
        any = any || owners.WorkerIn(s_rank, j) == w;
      }
      CHECK(any);
    }
  }
  // A grouped range's span is the whole range; a block's is the block.
  CHECK(owners.SpanOf(1, 0).begin == range.begin);
  CHECK(owners.SpanOf(1, 0).end == range.end);
  CHECK(owners.SpanOf(0, 1).end == owners.RangeOf(0).end);
  CHECK(owners.SpanOf(0, 1).begin > owners.RangeOf(0).begin);
}

TEST_CASE("ColumnOwners without grouping are NestedPartitionByWeight's blocks", "[grouping]") {
  std::vector<uint64_t> weights(50);
  for (size_t j = 0; j < weights.size(); ++j) weights[j] = 1 + j % 7;
  const ColumnOwners owners(weights, 3, 2);
  const auto blocks = NestedPartitionByWeight(weights, 3, 2);
  CHECK(owners.scheduler_starts() == PartitionByWeight(weights, 3));
  for (uint32_t s = 0; s < 3; ++s) {
    for (uint32_t w = 0; w < 2; ++w) {
      const size_t b = s * 2 + w;
      for (uint64_t j = blocks[b]; j < blocks[b + 1]; ++j) {
        CHECK(owners.WorkerIn(s, j) == w);
        CHECK(owners.Worker(j) == w);
      }
      CHECK(owners.SpanOf(s, w).begin == blocks[b]);
      CHECK(owners.SpanOf(s, w).end == blocks[b + 1]);
    }
  }
  CHECK(owners.Worker(50) == 2);  // past the last parameter: no worker
}

TEST_CASE("ColumnOwners refuses a grouping of the wrong size or naming a missing worker",
          "[grouping]") {
  const std::vector<uint64_t> weights(12, 1);
  ColumnOwners owners(weights, 2, 2);
  const ColumnRange r = owners.RangeOf(1);
  CHECK_FALSE(owners.Group(1, std::vector<uint32_t>(r.end - r.begin + 1, 0)).ok());
  std::vector<uint32_t> bad(r.end - r.begin, 1);
  bad.back() = 2;
  const Status refused = owners.Group(1, bad);
  CHECK(refused.code() == StatusCode::kInvalidArgument);
  CHECK_THAT(refused.message(), Catch::Contains("owner 2 of 2 workers"));
  CHECK_FALSE(owners.Group(2, {}).ok());
  CHECK_FALSE(owners.grouped(1));  // nothing changed
  REQUIRE(owners.Group(1, std::vector<uint32_t>(r.end - r.begin, 1)).ok());
  for (uint64_t j = r.begin; j < r.end; ++j) CHECK(owners.Worker(j) == 1);
}

TEST_CASE("a range without a dependent pair keeps its blocks", "[grouping]") {
  // Columns on disjoint rows: no two share a row, so no pair has |cos| > 0.
  std::vector<Eigen::Triplet<double>> t;
  for (int64_t j = 0; j < 40; ++j) t.emplace_back(j, j, 1.0 + double(j));
  SparseColMatrix x(40, 40);
  x.setFromTriplets(t.begin(), t.end());
  const std::vector<uint64_t> weights = ColumnWeights(x);
  ColumnOwners owners(weights, 1, 2);
  const std::string note = GroupRange(x, weights, 0.5, 0, owners);
  CAPTURE(note);
  CHECK_THAT(note, Catch::Contains("contiguous blocks, no pair"));
  CHECK_FALSE(owners.grouped(0));
}

}  // namespace
}  // namespace strads
