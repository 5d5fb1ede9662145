#include "engine/priority_sampler.h"

#include <cassert>
#include <cmath>
#include <vector>

namespace strads {

PrioritySampler::PrioritySampler(size_t n, double initial_weight) : n_(n) {
  assert(std::isfinite(initial_weight) && initial_weight >= 0.0);
  if (!(initial_weight >= 0.0) || !std::isfinite(initial_weight)) initial_weight = 0.0;
  const auto padded = [](size_t size) { return (size + kFanout - 1) / kFanout * kFanout; };
  level_.emplace_back(padded(std::max<size_t>(n_, 1)), 0.0);
  std::fill(level_[0].begin(), level_[0].begin() + static_cast<std::ptrdiff_t>(n_), initial_weight);
  while (level_.back().size() > 1) {
    const size_t parents = level_.back().size() / kFanout;
    marked_.emplace_back(parents, 0);
    level_.emplace_back(parents > 1 ? padded(parents) : 1, 0.0);
  }
  RebuildLevelsAbove();
}

void PrioritySampler::RebuildLevelsAbove() {
  for (size_t l = 1; l < level_.size(); ++l) {
    const double* children = level_[l - 1].data();
    const size_t parents = level_[l - 1].size() / kFanout;
    for (size_t p = 0; p < parents; ++p) level_[l][p] = ChildSum(children + kFanout * p);
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
    level_[l][i] = ChildSum(&level_[l - 1][kFanout * i]);
  }
}

void PrioritySampler::SetMany(std::span<const size_t> ids, std::span<const double> weights) {
  assert(ids.size() == weights.size());
  dirty_.clear();
  // As many changes as nodes of the level above the leaves (e.g. every priority after an
  // optimality check): nearly every node is dirty, and recomputing each level whole, in memory
  // order, costs less than listing and marking them (the same sums: the tree is the same).
  const bool whole = ids.size() * kFanout >= n_;
  for (size_t m = 0; m < ids.size(); ++m) {
    double w = weights[m];
    assert(ids[m] < n_);
    assert(std::isfinite(w) && w >= 0.0);
    if (!(w >= 0.0) || !std::isfinite(w)) w = 0.0;
    level_[0][ids[m]] = w;
    if (!whole) dirty_.push_back(ids[m]);
  }
  if (whole) return RebuildLevelsAbove();
  // Level by level: the parents of the nodes that changed, each recomputed as
  // Set does (the exact floating sum of its children).
  // Where the changes are sparse in a level (fewer than one for every kFanout of its parents),
  // a parent rarely has two changed children, and its marks are a cache miss each on a large
  // tree (a seventh of SetMany's time at 1,000,000 leaves): there a parent is listed once per
  // changed child, except where two in a row share it, and one listed twice is summed twice, to
  // the same value.
  for (size_t l = 1; l < level_.size(); ++l) {
    std::vector<uint8_t>& mark = marked_[l - 1];
    const bool sparse = dirty_.size() * kFanout < mark.size();
    parents_.clear();
    if (sparse) {
      for (size_t i : dirty_) {
        const size_t p = i / kFanout;
        if (parents_.empty() || parents_.back() != p) parents_.push_back(p);
      }
    } else {
      for (size_t i : dirty_) {
        const size_t p = i / kFanout;
        if (!mark[p]) {
          mark[p] = 1;
          parents_.push_back(p);
        }
      }
    }
    // The children were just written (they are the changed nodes of the level below); the
    // parent each sum goes to is the line still to fetch.
    const double* children = level_[l - 1].data();
    double* sums = level_[l].data();
    for (size_t k = 0; k < parents_.size(); ++k) {
      if (k + kAhead < parents_.size()) __builtin_prefetch(sums + parents_[k + kAhead], 1);
      const size_t p = parents_[k];
      if (!sparse) mark[p] = 0;
      sums[p] = ChildSum(children + kFanout * p);
    }
    dirty_.swap(parents_);
  }
}

void PrioritySampler::FindSorted(std::span<const double> points, std::vector<size_t>& out) {
  assert(Total() > 0.0);
  if (points.empty()) return;
  if (points.size() * kFanout >= n_) return ScanSorted(points, out);
  visits_.assign(1, Visit{0, 0.0, 0, points.size()});
  for (size_t level = level_.size() - 1; level > 0; --level) {
    const double* children = level_[level - 1].data();
    next_visits_.clear();
    for (size_t v = 0; v < visits_.size(); ++v) {
      if (v + kAhead < visits_.size()) {
        __builtin_prefetch(children + kFanout * visits_[v + kAhead].node);
      }
      const Visit& visit = visits_[v];
      const double* child = children + kFanout * visit.node;
      if (visit.end - visit.begin == 1) {
        next_visits_.push_back(Descend(child, visit, points[visit.begin]));
        continue;
      }
      // As in Find: a child of zero sum gets no point, and the points past the last positive
      // child (rounding) are that child's.
      size_t last_positive = 0;
      for (size_t c = 0; c < kFanout; ++c) {
        if (child[c] > 0.0) last_positive = c;
      }
      double base = visit.base;
      size_t m = visit.begin;
      for (size_t c = 0; c <= last_positive && m < visit.end; ++c) {
        if (!(child[c] > 0.0)) continue;
        const double end = base + child[c];
        size_t stop = visit.end;
        if (c != last_positive) {
          stop = m;
          while (stop < visit.end && points[stop] < end) ++stop;
        }
        if (stop > m) next_visits_.push_back(Visit{kFanout * visit.node + c, base, m, stop});
        m = stop;
        base = end;
      }
    }
    visits_.swap(next_visits_);
  }
  for (const Visit& leaf : visits_) out.push_back(leaf.node);  // however many points it holds
}

PrioritySampler::Visit PrioritySampler::Descend(const double* child, const Visit& visit, double u) {
  // The children's interval ends, summed in order from the node's base: a zero child adds
  // exactly 0, so these are the bases and ends FindSorted's loop computes over the positive
  // children. They never decrease, and u >= base, so the first child whose end passes u is
  // the number of ends at or below u, and is positive (a zero child ends where the one before it
  // does). None (u past the end, rounding): the last positive child.
  double ends[kFanout];
  double sum = visit.base;
  size_t below = 0, last_positive = 0;
  for (size_t c = 0; c < kFanout; ++c) {
    sum += child[c];
    ends[c] = sum;
    below += ends[c] <= u ? 1 : 0;
    last_positive = child[c] > 0.0 ? c : last_positive;
  }
  const size_t pick = below < kFanout ? below : last_positive;
  const double base = pick > 0 ? ends[pick - 1] : visit.base;
  return Visit{kFanout * visit.node + pick, base, visit.begin, visit.end};
}

void PrioritySampler::ScanSorted(std::span<const double> points, std::vector<size_t>& out) const {
  const double* w = level_[0].data();
  size_t last_positive = n_;  // Total() > 0: some leaf is positive
  while (last_positive > 0 && !(w[last_positive - 1] > 0.0)) --last_positive;
  --last_positive;
  double base = 0.0;
  size_t m = 0;
  for (size_t i = 0; i < last_positive && m < points.size(); ++i) {
    if (!(w[i] > 0.0)) continue;
    const double end = base + w[i];
    if (points[m] < end) {
      out.push_back(i);
      while (m < points.size() && points[m] < end) ++m;
    }
    base = end;
  }
  if (m < points.size()) out.push_back(last_positive);  // and the points past the end (rounding)
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
