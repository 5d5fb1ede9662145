#include "engine/priority_sampler.h"

#include <cassert>
#include <cmath>

namespace strads {

PrioritySampler::PrioritySampler(size_t n, double initial_weight) : n_(n), leaves_(1) {
  assert(std::isfinite(initial_weight) && initial_weight >= 0.0);
  if (!(initial_weight >= 0.0) || !std::isfinite(initial_weight)) initial_weight = 0.0;
  while (leaves_ < n_) leaves_ *= 2;
  tree_.assign(2 * leaves_, 0.0);
  for (size_t i = 0; i < n_; ++i) tree_[leaves_ + i] = initial_weight;
  for (size_t p = leaves_ - 1; p >= 1; --p) tree_[p] = tree_[2 * p] + tree_[2 * p + 1];
}

void PrioritySampler::Set(size_t i, double w) {
  assert(i < n_);
  assert(std::isfinite(w) && w >= 0.0);
  if (!(w >= 0.0) || !std::isfinite(w)) w = 0.0;
  size_t p = leaves_ + i;
  tree_[p] = w;
  // Recompute rather than add a delta: each node stays the exact floating sum of its children.
  for (p /= 2; p >= 1; p /= 2) tree_[p] = tree_[2 * p] + tree_[2 * p + 1];
}

size_t PrioritySampler::Find(double u) const {
  assert(Total() > 0.0);
  if (!(u >= 0.0)) u = 0.0;
  size_t p = 1;
  while (p < leaves_) {
    const double left = tree_[2 * p];
    const double right = tree_[2 * p + 1];
    // Go left when u falls there, or when the right side is empty (u >= Total() after rounding);
    // never enter a zero-sum subtree. Node p has a positive sum, so one side is positive.
    if (left > 0.0 && (u < left || !(right > 0.0))) {
      p = 2 * p;
    } else {
      u -= left;
      p = 2 * p + 1;
    }
  }
  return p - leaves_;
}

}  // namespace strads
