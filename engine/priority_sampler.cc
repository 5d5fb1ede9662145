#include "engine/priority_sampler.h"

#include <cassert>
#include <cmath>

namespace strads {

PrioritySampler::PrioritySampler(size_t n, double initial_weight) : n_(n) {
  assert(std::isfinite(initial_weight) && initial_weight >= 0.0);
  if (!(initial_weight >= 0.0) || !std::isfinite(initial_weight)) initial_weight = 0.0;
  const auto padded = [](size_t size) { return (size + kFanout - 1) / kFanout * kFanout; };
  level_.emplace_back(padded(std::max<size_t>(n_, 1)), 0.0);
  std::fill(level_[0].begin(), level_[0].begin() + static_cast<std::ptrdiff_t>(n_), initial_weight);
  while (level_.back().size() > 1) {
    const std::vector<double>& below = level_.back();
    const size_t parents = below.size() / kFanout;
    std::vector<double> sums(parents > 1 ? padded(parents) : 1, 0.0);
    for (size_t p = 0; p < parents; ++p) {
      double sum = 0.0;
      for (size_t c = 0; c < kFanout; ++c) sum += below[kFanout * p + c];
      sums[p] = sum;
    }
    level_.push_back(std::move(sums));
  }
}

void PrioritySampler::Set(size_t i, double w) {
  assert(i < n_);
  assert(std::isfinite(w) && w >= 0.0);
  if (!(w >= 0.0) || !std::isfinite(w)) w = 0.0;
  level_[0][i] = w;
  // Recompute rather than add a delta: each node stays the exact floating sum of its children.
  for (size_t l = 1; l < level_.size(); ++l) {
    i /= kFanout;
    const double* child = &level_[l - 1][kFanout * i];
    double sum = 0.0;
    for (size_t c = 0; c < kFanout; ++c) sum += child[c];
    level_[l][i] = sum;
  }
}

size_t PrioritySampler::Find(double u) const {
  assert(Total() > 0.0);
  if (!(u >= 0.0)) u = 0.0;
  size_t p = 0;  // node at level l
  for (size_t l = level_.size() - 1; l-- > 0;) {
    const double* child = &level_[l][kFanout * p];
    // The child whose interval holds u; never a zero-sum one: past the end (rounding), the last
    // positive child. Node p has a positive sum, so some child is positive.
    size_t pick = kFanout, last_positive = 0;
    for (size_t c = 0; c < kFanout; ++c) {
      if (!(child[c] > 0.0)) continue;
      last_positive = c;
      if (u < child[c]) {
        pick = c;
        break;
      }
      u -= child[c];
    }
    p = kFanout * p + (pick < kFanout ? pick : last_positive);
  }
  return p;
}

}  // namespace strads
