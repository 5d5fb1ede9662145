// ShareTree and ShareCombiner (engine/share_tree.h): the shape of --aggregation tree and a
// worker's combination of its subtree's shares, by hand.
#include <catch2/catch.hpp>

#include "coordinator/share_merge.h"
#include "engine/share_tree.h"

namespace strads {
namespace {

// Worker `rank`'s share: `ids` moved to `values`, and a change of a 4-row shared vector adding
// `change` to row `row` (none when 0).
proto::ColumnPartials Own(std::vector<uint64_t> ids, std::vector<double> values, uint64_t row = 0,
                          double change = 0, double seconds = 0) {
  proto::ColumnPartials p;
  for (size_t k = 0; k < ids.size(); ++k) {
    p.add_ids(ids[k]);
    p.add_values(values[k]);
  }
  DeltaAccumulator sum(4);
  if (change != 0) sum.Add(row, change);
  sum.Take(*p.mutable_change());
  p.set_compute_seconds(seconds);
  return p;
}

std::vector<uint32_t> Ranks(const proto::ColumnPartials& p) {
  return {p.run_ranks().begin(), p.run_ranks().end()};
}
std::vector<uint32_t> Sizes(const proto::ColumnPartials& p) {
  return {p.run_sizes().begin(), p.run_sizes().end()};
}
std::vector<uint64_t> Ids(const proto::ColumnPartials& p) {
  return {p.ids().begin(), p.ids().end()};
}

TEST_CASE("ShareTree: children and parents by rank, as a heap of fan-in k", "[share_tree]") {
  const ShareTree binary(8, 2);
  CHECK_FALSE(binary.Parent(0));
  CHECK(binary.Children(0) == std::vector<uint32_t>{1, 2});
  CHECK(binary.Children(3) == std::vector<uint32_t>{7});
  CHECK(binary.Children(4).empty());
  CHECK(*binary.Parent(7) == 3);
  CHECK(*binary.Parent(2) == 0);
  CHECK(binary.Depth() == 3);
  const ShareTree flat(5, 4);
  CHECK(flat.Children(0) == std::vector<uint32_t>{1, 2, 3, 4});
  CHECK(flat.Depth() == 1);
  CHECK(ShareTree(8, 4).Depth() == 2);
  CHECK(ShareTree(1, 4).Depth() == 0);
  CHECK(ShareTree(1, 4).Children(0).empty());
}

TEST_CASE("ShareCombiner: a leaf's share goes up at once, as it is, with its one run",
          "[share_tree]") {
  ShareCombiner leaf(ShareTree(3, 2), 2, 4);
  auto up = leaf.AddOwn(5, Own({7, 3}, {1.0, 2.0}, 1, 0.5, 0.25));
  REQUIRE(up);
  CHECK(Ids(*up) == std::vector<uint64_t>{7, 3});
  CHECK(Ranks(*up) == std::vector<uint32_t>{2});
  CHECK(Sizes(*up) == std::vector<uint32_t>{2});
  CHECK(up->moved() == 1);
  CHECK(up->compute_seconds() == 0.25);
  CHECK(up->change().indices_size() == 1);
  CHECK(leaf.waiting_rounds() == 0);
}

TEST_CASE(
    "ShareCombiner: a parent's share is its own run then its children's, the changes summed in "
    "that order, once all are in",
    "[share_tree]") {
  // Worker 1 of 8 at fan-in 2 has children 3 and 4; 3 has child 7.
  const ShareTree tree(8, 2);
  ShareCombiner parent(tree, 1, 4);
  ShareCombiner three(tree, 3, 4);
  ShareCombiner seven(tree, 7, 4);
  ShareCombiner four(tree, 4, 4);
  // Round 2's shares arrive in any order; round 3's own share comes before round 2 completes.
  auto from_seven = seven.AddOwn(2, Own({40}, {4.0}, 0, 1.0, 0.5));
  REQUIRE(from_seven);
  auto early = three.AddChild(2, 7, *from_seven);
  REQUIRE(early.ok());
  CHECK_FALSE(*early);  // its own share is not in yet
  auto from_three = three.AddOwn(2, Own({30, 31}, {3.0, 3.5}, 0, 2.0, 0.125));
  REQUIRE(from_three);
  CHECK(Ranks(*from_three) == std::vector<uint32_t>{3, 7});
  CHECK(Sizes(*from_three) == std::vector<uint32_t>{2, 1});
  CHECK(from_three->compute_seconds() == 0.5);
  CHECK_FALSE(parent.AddOwn(3, Own({11}, {1.5})));
  auto first = parent.AddChild(2, 3, *from_three);
  REQUIRE(first.ok());
  CHECK_FALSE(*first);
  CHECK_FALSE(parent.AddOwn(2, Own({10}, {1.0}, 2, 8.0)));
  auto from_four = four.AddOwn(2, Own({}, {}));
  REQUIRE(from_four);
  CHECK(from_four->moved() == 0);
  auto done = parent.AddChild(2, 4, *from_four);
  REQUIRE(done.ok());
  REQUIRE(*done);
  const proto::ColumnPartials& up = **done;
  CHECK(Ids(up) == std::vector<uint64_t>{10, 30, 31, 40});
  CHECK(std::vector<double>(up.values().begin(), up.values().end()) ==
        std::vector<double>{1.0, 3.0, 3.5, 4.0});
  CHECK(Ranks(up) == std::vector<uint32_t>{1, 3, 7, 4});
  CHECK(Sizes(up) == std::vector<uint32_t>{1, 2, 1, 0});
  CHECK(up.moved() == 3);  // 1, 3 and 7; 4 moved nothing
  std::vector<double> change(4, 0.0);
  ForEachEntry(up.change(), [&](uint64_t i, double v) { change[i] += v; });
  CHECK(change == std::vector<double>{3.0, 0.0, 8.0, 0.0});
  CHECK(parent.waiting_rounds() == 1);  // round 3
}

TEST_CASE("ShareCombiner: at one level the root's sum is the star's, bit for bit", "[share_tree]") {
  // Values whose sum depends on the order of the additions.
  const std::vector<double> parts = {1e16, 1.0, -1e16, 1.0, 0.1, 0.2, 0.3};
  const uint32_t workers = static_cast<uint32_t>(parts.size());
  std::vector<proto::ColumnPartials> shares;
  for (uint32_t w = 0; w < workers; ++w) shares.push_back(Own({w}, {0.0}, 3, parts[w]));
  DeltaAccumulator star(4);
  for (const auto& share : shares) REQUIRE(star.Add(share.change()).ok());
  proto::VectorDelta star_change;
  star.Take(star_change);

  const ShareTree tree(workers, workers - 1);
  ShareCombiner root(tree, 0, 4);
  // The children's shares come in reverse; the root still adds them in rank order.
  for (uint32_t w = workers - 1; w >= 1; --w) {
    auto leaf = ShareCombiner(tree, w, 4).AddOwn(0, shares[w]);
    REQUIRE(leaf);
    auto r = root.AddChild(0, w, *leaf);
    REQUIRE(r.ok());
    CHECK_FALSE(*r);
  }
  auto up = root.AddOwn(0, shares[0]);
  REQUIRE(up);
  CHECK(up->change().SerializeAsString() == star_change.SerializeAsString());
}

TEST_CASE("ShareCombiner: a share from a non-child, a repeated or a malformed one is an error",
          "[share_tree]") {
  const ShareTree tree(4, 2);
  ShareCombiner root(tree, 0, 4);
  // A subtree's share of worker `rank` alone, moving nothing.
  auto leaf = [](uint32_t rank) {
    proto::ColumnPartials p = Own({}, {});
    p.add_run_ranks(rank);
    p.add_run_sizes(0);
    return p;
  };
  auto stranger = root.AddChild(1, 3, leaf(3));
  REQUIRE_FALSE(stranger.ok());
  CHECK_THAT(stranger.status().message(), Catch::Contains("not a child of worker 0"));
  REQUIRE(root.AddChild(1, 1, leaf(1)).ok());
  auto twice = root.AddChild(1, 1, leaf(1));
  REQUIRE_FALSE(twice.ok());
  CHECK_THAT(twice.status().message(), Catch::Contains("round 1: a second share from worker 1"));
  auto uncovered = leaf(2);
  uncovered.add_ids(9);
  uncovered.add_values(1.0);
  auto bad = root.AddChild(1, 2, uncovered);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("runs of 0 ids for a share of 1"));
  auto not_its = leaf(2);
  not_its.set_run_ranks(0, 1);
  CHECK_FALSE(root.AddChild(1, 2, not_its).ok());
  auto wrong_size = leaf(2);
  wrong_size.mutable_change()->set_size(5);
  CHECK_FALSE(root.AddChild(1, 2, wrong_size).ok());
}

TEST_CASE("MergeTreeShare: the root's runs merge against the chord, each worker's run once",
          "[share_tree]") {
  proto::Chord chord;
  for (uint64_t j : {4, 9, 5}) {
    chord.add_ids(j);
    chord.add_values(1.0);
  }
  const ShareTree tree(3, 2);
  ShareCombiner root(tree, 0, 4);
  REQUIRE(root.AddChild(0, 1, *ShareCombiner(tree, 1, 4).AddOwn(0, Own({9}, {-1.0}, 2, 1.0))).ok());
  REQUIRE(root.AddChild(0, 2, *ShareCombiner(tree, 2, 4).AddOwn(0, Own({}, {}))).ok());
  auto share = root.AddOwn(0, Own({4, 5}, {3.0, 0.5}, 0, 2.0));
  REQUIRE(share);
  DeltaAccumulator sum(4);
  auto merged = MergeTreeShare(7, chord, *share, 3, sum);
  REQUIRE(merged.ok());
  CHECK(merged->deltas == std::vector<double>{2.0, -2.0, -0.5});
  CHECK(merged->moved == 2);
  SECTION("a tree's share without a worker's run") {
    DeltaAccumulator other(4);
    auto missing = MergeTreeShare(7, chord, *share, 4, other);
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.status().message(),
               Catch::Contains("round 7: the tree's share holds the runs of 3 of 4 workers"));
  }
  SECTION("a worker's run twice") {
    auto twice = *share;
    twice.set_run_ranks(2, 1);
    DeltaAccumulator other(4);
    auto r = MergeTreeShare(7, chord, twice, 3, other);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("worker 1's run twice"));
  }
}

}  // namespace
}  // namespace strads
