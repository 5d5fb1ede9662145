// Weighted sampling of coordinates for the SAP scheduler (paper Section 2.1, Algorithm 1).
//
// SAP draws candidate coefficients with probability p(j) proportional to |delta beta_j| + eta.
// PrioritySampler holds those n non-negative weights in a sum tree: changing one weight, reading
// the total and finding the index that owns a point of [0, Total()) all cost O(log n), so a
// scheduler round that draws k candidates and reports k new priorities costs O(k log n) however
// large n is. The tree is 8-ary: a node's 8 children are contiguous, one 64-byte cache line, so a
// walk touches log_8 n lines instead of the log_2 n scattered ones of a binary tree (n = 100,000:
// 6 levels, not 17; the binary tree's walks were 41 % of a 1-worker Lasso job's time).
//
// Floating drift: Set() recomputes every ancestor as the plain sum of its children instead of
// adding a delta, so each internal node is always exactly (in floating point) the sum of its
// children and no error accumulates however many updates happen. Find() additionally never
// descends into a subtree whose sum is zero, so it can never return a weight-0 index while
// Total() > 0, even when u is at or beyond Total() after rounding.
//
// Thread-safety: thread-compatible (const methods may run concurrently; anything else needs
// external synchronisation).
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "common/huge_pages.h"

namespace strads {

class PrioritySampler {
 public:
  // n indices, each with weight `initial_weight`.
  // REQUIRES: initial_weight is finite and >= 0.
  explicit PrioritySampler(size_t n, double initial_weight);

  size_t size() const { return n_; }

  // Sets the weight of index i. O(log n).
  // REQUIRES: i < size(); w finite and >= 0. (Negative or NaN weights are a caller bug: they
  // assert in debug builds and are stored as 0 in release builds.)
  void Set(size_t i, double w);

  // REQUIRES: i < size().
  double Get(size_t i) const { return level_[0][i]; }

  // Sum of all weights (exactly the floating sum the tree holds at its root). O(1).
  double Total() const { return level_.back()[0]; }

  // The index i with prefix(i) <= u < prefix(i + 1), where prefix(i) is the sum of weights
  // 0..i-1. O(log n). Never returns an index of weight 0: a u below 0 is treated as 0 and a u at or
  // past Total() (rounding) gives the last index with positive weight.
  // REQUIRES: Total() > 0.
  size_t Find(double u) const;

  // Sets weights[m] at ids[m] for every m, in order (a repeated id ends at its last weight): the
  // same tree as that many Set calls, but an ancestor is recomputed once however many of its
  // leaves changed (on a level where changes are sparse, once per changed child, which is rarely
  // more than once), so a chord's worth of updates walks the shared upper levels once.
  // REQUIRES: as Set for each pair; ids.size() == weights.size().
  void SetMany(std::span<const size_t> ids, std::span<const double> weights);

  // Sets every weight: weight_of(i) at i, for i in order (e.g. after an optimality check, which
  // gives every index a new one). The same tree as SetMany over all indices, in one pass over the
  // leaves and one rebuild of the levels above. REQUIRES: each weight as for Set.
  template <class WeightOf>
  void SetAll(WeightOf&& weight_of) {
    double* leaves = level_[0].data();
    for (size_t i = 0; i < n_; ++i) {
      const double w = weight_of(i);
      assert(std::isfinite(w) && w >= 0.0);
      leaves[i] = w >= 0.0 && std::isfinite(w) ? w : 0.0;  // as Set
    }
    RebuildLevelsAbove();
  }

  // Draws up to k distinct indices by systematic sampling (Madow): the points o + m·T/k, m < k,
  // for one uniform offset o in [0, T/k), T = Total(), each select the index whose prefix
  // interval holds them. An index of weight w is drawn with probability min(1, k·w/T), so the
  // draw is proportional to the weights as SAP asks, and all k points are found in one ordered
  // walk of the tree (the upper levels once, the leaves in memory order). An index holding more
  // than one point is drawn once; the shortfall is drawn the same way from the indices left.
  // Each pass's draws are in ascending index order (so a draw of one pass is ascending), after
  // those of the passes before it.
  // Returns fewer than k only when fewer than k indices have positive weight. The drawn indices
  // keep weight 0 on return, and `weights` gets their weights before the draw, in the same order.
  // O(k log n). Rng is a UniformRandomBitGenerator.
  template <class Rng>
  std::vector<size_t> TakeSystematic(size_t k, Rng& rng, std::vector<double>& weights);

  // TakeSystematic without the last step: only the draws of the passes before the last are at
  // weight 0 on return (a later pass must not draw them again), the first `zeroed` of the
  // result; the others still hold their weights. For a caller that keeps some of the draws and
  // gives the others their weights back: it then writes only the weights that change, half the
  // tree updates of zeroing every draw and restoring most of them.
  template <class Rng>
  std::vector<size_t> DrawSystematic(size_t k, Rng& rng, std::vector<double>& weights,
                                     size_t& zeroed);

 private:
  static constexpr size_t kFanout = 8;
  static constexpr size_t kLine = 64;
  // How many nodes ahead FindSorted and SetMany prefetch the line they will read or write:
  // enough misses in flight to hide the memory's latency behind the nodes before them. (8 was
  // enough until Descend made a visit cheaper; at 1,000,000 leaves 16 takes 7 % off the builder's
  // round, 32 nothing more, and at 100,000 none of them differ.)
  static constexpr size_t kAhead = 16;
  static_assert(kFanout * sizeof(double) == kLine, "a node's children fill one cache line");
  static_assert(HugePageAllocator<double>::kAlign == kLine, "levels start on cache lines");

  // Appends to `out`, ascending, every index of positive weight whose prefix interval holds one
  // of the points, given ascending; points past the end (rounding) go to the last positive index.
  // Walks the tree a level at a time, in index order, and prefetches the children of the nodes
  // a few places ahead in the level: on a tree larger than the cache each point costs a cache
  // miss on every lower level, and a depth-first walk waits for them one after another (the
  // draw was 21 % of the paper-shape Lasso job's CPU, 1,000,000 leaves).
  // Where the points are dense (at least one for every kFanout leaves, e.g. a chord's
  // candidates drawn from a partition a few times their number), the lowest level is walked whole
  // anyway, and ScanSorted finds them instead.
  // REQUIRES: Total() > 0; the points finite and >= 0 (a walk never starts a node's interval past
  // its point: Descend relies on it).
  void FindSorted(std::span<const double> points, std::vector<size_t>& out);
  // FindSorted by one scan of the leaves in index order, with the prefix summed leaf by leaf
  // (the tree sums it by subtrees: the two can differ in rounding, at an interval's edge).
  // REQUIRES: Total() > 0.
  void ScanSorted(std::span<const double> points, std::vector<size_t>& out) const;
  // The sum of a node's kFanout children, in order: every internal node is exactly this sum.
  static double ChildSum(const double* child) {
    double sum = 0.0;
    for (size_t c = 0; c < kFanout; ++c) sum += child[c];
    return sum;
  }
  // Recomputes every level above the leaves from the one below, in memory order.
  void RebuildLevelsAbove();

  // Levels start on cache lines (HugePageAllocator), so each node's kFanout children are one
  // line, and the large ones live on huge pages: a draw reads a leaf line per point.
  using Level = HugePageVector<double>;

  // A node of one level with the points of its interval, points[begin, end), its interval
  // starting at prefix `base`.
  struct Visit {
    size_t node;
    double base;
    size_t begin, end;
  };
  // The child of `visit` (its kFanout children at `child`) whose interval holds its one point u,
  // as FindSorted's loop picks it, without a branch that depends on the weights: below the top
  // levels nearly every visit holds one point, and the loop's data-dependent exits were
  // mispredicted at each of them (FindSorted was 38 % of the scheduler's round on 1,000,000
  // leaves, strads-sampler-bench --builder).
  static Visit Descend(const double* child, const Visit& visit, double u);

  size_t n_;
  // level_[0] holds the weights, level_[l + 1][p] the sum of level_[l][kFanout p + c] over the
  // kFanout children c; every level is padded with zeros to a multiple of kFanout, and the last
  // level is the root alone.
  std::vector<Level> level_;
  // FindSorted's scratch: the visits of the level being walked and of the one below.
  std::vector<Visit> visits_, next_visits_;
  // SetMany's scratch: the nodes of one level to recompute, and a mark per node of the level
  // above so each is listed once (on the levels where changes are dense).
  std::vector<size_t> dirty_, parents_;
  std::vector<std::vector<uint8_t>> marked_;
  // TakeSystematic's scratch: the points of a pass and the zero weights of what it drew.
  std::vector<double> points_, zeros_;
};

template <class Rng>
std::vector<size_t> PrioritySampler::DrawSystematic(size_t k, Rng& rng,
                                                    std::vector<double>& weights, size_t& zeroed) {
  std::vector<size_t> drawn;
  weights.clear();
  zeroed = 0;
  drawn.reserve(std::min(k, n_));
  std::vector<double>& points = points_;
  while (drawn.size() < k && Total() > 0.0) {
    // The previous pass fell short: its draws leave the tree before the next one.
    zeros_.assign(drawn.size() - zeroed, 0.0);
    SetMany(std::span(drawn).subspan(zeroed), zeros_);
    zeroed = drawn.size();
    if (!(Total() > 0.0)) break;
    const size_t want = k - drawn.size();
    const double spacing = Total() / static_cast<double>(want);
    const double offset = std::uniform_real_distribution<double>(0.0, spacing)(rng);
    points.resize(want);
    for (size_t m = 0; m < want; ++m) points[m] = offset + static_cast<double>(m) * spacing;
    const size_t before = drawn.size();
    FindSorted(points, drawn);
    for (size_t d = before; d < drawn.size(); ++d) weights.push_back(Get(drawn[d]));
  }
  return drawn;
}

template <class Rng>
std::vector<size_t> PrioritySampler::TakeSystematic(size_t k, Rng& rng,
                                                    std::vector<double>& weights) {
  size_t zeroed = 0;
  std::vector<size_t> drawn = DrawSystematic(k, rng, weights, zeroed);
  zeros_.assign(drawn.size() - zeroed, 0.0);
  SetMany(std::span(drawn).subspan(zeroed), zeros_);
  return drawn;
}

}  // namespace strads
