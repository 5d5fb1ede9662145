#include "common/partitioner.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

namespace strads {
namespace {

uint64_t PartWeight(const std::vector<uint64_t>& w, const std::vector<uint64_t>& starts, size_t p) {
  return std::accumulate(w.begin() + starts[p], w.begin() + starts[p + 1], uint64_t{0});
}

TEST_CASE("PartitionByWeight splits equal weights into near-equal contiguous ranges",
          "[partitioner]") {
  const std::vector<uint64_t> w(10, 1);
  CHECK(PartitionByWeight(w, 1) == std::vector<uint64_t>{0, 10});
  CHECK(PartitionByWeight(w, 2) == std::vector<uint64_t>{0, 5, 10});
  CHECK(PartitionByWeight(w, 3) == std::vector<uint64_t>{0, 3, 7, 10});
  CHECK(PartitionByWeight(w, 10) == std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
}

TEST_CASE("PartitionByWeight balances by weight, not by count", "[partitioner]") {
  // One heavy column at the front: it gets a part of its own.
  const std::vector<uint64_t> w = {90, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const auto s = PartitionByWeight(w, 2);
  CHECK(s == std::vector<uint64_t>{0, 1, 11});
}

TEST_CASE("PartitionByWeight keeps every part non-empty when there are enough indices",
          "[partitioner]") {
  // All the weight at the end would otherwise pull every boundary onto the last index.
  std::vector<uint64_t> w(8, 0);
  w[7] = 1000;
  const auto s = PartitionByWeight(w, 8);
  CHECK(s == std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  const std::vector<uint64_t> zeros(5, 0);
  const auto z = PartitionByWeight(zeros, 3);
  for (size_t p = 0; p < 3; ++p) CHECK(z[p] < z[p + 1]);
}

TEST_CASE("PartitionByWeight with fewer indices than parts gives the first parts one index each",
          "[partitioner]") {
  const std::vector<uint64_t> w = {5, 7};
  CHECK(PartitionByWeight(w, 4) == std::vector<uint64_t>{0, 1, 2, 2, 2});
  CHECK(PartitionByWeight({}, 3) == std::vector<uint64_t>{0, 0, 0, 0});
}

TEST_CASE("PartitionByWeight on random weights: valid, deterministic, within one element of ideal",
          "[partitioner]") {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t n = rng() % 300;
    const uint32_t parts = 1 + rng() % 20;
    std::vector<uint64_t> w(n);
    const uint64_t spread = 1 + rng() % 1000;
    for (auto& x : w) x = 1 + rng() % spread;  // e.g. nnz + 1
    const auto s = PartitionByWeight(w, parts);
    REQUIRE(s.size() == parts + 1);
    REQUIRE(s.front() == 0);
    REQUIRE(s.back() == n);
    REQUIRE(std::is_sorted(s.begin(), s.end()));
    REQUIRE(PartitionByWeight(w, parts) == s);
    if (n < parts) continue;
    const uint64_t total = std::accumulate(w.begin(), w.end(), uint64_t{0});
    const uint64_t heaviest = *std::max_element(w.begin(), w.end());
    for (size_t p = 0; p < parts; ++p) {
      REQUIRE(s[p] < s[p + 1]);
      // A part is either a single index or holds at most its ideal share plus one element.
      const uint64_t pw = PartWeight(w, s, p);
      INFO("n " << n << " parts " << parts << " part " << p << " weight " << pw);
      REQUIRE((s[p + 1] - s[p] == 1 || pw * parts <= total + heaviest * parts));
    }
  }
}

TEST_CASE("NestedPartitionByWeight keeps the outer parts and splits each into balanced blocks",
          "[partitioner]") {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> w(1000);
  for (auto& x : w) x = rng() % 50;
  for (uint32_t outer : {1u, 2u, 3u})
    for (uint32_t inner : {1u, 2u, 4u}) {
      CAPTURE(outer, inner);
      const auto nested = NestedPartitionByWeight(w, outer, inner);
      const auto plain = PartitionByWeight(w, outer);
      REQUIRE(nested.size() == size_t(outer) * inner + 1);
      REQUIRE(std::is_sorted(nested.begin(), nested.end()));
      for (uint32_t o = 0; o <= outer; ++o) CHECK(nested[size_t(o) * inner] == plain[o]);
      for (uint32_t o = 0; o < outer; ++o) {
        const uint64_t part = PartWeight(w, plain, o);
        for (uint32_t i = 0; i < inner; ++i) {
          const uint64_t block = PartWeight(w, nested, size_t(o) * inner + i);
          CHECK(block <= part / inner + 50);
        }
      }
    }
}

}  // namespace
}  // namespace strads
