#include "scheduler/dependency_filter.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace strads {

ColumnStore::ColumnStore(const SparseColMatrix& x, uint64_t first, uint64_t end)
    : first_(first), end_(end), num_rows_(x.rows()) {
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

DependencyFilter::DependencyFilter(const ColumnStore& store)
    : store_(store), head_(static_cast<size_t>(store.num_rows()), -1) {}

void DependencyFilter::Index(uint64_t column, uint32_t owner) {
  const auto rows = store_.Rows(column);
  const auto values = store_.Values(column);
  for (size_t n = 0; n < rows.size(); ++n) {
    const int64_t row = rows[n];
    if (head_[row] < 0) touched_.push_back(row);
    next_.push_back(head_[row]);
    owner_.push_back(owner);
    value_.push_back(values[n]);
    head_[row] = static_cast<int64_t>(next_.size()) - 1;
  }
}

std::vector<uint64_t> DependencyFilter::Filter(std::span<const uint64_t> candidates, double rho,
                                               size_t max_keep,
                                               std::span<const uint64_t> already_running) {
  std::vector<uint64_t> kept;
  next_.clear();
  owner_.clear();
  value_.clear();
  uint32_t owners = 0;
  for (const uint64_t r : already_running) Index(r, owners++);
  for (const uint64_t c : candidates) {
    if (kept.size() >= max_keep) break;
    assert(store_.Contains(c));
    if (std::find(kept.begin(), kept.end(), c) != kept.end() ||
        std::find(already_running.begin(), already_running.end(), c) != already_running.end()) {
      continue;
    }
    const auto rows = store_.Rows(c);
    const auto values = store_.Values(c);
    acc_.assign(owners, 0.0);
    for (size_t n = 0; n < rows.size(); ++n) {
      for (int64_t e = head_[rows[n]]; e >= 0; e = next_[e]) acc_[owner_[e]] += values[n] * value_[e];
    }
    bool independent = true;
    for (double dot : acc_) {
      // Rounding can push |cos| of parallel columns a hair past 1.
      if (std::min(1.0, std::abs(dot)) > rho) {
        independent = false;
        break;
      }
    }
    if (!independent) continue;
    kept.push_back(c);
    Index(c, owners++);
  }
  for (int64_t row : touched_) head_[row] = -1;
  touched_.clear();
  return kept;
}

std::vector<uint64_t> FilterIndependent(const ColumnStore& store,
                                        std::span<const uint64_t> candidates_in_priority_order,
                                        double rho, size_t max_keep) {
  DependencyFilter filter(store);
  return filter.Filter(candidates_in_priority_order, rho, max_keep);
}

}  // namespace strads
