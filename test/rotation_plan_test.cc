#include "engine/rotation_plan.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

namespace strads {
namespace {

// Zipf work with exponent 1, most frequent item first (a frequency-sorted vocabulary): item i
// costs about 10^6 / (i + 1) tokens, plus one so every item costs something.
std::vector<uint64_t> ZipfWork(uint64_t n) {
  std::vector<uint64_t> w(n);
  for (uint64_t i = 0; i < n; ++i)
    w[i] = static_cast<uint64_t>(1e6 / static_cast<double>(i + 1)) + 1;
  return w;
}

std::vector<std::pair<uint32_t, uint32_t>> PlanShapes() {
  std::vector<std::pair<uint32_t, uint32_t>> shapes;
  for (uint32_t p = 1; p <= 17; ++p) {
    for (uint32_t k = 1; k <= 5; ++k) shapes.emplace_back(p, k);
  }
  shapes.emplace_back(64, 1);
  shapes.emplace_back(64, 4);
  shapes.emplace_back(100, 3);
  return shapes;
}

TEST_CASE("RotationPlan never gives one block to two workers in a sub-round", "[rotation_plan]") {
  for (auto [p, k] : PlanShapes()) {
    const RotationPlan plan(p, k);
    INFO("workers=" << p << " blocks_per_worker=" << k);
    REQUIRE(plan.blocks() == p * k);
    REQUIRE(plan.sub_rounds() == p * k);
    for (uint32_t r = 0; r < plan.sub_rounds(); ++r) {
      std::set<uint32_t> held;
      for (uint32_t w = 0; w < p; ++w) {
        const uint32_t b = plan.Block(r, w);
        REQUIRE(b < plan.blocks());
        REQUIRE(held.insert(b).second);
      }
    }
  }
}

TEST_CASE("RotationPlan has every worker visit every block exactly once per iteration",
          "[rotation_plan]") {
  for (auto [p, k] : PlanShapes()) {
    const RotationPlan plan(p, k);
    INFO("workers=" << p << " blocks_per_worker=" << k);
    for (uint32_t w = 0; w < p; ++w) {
      std::vector<int> seen(plan.blocks(), 0);
      for (uint32_t r = 0; r < plan.sub_rounds(); ++r) ++seen[plan.Block(r, w)];
      REQUIRE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    }
  }
}

TEST_CASE("RotationPlan Holder is the inverse of Block and idles B - P blocks per sub-round",
          "[rotation_plan]") {
  for (auto [p, k] : PlanShapes()) {
    const RotationPlan plan(p, k);
    INFO("workers=" << p << " blocks_per_worker=" << k);
    for (uint32_t r = 0; r < plan.sub_rounds(); ++r) {
      uint32_t idle = 0;
      for (uint32_t b = 0; b < plan.blocks(); ++b) {
        const auto h = plan.Holder(r, b);
        if (!h) {
          ++idle;
          continue;
        }
        REQUIRE(*h < p);
        REQUIRE(plan.Block(r, *h) == b);
      }
      REQUIRE(idle == plan.blocks() - p);
    }
  }
}

TEST_CASE("RotationPlan NextVisit is the block's first holder in a later sub-round, on the ring",
          "[rotation_plan]") {
  for (auto [p, k] : PlanShapes()) {
    const RotationPlan plan(p, k);
    const uint32_t n = plan.sub_rounds();
    INFO("workers=" << p << " blocks_per_worker=" << k);
    for (uint32_t r = 0; r < n; ++r) {
      for (uint32_t b = 0; b < plan.blocks(); ++b) {
        // Brute force: walk forward (wrapping into the next iteration) to the first holder.
        uint32_t t = 1;
        while (!plan.Holder((r + t) % n, b)) ++t;
        REQUIRE(t <= k);
        const RotationPlan::Visit v = plan.NextVisit(r, b);
        REQUIRE(v.sub_round == (r + t) % n);
        REQUIRE(v.worker == *plan.Holder(v.sub_round, b));
        REQUIRE(plan.Block(v.sub_round, v.worker) == b);
        REQUIRE(plan.NextWorker(r, b) == v.worker);
        if (const auto h = plan.Holder(r, b)) {
          // A held block comes back exactly K sub-rounds later, one step down the ring.
          REQUIRE(t == k);
          REQUIRE(v.worker == plan.SendsTo(*h));
          REQUIRE(plan.ReceivesFrom(v.worker) == *h);
        }
      }
    }
  }
}

TEST_CASE("RotationPlan matches the header's diagram", "[rotation_plan]") {
  const RotationPlan three(3);
  CHECK(three.Block(0, 0) == 0);
  CHECK(three.Block(1, 2) == 0);
  CHECK(three.Block(2, 1) == 0);
  CHECK(three.NextWorker(0, 0) == 2);
  CHECK(three.NextWorker(2, 0) == 0);  // wraps into the next iteration
  const RotationPlan two_by_two(2, 2);
  CHECK(two_by_two.Block(0, 1) == 2);
  CHECK(two_by_two.Block(3, 1) == 1);
  CHECK_FALSE(two_by_two.Holder(1, 0).has_value());
  CHECK(two_by_two.NextVisit(0, 2).sub_round == 2);
  CHECK(two_by_two.NextVisit(0, 2).worker == 0);
  const RotationPlan single(1);
  CHECK(single.Block(0, 0) == 0);
  CHECK(single.NextVisit(0, 0).sub_round == 0);
  CHECK(single.NextWorker(0, 0) == 0);
}

void RequireValidBoundaries(const std::vector<uint64_t>& b, uint64_t n, uint32_t blocks) {
  REQUIRE(b.size() == blocks + 1);
  REQUIRE(b.front() == 0);
  REQUIRE(b.back() == n);
  REQUIRE(std::is_sorted(b.begin(), b.end()));
}

TEST_CASE("BlockBoundaries are contiguous and cover every item, for both balances",
          "[rotation_plan]") {
  for (uint64_t n : {0u, 1u, 5u, 16u, 17u, 1000u}) {
    const auto w = ZipfWork(n);
    for (uint32_t blocks : {1u, 2u, 3u, 7u, 16u, 40u}) {
      for (Balance bal : {Balance::kWork, Balance::kUniform}) {
        INFO("n=" << n << " blocks=" << blocks << " uniform=" << (bal == Balance::kUniform));
        const auto b = BlockBoundaries(w, blocks, bal);
        RequireValidBoundaries(b, n, blocks);
        const auto bw = BlockWork(w, b);
        REQUIRE(std::accumulate(bw.begin(), bw.end(), uint64_t{0}) ==
                std::accumulate(w.begin(), w.end(), uint64_t{0}));
        if (n >= blocks) {
          for (uint32_t k = 0; k < blocks; ++k) REQUIRE(b[k] < b[k + 1]);
        }
      }
    }
  }
}

TEST_CASE("BlockBoundaries uniform block sizes differ by at most one", "[rotation_plan]") {
  for (uint64_t n : {0u, 1u, 7u, 64u, 99u, 1000u, 12345u}) {
    const std::vector<uint64_t> w(n, 3);
    for (uint32_t blocks : {1u, 2u, 3u, 8u, 13u, 64u, 200u}) {
      INFO("n=" << n << " blocks=" << blocks);
      const auto b = BlockBoundaries(w, blocks, Balance::kUniform);
      RequireValidBoundaries(b, n, blocks);
      uint64_t lo = UINT64_MAX, hi = 0;
      for (uint32_t k = 0; k < blocks; ++k) {
        lo = std::min(lo, b[k + 1] - b[k]);
        hi = std::max(hi, b[k + 1] - b[k]);
      }
      REQUIRE(hi - lo <= 1);
    }
  }
}

TEST_CASE("BlockBoundaries by work balances a Zipf vocabulary far better than uniform",
          "[rotation_plan]") {
  // 100k items, 8 blocks: uniform puts most of the work in block 0 (measured 6.60x the mean);
  // by-work is within 2% of perfect (measured 1.013).
  const auto w = ZipfWork(100000);
  const double by_work = Imbalance(BlockWork(w, BlockBoundaries(w, 8, Balance::kWork)));
  const double uniform = Imbalance(BlockWork(w, BlockBoundaries(w, 8, Balance::kUniform)));
  CHECK(by_work < 1.05);
  CHECK(uniform > 6.0);
  CHECK(uniform > 5.0 * by_work);
}

TEST_CASE("BlockBoundaries by work keeps every block within one item's work of the mean",
          "[rotation_plan]") {
  // With many blocks the most frequent item alone exceeds the mean; no contiguous cut can do
  // better than that item, and by-work must not do worse than mean + heaviest item.
  const auto w = ZipfWork(100000);
  const double total = static_cast<double>(std::accumulate(w.begin(), w.end(), uint64_t{0}));
  const double heaviest = static_cast<double>(*std::max_element(w.begin(), w.end()));
  for (uint32_t blocks : {2u, 4u, 8u, 16u, 32u, 64u, 256u}) {
    INFO("blocks=" << blocks);
    const auto bw = BlockWork(w, BlockBoundaries(w, blocks, Balance::kWork));
    const double mean = total / blocks;
    REQUIRE(static_cast<double>(*std::max_element(bw.begin(), bw.end())) <= mean + heaviest);
  }
}

TEST_CASE("Imbalance is max over mean, and 1 when there is nothing to balance", "[rotation_plan]") {
  CHECK(Imbalance(std::vector<uint64_t>{5, 5, 5}) == Approx(1.0));
  CHECK(Imbalance(std::vector<uint64_t>{1, 3}) == Approx(1.5));
  CHECK(Imbalance(std::vector<uint64_t>{0, 0, 12}) == Approx(3.0));
  CHECK(Imbalance(std::vector<uint64_t>{}) == 1.0);
  CHECK(Imbalance(std::vector<uint64_t>{0, 0}) == 1.0);
}

TEST_CASE("ParseBalance accepts work and uniform and names anything else", "[rotation_plan]") {
  REQUIRE(ParseBalance("work").ok());
  CHECK(ParseBalance("work").value() == Balance::kWork);
  REQUIRE(ParseBalance("uniform").ok());
  CHECK(ParseBalance("uniform").value() == Balance::kUniform);
  for (const char* bad : {"", "Work", "tokens", "uniform "}) {
    const auto r = ParseBalance(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::kInvalidArgument);
    // Built with += : GCC 12 gives a false -Wrestrict on "'" + std::string(...) here.
    std::string quoted = "'";
    quoted += bad;
    quoted += "'";
    CHECK(r.status().message().find(quoted) != std::string::npos);
  }
}

}  // namespace
}  // namespace strads
