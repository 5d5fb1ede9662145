#include "scheduler/dependency_filter.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace strads {

ColumnStore::ColumnStore(const SparseColMatrix& x, uint64_t first, uint64_t end)
    : first_(first), end_(end) {
  assert(first <= end && end <= static_cast<uint64_t>(x.cols()));
  const uint64_t count = end - first;
  offset_.reserve(count + 1);
  sq_norm_.reserve(count);
  offset_.push_back(0);
  std::vector<std::pair<int64_t, double>> column;
  for (uint64_t c = 0; c < count; ++c) {
    column.clear();
    for (SparseColMatrix::InnerIterator it(x, static_cast<int64_t>(first + c)); it; ++it) {
      if (it.value() != 0.0) column.emplace_back(it.index(), it.value());
    }
    // Compressed Eigen storage is sorted, but an uncompressed matrix filled by insert() need not
    // be; the merge walk in Correlation relies on the order.
    if (!std::is_sorted(column.begin(), column.end(),
                        [](const auto& l, const auto& r) { return l.first < r.first; })) {
      std::sort(column.begin(), column.end(),
                [](const auto& l, const auto& r) { return l.first < r.first; });
    }
    double sq = 0.0;
    for (const auto& [row, v] : column) sq += v * v;
    sq_norm_.push_back(sq);
    const double inv = sq > 0.0 ? 1.0 / std::sqrt(sq) : 0.0;
    for (const auto& [row, v] : column) {
      row_.push_back(row);
      value_.push_back(v * inv);
    }
    offset_.push_back(row_.size());
  }
}

double ColumnStore::Correlation(uint64_t a, uint64_t b) const {
  assert(Contains(a) && Contains(b));
  uint64_t i = offset_[a - first_];
  const uint64_t i_end = offset_[a - first_ + 1];
  uint64_t k = offset_[b - first_];
  const uint64_t k_end = offset_[b - first_ + 1];
  double dot = 0.0;
  while (i < i_end && k < k_end) {
    if (row_[i] < row_[k]) {
      ++i;
    } else if (row_[k] < row_[i]) {
      ++k;
    } else {
      dot += value_[i++] * value_[k++];
    }
  }
  // Rounding can push |cos| of parallel columns a hair past 1.
  return std::min(1.0, std::abs(dot));
}

std::vector<uint64_t> FilterIndependent(const ColumnStore& store,
                                        std::span<const uint64_t> candidates_in_priority_order,
                                        double rho, size_t max_keep) {
  std::vector<uint64_t> kept;
  for (const uint64_t c : candidates_in_priority_order) {
    if (kept.size() >= max_keep) break;
    assert(store.Contains(c));
    bool independent = true;
    for (const uint64_t k : kept) {
      if (k == c || store.Correlation(c, k) > rho) {
        independent = false;
        break;
      }
    }
    if (independent) kept.push_back(c);
  }
  return kept;
}

}  // namespace strads
