#include "engine/priority_sampler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

namespace strads {
namespace {

TEST_CASE("PrioritySampler starts with every weight at the initial weight", "[priority_sampler]") {
  PrioritySampler s(7, 0.5);
  REQUIRE(s.size() == 7);
  for (size_t i = 0; i < 7; ++i) CHECK(s.Get(i) == 0.5);
  CHECK(s.Total() == 3.5);
  CHECK(PrioritySampler(0, 1.0).Total() == 0.0);
}

TEST_CASE("PrioritySampler Total equals the exact sum of weights after any sequence of Sets",
          "[priority_sampler]") {
  std::mt19937_64 rng(7);
  const size_t n = 1000;
  PrioritySampler s(n, 1.0);
  std::vector<double> w(n, 1.0);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::uniform_int_distribution<int> value(0, 1000);
  for (int step = 0; step < 100000; ++step) {
    const size_t i = pick(rng);
    w[i] = value(rng);  // small integers: every partial sum is exact in double
    s.Set(i, w[i]);
  }
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    REQUIRE(s.Get(i) == w[i]);
    sum += w[i];
  }
  CHECK(s.Total() == sum);
}

TEST_CASE("PrioritySampler Total does not drift under many fractional updates",
          "[priority_sampler]") {
  std::mt19937_64 rng(11);
  const size_t n = 513;
  PrioritySampler s(n, 0.0);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::uniform_real_distribution<double> value(0.0, 1e6);
  for (int step = 0; step < 200000; ++step) s.Set(pick(rng), value(rng) * value(rng) * 1e-9);
  // Zero all but one weight: the total must be exactly that weight, not a residue of old values.
  for (size_t i = 0; i < n; ++i) s.Set(i, 0.0);
  s.Set(123, 1e-300);
  CHECK(s.Total() == 1e-300);
  CHECK(s.Find(0.0) == 123);
  CHECK(s.Find(1.0) == 123);
  s.Set(123, 0.0);
  CHECK(s.Total() == 0.0);
}

TEST_CASE("PrioritySampler Find returns the index whose prefix interval holds u, skipping zeros",
          "[priority_sampler]") {
  PrioritySampler s(5, 0.0);
  s.Set(0, 1.0);
  s.Set(2, 2.0);
  s.Set(3, 3.0);  // prefixes: [0,1) -> 0, [1,3) -> 2, [3,6) -> 3; indices 1 and 4 weigh 0
  CHECK(s.Find(0.0) == 0);
  CHECK(s.Find(0.999) == 0);
  CHECK(s.Find(1.0) == 2);
  CHECK(s.Find(2.999) == 2);
  CHECK(s.Find(3.0) == 3);
  CHECK(s.Find(5.999) == 3);
  CHECK(s.Find(6.0) == 3);  // u == Total() after rounding: last positive index, not index 4
  CHECK(s.Find(1e9) == 3);
  CHECK(s.Find(-1.0) == 0);  // below range: first positive index
}

TEST_CASE("PrioritySampler Find never returns a zero-weight index while Total is positive",
          "[priority_sampler]") {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 300;
    PrioritySampler s(n, 0.0);
    // Sparse, wildly scaled weights provoke rounding at every level of the tree.
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 4 == 0)
        s.Set(i, std::ldexp(1.0 + (rng() % 1000) / 1000.0, int(rng() % 200) - 100));
    }
    if (s.Total() == 0.0) s.Set(rng() % n, 1.0);
    std::uniform_real_distribution<double> u(0.0, s.Total());
    for (int d = 0; d < 200; ++d) REQUIRE(s.Get(s.Find(u(rng))) > 0.0);
    REQUIRE(s.Get(s.Find(s.Total())) > 0.0);
    REQUIRE(s.Get(s.Find(std::nextafter(s.Total(), 0.0))) > 0.0);
  }
}

TEST_CASE("PrioritySampler single draws occur with frequency proportional to weight",
          "[priority_sampler]") {
  std::mt19937_64 rng(42);
  const std::vector<double> w = {1, 2, 3, 4, 0, 10, 0.5, 0, 20, 9.5};
  PrioritySampler s(w.size(), 0.0);
  for (size_t i = 0; i < w.size(); ++i) s.Set(i, w[i]);
  const int draws = 200000;
  std::vector<int> count(w.size(), 0);
  for (int d = 0; d < draws; ++d) {
    ++count[s.Find(std::uniform_real_distribution<double>(0.0, s.Total())(rng))];
  }
  for (size_t i = 0; i < w.size(); ++i) {
    const double p = w[i] / s.Total();
    const double sigma = std::sqrt(draws * p * (1 - p));
    INFO("index " << i << " count " << count[i] << " expected " << draws * p);
    CHECK(std::abs(count[i] - draws * p) <= 5 * sigma + 1e-9);
  }
  CHECK(count[4] == 0);
  CHECK(count[7] == 0);
}

TEST_CASE("PrioritySampler SetMany builds the same tree as the Sets one by one, repeats in order",
          "[priority_sampler]") {
  std::mt19937_64 rng(3);
  const size_t n = 5000;  // 5 levels
  PrioritySampler one(n, 1.0), many(n, 1.0);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::uniform_real_distribution<double> weight(0.0, 3.0);
  for (int batch = 0; batch < 50; ++batch) {
    std::vector<size_t> ids(1 + batch * 20);
    std::vector<double> ws(ids.size());
    for (size_t m = 0; m < ids.size(); ++m) {
      ids[m] = m % 7 == 3 ? ids[m - 1] : pick(rng);  // some ids twice in a row
      ws[m] = m % 11 == 0 ? 0.0 : weight(rng);
      one.Set(ids[m], ws[m]);
    }
    many.SetMany(ids, ws);
    REQUIRE(many.Total() == one.Total());  // bit for bit: the same sums in the same order
    for (size_t i = 0; i < n; ++i) REQUIRE(many.Get(i) == one.Get(i));
    for (double u = 0.0; u < one.Total(); u += one.Total() / 97)
      REQUIRE(many.Find(u) == one.Find(u));
  }
}

// Draws `trials` times k indices and puts them back; returns how often each index was drawn.
std::vector<int> SystematicCounts(const std::vector<double>& w, size_t k, int trials) {
  std::mt19937_64 rng(11);
  PrioritySampler s(w.size(), 0.0);
  for (size_t i = 0; i < w.size(); ++i) s.Set(i, w[i]);
  const double total = s.Total();
  std::vector<int> count(w.size(), 0);
  std::vector<double> before;
  for (int t = 0; t < trials; ++t) {
    const auto got = s.TakeSystematic(k, rng, before);
    REQUIRE(got.size() == k);
    REQUIRE(std::set<size_t>(got.begin(), got.end()).size() == k);
    for (size_t m = 0; m < got.size(); ++m) {
      REQUIRE(before[m] == w[got[m]]);
      REQUIRE(s.Get(got[m]) == 0.0);  // kept at 0 until the caller sets it back
      ++count[got[m]];
    }
    s.SetMany(got, before);
    REQUIRE(s.Total() == total);
  }
  return count;
}

TEST_CASE("PrioritySampler TakeSystematic includes each index with probability k w / W",
          "[priority_sampler]") {
  const std::vector<double> w = {1, 2, 3, 0, 4, 6, 1, 2, 5, 2};  // every k w / W below 1
  const double total = 26;
  const size_t k = 3;
  const int trials = 60000;
  const auto count = SystematicCounts(w, k, trials);
  for (size_t i = 0; i < w.size(); ++i) {
    const double p = k * w[i] / total;
    const double sigma = std::sqrt(trials * p * (1 - p));
    INFO("index " << i << " count " << count[i] << " expected " << trials * p);
    CHECK(std::abs(count[i] - trials * p) <= 5 * sigma + 1e-9);
  }
}

TEST_CASE("PrioritySampler TakeSystematic always draws an index heavier than W / k",
          "[priority_sampler]") {
  // Index 5 holds one or two of the three points; a second point is drawn again from the rest.
  const std::vector<double> w = {1, 2, 3, 0, 4, 30, 1, 2, 5, 2};
  const int trials = 20000;
  const auto count = SystematicCounts(w, 3, trials);
  CHECK(count[5] == trials);
  CHECK(count[3] == 0);
  for (size_t i : {0, 1, 2, 4, 6, 7, 8, 9}) CHECK(count[i] > 0);
}

// TakeSystematic by a linear scan of the weights: the same offsets from the same generator, each
// point to the index whose prefix interval holds it (zeros skipped, past the end the last positive
// index), each index once, the shortfall drawn again from the indices left.
std::vector<size_t> LinearSystematic(std::vector<double> w, size_t k, std::mt19937_64& rng) {
  std::vector<size_t> out;
  auto total = [&] {
    double t = 0.0;
    for (double x : w) t += x;
    return t;
  };
  for (double t = total(); out.size() < k && t > 0.0; t = total()) {
    const size_t want = k - out.size();
    const double spacing = t / static_cast<double>(want);
    const double offset = std::uniform_real_distribution<double>(0.0, spacing)(rng);
    size_t last_positive = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] > 0.0) last_positive = i;
    }
    std::vector<size_t> pass;
    size_t i = 0;
    double prefix = 0.0;
    for (size_t m = 0; m < want; ++m) {
      const double u = offset + static_cast<double>(m) * spacing;
      while (i < w.size() && (!(w[i] > 0.0) || prefix + w[i] <= u)) prefix += w[i++];
      const size_t hit = i < w.size() ? i : last_positive;
      if (pass.empty() || pass.back() != hit) pass.push_back(hit);
    }
    for (size_t hit : pass) w[hit] = 0.0;
    out.insert(out.end(), pass.begin(), pass.end());
  }
  return out;
}

TEST_CASE("PrioritySampler TakeSystematic on a deep tree draws exactly what a linear scan does",
          "[priority_sampler]") {
  // 100,000 leaves (6 levels of 8), integer weights (every sum exact, so the tree and the scan
  // compare the same numbers), runs of 1000 zeros covering whole subtrees, heavy indices that
  // hold several points; 4096 points keep thousands of nodes a level in the walk.
  const size_t n = 100000;
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    w[i] = (i / 1000) % 3 == 0 ? 0.0 : static_cast<double>((i * 7919) % 5);
    if (i % 9973 == 1) w[i] = 20000.0;
  }
  PrioritySampler s(n, 0.0);
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  s.SetMany(all, w);
  for (uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed), oracle_rng(seed);
    PrioritySampler copy = s;
    std::vector<double> before;
    const std::vector<size_t> drawn = copy.TakeSystematic(4096, rng, before);
    const std::vector<size_t> expected = LinearSystematic(w, 4096, oracle_rng);
    REQUIRE(drawn.size() == 4096);
    CHECK(drawn == expected);
    REQUIRE(before.size() == drawn.size());
    for (size_t d = 0; d < drawn.size(); ++d) {
      CHECK(before[d] == w[drawn[d]]);
      CHECK(copy.Get(drawn[d]) == 0.0);
    }
  }
}

TEST_CASE(
    "PrioritySampler TakeSystematic with dense points (a leaf scan) draws what a linear scan does",
    "[priority_sampler]") {
  // 20,000 leaves and 8,192 points, a chord's candidates after a check on the 20,000-feature
  // L1-LR problem: the first pass has a point for every 8 leaves or more, so FindSorted scans the
  // leaves; later passes, with fewer points, walk the tree. Integer weights (exact sums, so the
  // scan and the oracle compare the same numbers), zeros at both ends (no point may land in
  // them), heavy indices.
  const size_t n = 20000;
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    w[i] = i < 300 || i >= n - 500 ? 0.0 : static_cast<double>((i * 7919) % 7);
    if (i % 997 == 5) w[i] = 3000.0;
  }
  PrioritySampler s(n, 0.0);
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  s.SetMany(all, w);  // every leaf: the tree is rebuilt level by level
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed), oracle_rng(seed);
    PrioritySampler copy = s;
    std::vector<double> before;
    const std::vector<size_t> drawn = copy.TakeSystematic(8192, rng, before);
    CHECK(drawn == LinearSystematic(w, 8192, oracle_rng));
    for (size_t d = 0; d < drawn.size(); ++d) CHECK(before[d] == w[drawn[d]]);
  }
}

TEST_CASE("PrioritySampler SetMany of most leaves builds the same tree as the Sets one by one",
          "[priority_sampler]") {
  std::mt19937_64 rng(5);
  const size_t n = 3001;  // padded leaves, 5 levels
  PrioritySampler one(n, 0.5), many(n, 0.5);
  std::uniform_real_distribution<double> weight(0.0, 2.0);
  std::vector<size_t> ids;
  std::vector<double> ws;
  for (size_t i = 0; i < n; i += 1 + i % 3) {  // more than one leaf in 8
    ids.push_back(i);
    ws.push_back(i % 5 == 0 ? 0.0 : weight(rng));
    one.Set(i, ws.back());
  }
  many.SetMany(ids, ws);
  REQUIRE(many.Total() == one.Total());  // bit for bit
  for (size_t i = 0; i < n; ++i) REQUIRE(many.Get(i) == one.Get(i));
  for (double u = 0.0; u < one.Total(); u += one.Total() / 101)
    REQUIRE(many.Find(u) == one.Find(u));
}

TEST_CASE("PrioritySampler TakeSystematic returns every positive index when asked for more",
          "[priority_sampler]") {
  std::mt19937_64 rng(2);
  PrioritySampler s(100, 0.0);
  const std::vector<size_t> positive = {2, 7, 8, 9, 63, 64, 99};
  for (size_t i : positive) s.Set(i, i == 7 ? 1e-12 : 1.0 + static_cast<double>(i));
  std::vector<double> before;
  auto got = s.TakeSystematic(50, rng, before);
  std::sort(got.begin(), got.end());
  CHECK(got == positive);
  CHECK(s.Total() == 0.0);
  CHECK(s.TakeSystematic(3, rng, before).empty());
  CHECK(before.empty());
  CHECK(PrioritySampler(0, 1.0).TakeSystematic(3, rng, before).empty());
}

TEST_CASE("PrioritySampler SetMany on a deep tree equals the Sets, for sparse and dense batches",
          "[priority_sampler]") {
  // 100,000 leaves, 6 levels: a batch of 10 to 300 ids is sparse (fewer than one change for every
  // 8 parents) on the lower levels, where SetMany lists the parents without marks and sums a
  // parent once per changed child, and dense on the upper ones; the ids are unsorted and some
  // repeat, not in a row. Then one batch that changes a leaf in eight, dense from the first level.
  std::mt19937_64 rng(5);
  const size_t n = 100000;
  PrioritySampler one(n, 1.0), many(n, 1.0);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::uniform_real_distribution<double> weight(0.0, 3.0);
  auto same = [&] {
    REQUIRE(many.Total() == one.Total());  // bit for bit: the same sums in the same order
    for (size_t i = 0; i < n; ++i) REQUIRE(many.Get(i) == one.Get(i));
    for (double u = 0.0; u < one.Total(); u += one.Total() / 997)
      REQUIRE(many.Find(u) == one.Find(u));
  };
  for (size_t size : {10, 40, 120, 300, 300}) {
    CAPTURE(size);
    std::vector<size_t> ids(size);
    std::vector<double> ws(size);
    for (size_t m = 0; m < size; ++m) {
      ids[m] = m % 9 == 5 ? ids[m / 2] : pick(rng);  // a repeat, apart from its first
      ws[m] = m % 13 == 0 ? 0.0 : weight(rng);
      one.Set(ids[m], ws[m]);
    }
    many.SetMany(ids, ws);
    same();
  }
  std::vector<size_t> ids(n / 8);
  std::vector<double> ws(ids.size());
  for (size_t m = 0; m < ids.size(); ++m) {
    ids[m] = pick(rng);
    ws[m] = weight(rng);
    one.Set(ids[m], ws[m]);
  }
  many.SetMany(ids, ws);
  same();
}

TEST_CASE("PrioritySampler DrawSystematic gives ascending indices, by tree walk and by leaf scan",
          "[priority_sampler]") {
  // Weights in [0.5, 1) over 100,000 leaves: no index holds two of k <= 20,000 points, so the
  // draw takes one pass (ChordBuilder takes such a draw's order as the chord's index order).
  // 1,000 points are found by the tree walk, 20,000 (one for every 5 leaves) by the scan.
  std::mt19937_64 rng(9);
  const size_t n = 100000;
  PrioritySampler s(n, 0.0);
  std::uniform_real_distribution<double> weight(0.5, 1.0);
  for (size_t i = 0; i < n; ++i) s.Set(i, weight(rng));
  for (size_t k : {1000, 20000}) {
    CAPTURE(k);
    std::vector<double> before;
    size_t zeroed = 0;
    const std::vector<size_t> got = s.DrawSystematic(k, rng, before, zeroed);
    REQUIRE(got.size() == k);
    CHECK(zeroed == 0);
    CHECK(std::adjacent_find(got.begin(), got.end(), std::greater_equal<size_t>()) == got.end());
  }
}

}  // namespace
TEST_CASE("PrioritySampler DrawSystematic zeroes only the passes before the last",
          "[priority_sampler]") {
  // One index of weight 1000 and ten of weight 1: five points, 202 apart, put at least four on
  // the heavy index, so the first pass falls short and a second one draws from what is left.
  std::vector<double> w(11, 1.0);
  w[4] = 1000.0;
  PrioritySampler s(w.size(), 0.0);
  for (size_t i = 0; i < w.size(); ++i) s.Set(i, w[i]);
  std::mt19937_64 rng(3);
  std::vector<double> before;
  size_t zeroed = 0;
  const auto got = s.DrawSystematic(5, rng, before, zeroed);
  REQUIRE(got.size() == 5);
  CHECK(std::set<size_t>(got.begin(), got.end()).size() == 5);
  REQUIRE(zeroed >= 1);
  REQUIRE(zeroed < got.size());
  CHECK(got[0] == 4);  // the heavy index, in the first pass
  for (size_t m = 0; m < got.size(); ++m) {
    CAPTURE(m, zeroed);
    CHECK(before[m] == w[got[m]]);
    CHECK(s.Get(got[m]) == (m < zeroed ? 0.0 : w[got[m]]));
  }
}

}  // namespace strads
