// Weighted sampling of coordinates for the SAP scheduler (paper Section 2.1, Algorithm 1).
//
// SAP draws candidate coefficients with probability p(j) proportional to |delta beta_j| + eta.
// PrioritySampler holds those n non-negative weights in a sum tree (an implicit binary segment
// tree over a power-of-two number of leaves): changing one weight, reading the total and finding
// the index that owns a point of [0, Total()) all cost O(log n), so a scheduler round that draws
// k candidates and reports k new priorities costs O(k log n) however large n is.
//
// Floating drift: Set() recomputes every ancestor as the plain sum of its two children instead of
// adding a delta, so each internal node is always exactly (in floating point) the sum of its
// children and no error accumulates however many updates happen. Find() additionally never
// descends into a subtree whose sum is zero, so it can never return a weight-0 index while
// Total() > 0, even when u is at or beyond Total() after rounding.
//
// Thread-safety: thread-compatible (const methods may run concurrently; anything else needs
// external synchronisation).
#pragma once

#include <algorithm>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

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
  double Get(size_t i) const { return tree_[leaves_ + i]; }

  // Sum of all weights (exactly the floating sum the tree holds at its root). O(1).
  double Total() const { return tree_[1]; }

  // The index i with prefix(i) <= u < prefix(i + 1), where prefix(i) is the sum of weights
  // 0..i-1. O(log n). Never returns an index of weight 0: a u below 0 is treated as 0 and a u at or
  // past Total() (rounding) gives the last index with positive weight.
  // REQUIRES: Total() > 0.
  size_t Find(double u) const;

  // Draws up to k distinct indices, each successive draw proportional to the weights of the
  // indices not yet drawn (successive sampling without replacement). Returns fewer than k only
  // when fewer than k indices have positive weight. The weights are unchanged on return.
  // O(k log n). Rng is a UniformRandomBitGenerator (e.g. std::mt19937_64).
  template <class Rng>
  std::vector<size_t> DrawWithoutReplacement(size_t k, Rng& rng);

 private:
  size_t n_;
  size_t leaves_;             // power of two >= max(n, 1); leaf i lives at tree_[leaves_ + i]
  std::vector<double> tree_;  // 1-based heap layout; tree_[1] is the root, tree_[0] unused
};

template <class Rng>
std::vector<size_t> PrioritySampler::DrawWithoutReplacement(size_t k, Rng& rng) {
  std::vector<size_t> drawn;
  std::vector<double> saved;
  drawn.reserve(std::min(k, n_));
  saved.reserve(std::min(k, n_));
  while (drawn.size() < k && Total() > 0.0) {
    std::uniform_real_distribution<double> dist(0.0, Total());
    const size_t i = Find(dist(rng));
    drawn.push_back(i);
    saved.push_back(Get(i));
    Set(i, 0.0);  // so it cannot be drawn again this round
  }
  for (size_t d = drawn.size(); d-- > 0;) Set(drawn[d], saved[d]);
  return drawn;
}

}  // namespace strads
