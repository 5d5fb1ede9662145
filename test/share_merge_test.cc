// MergeShares (coordinator/share_merge.h): a round's deltas from the workers' shares, by hand.
#include <catch2/catch.hpp>

#include "coordinator/share_merge.h"

namespace strads {
namespace {

proto::Chord ChordOf(std::initializer_list<uint64_t> ids, double value) {
  proto::Chord c;
  for (uint64_t j : ids) {
    c.add_ids(j);
    c.add_values(value);
  }
  return c;
}

// A share of `ids` moved to `values`, changing row `row` of a 3-row shared vector by `change`
// (none when 0).
proto::ColumnPartials Share(std::vector<uint64_t> ids, std::vector<double> values, uint64_t row = 0,
                            double change = 0) {
  proto::ColumnPartials p;
  for (size_t k = 0; k < ids.size(); ++k) {
    p.add_ids(ids[k]);
    p.add_values(values[k]);
  }
  p.mutable_change()->set_size(3);
  if (change != 0) {
    p.mutable_change()->add_indices(row);
    p.mutable_change()->add_values(change);
  }
  return p;
}

std::vector<double> Dense(DeltaAccumulator& sum) {
  proto::VectorDelta d;
  sum.Take(d);
  std::vector<double> out(3, 0.0);
  ForEachEntry(d, [&](uint64_t i, double v) { out[i] += v; });
  return out;
}

TEST_CASE(
    "MergeShares: deltas follow the chord's order across shares, and their changes are summed",
    "[share_merge]") {
  const proto::Chord chord = ChordOf({4, 9, 5}, 1.0);
  const std::vector<proto::ColumnPartials> shares = {Share({4, 5}, {3.0, 0.5}, 0, 2.0),
                                                     Share({9}, {-1.0}, 2, 1.0)};
  DeltaAccumulator sum(3);
  auto merged = MergeShares(7, chord, shares, sum);
  REQUIRE(merged.ok());
  CHECK(merged->deltas == std::vector<double>{2.0, -2.0, -0.5});
  CHECK(merged->moved == 2);
  CHECK(Dense(sum) == std::vector<double>{2.0, 0.0, 1.0});
}

TEST_CASE("MergeShares: a share without a change of the shared vector has not moved",
          "[share_merge]") {
  const proto::Chord chord = ChordOf({1, 2}, 0.0);
  const std::vector<proto::ColumnPartials> shares = {Share({1, 2}, {1.0, 1.0}, 1, 4.0),
                                                     Share({}, {})};
  DeltaAccumulator sum(3);
  auto merged = MergeShares(0, chord, shares, sum);
  REQUIRE(merged.ok());
  CHECK(merged->moved == 1);
}

TEST_CASE("MergeShares: a share out of chord order or ids beyond the chord fail, summing nothing",
          "[share_merge]") {
  const proto::Chord chord = ChordOf({4, 9, 5}, 1.0);
  DeltaAccumulator sum(3);
  SECTION("out of order") {
    const std::vector<proto::ColumnPartials> shares = {Share({5, 4}, {0, 0}, 0, 1.0),
                                                       Share({9}, {0})};
    auto merged = MergeShares(3, chord, shares, sum);
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.status().message(),
               Catch::Contains("round 3: no worker updated parameter 4 (in chord order)"));
  }
  SECTION("an id the chord does not hold") {
    const std::vector<proto::ColumnPartials> shares = {Share({4, 5, 6}, {0, 0, 0}, 0, 1.0),
                                                       Share({9}, {0})};
    auto merged = MergeShares(3, chord, shares, sum);
    REQUIRE_FALSE(merged.ok());
    CHECK_THAT(merged.status().message(), Catch::Contains("updated 4 parameters of a chord of 3"));
  }
  CHECK(Dense(sum) == std::vector<double>{0.0, 0.0, 0.0});
}

}  // namespace
}  // namespace strads
