// AscendingIds (scheduler/ascending_ids.h) against std::sort, on both of its paths.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "scheduler/ascending_ids.h"

namespace strads {
namespace {

// `count` distinct ids of [first, first + size), shuffled.
std::vector<uint64_t> Shuffled(uint64_t first, uint64_t size, size_t count, std::mt19937_64& rng) {
  std::vector<uint64_t> all(size);
  std::iota(all.begin(), all.end(), first);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(count);
  return all;
}

TEST_CASE("AscendingIds: the ids of a partition ascending, by bitmap and by sort",
          "[ascending_ids]") {
  std::mt19937_64 rng(7);
  struct Case {
    uint64_t first, size;
    size_t count;
    bool bitmap;
  };
  // A partition of 20,000 with a chord of 4,096 (the L1-LR case) and of 1,000 with 50 go by the
  // bitmap; 1,000,000 with 8 by the sort. Sizes off a word's multiple and ids at both ends.
  for (const Case& c :
       {Case{0, 20000, 4096, true}, Case{12345, 1000, 50, true}, Case{5, 1000000, 8, false},
        Case{64, 130, 130, true}, Case{3, 1, 1, false}}) {
    CAPTURE(c.first, c.size, c.count);
    AscendingIds order(c.first, c.first + c.size);
    REQUIRE(order.UsesBitmap(c.count) == c.bitmap);
    for (int round = 0; round < 3; ++round) {  // the scratch is clean after each call
      std::vector<uint64_t> ids = Shuffled(c.first, c.size, c.count, rng);
      std::vector<uint64_t> expected = ids;
      std::sort(expected.begin(), expected.end());
      order.Sort(ids);
      CHECK(ids == expected);
    }
  }
}

TEST_CASE("AscendingIds: an empty chord stays empty", "[ascending_ids]") {
  AscendingIds order(10, 20);
  std::vector<uint64_t> ids;
  order.Sort(ids);
  CHECK(ids.empty());
}

}  // namespace
}  // namespace strads
