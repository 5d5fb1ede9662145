#include "engine/dependency_filter.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "engine/neighbour_lists.h"

namespace strads {

ColumnStore::ColumnStore(uint64_t first, uint64_t end, int64_t num_rows,
                         std::vector<double> sq_norms)
    : first_(first),
      end_(end),
      num_rows_(num_rows),
      offset_(end - first + 1, 0),
      sq_norm_(std::move(sq_norms)) {
  assert(first <= end && sq_norm_.size() == end - first);
}

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
    : store_(store),
      head_(static_cast<size_t>(store.num_rows()), -1),
      indexed_(store.end() - store.first(), 0),
      running_(store.end() - store.first(), 0) {}

void DependencyFilter::SetGroups(std::vector<uint32_t> group_by_local) {
  assert(group_by_local.size() == indexed_.size());
  group_ = std::move(group_by_local);
  uint32_t groups = 0;
  for (uint32_t g : group_) groups = std::max(groups, g + 1);
  group_count_.assign(groups, 0);
}

uint32_t DependencyFilter::Group(uint64_t column) const {
  return group_.empty() ? kNoGroup : group_[column - store_.first()];
}

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
  // Every per-candidate step below costs O(entries walked), never O(columns indexed): the
  // accumulator is reset only where it was touched, and "already indexed" is a stamp per column.
  if (++epoch_ == 0) {  // wrapped: stale stamps could collide
    std::fill(indexed_.begin(), indexed_.end(), 0);
    std::fill(running_.begin(), running_.end(), 0);
    epoch_ = 1;
  }
  std::vector<uint64_t> kept;
  if (rho >= 1.0 || (group_count_.size() == 1 && already_running.empty())) {
    // |corr| <= 1 always holds; or one group and nothing running: no pair needs checking.
    for (const uint64_t c : candidates) {
      if (kept.size() >= max_keep) break;
      if (indexed_[c - store_.first()] == epoch_) continue;  // repeated
      indexed_[c - store_.first()] = epoch_;
      kept.push_back(c);
    }
    return kept;
  }
  if (lists_ != nullptr && rho == lists_rho_) {
    return FilterByLists(candidates, max_keep, already_running);
  }
  if (UseDenseIndex(max_keep, already_running.size())) {
    return FilterByDenseIndex(candidates, rho, max_keep, already_running);
  }
  next_.clear();
  owner_.clear();
  value_.clear();
  acc_.clear();
  owner_group_.clear();
  std::fill(group_count_.begin(), group_count_.end(), 0);
  uint32_t owners = 0;
  auto index = [&](uint64_t column, uint32_t group) {
    indexed_[column - store_.first()] = epoch_;
    acc_.push_back(0.0);
    owner_group_.push_back(group);
    if (group != kNoGroup) ++group_count_[group];
    Index(column, owners++);
  };
  for (const uint64_t r : already_running) {
    if (indexed_[r - store_.first()] != epoch_) index(r, kNoGroup);
  }
  // The work bound (see the header): entries of the index walked, over all candidates.
  uint64_t budget = kMinWork, work = 0;
  for (const uint64_t c : candidates) budget += kWorkPerEntry * store_.Nnz(c);
  for (const uint64_t c : candidates) {
    if (kept.size() >= max_keep || work > budget) break;
    assert(store_.Contains(c));
    if (indexed_[c - store_.first()] == epoch_) continue;  // kept or running already
    const uint32_t group = Group(c);
    if (group != kNoGroup && group_count_[group] == owners) {
      // Everything indexed is of c's own group: nothing to check against.
      kept.push_back(c);
      index(c, group);
      continue;
    }
    const auto rows = store_.Rows(c);
    const auto values = store_.Values(c);
    bool independent = true;
    for (size_t n = 0; n < rows.size(); ++n) {
      for (int64_t e = head_[rows[n]]; e >= 0; e = next_[e]) {
        ++work;
        double& dot = acc_[owner_[e]];
        if (dot == 0.0) touched_owners_.push_back(owner_[e]);
        dot += values[n] * value_[e];
      }
    }
    for (uint32_t o : touched_owners_) {
      // Rounding can push |cos| of parallel columns a hair past 1.
      if (std::min(1.0, std::abs(acc_[o])) > rho &&
          (group == kNoGroup || owner_group_[o] != group)) {
        independent = false;
      }
      acc_[o] = 0.0;
    }
    touched_owners_.clear();
    if (!independent) continue;
    kept.push_back(c);
    index(c, group);
  }
  for (int64_t row : touched_) head_[row] = -1;
  touched_.clear();
  return kept;
}

std::vector<uint64_t> DependencyFilter::FilterByLists(std::span<const uint64_t> candidates,
                                                      size_t max_keep,
                                                      std::span<const uint64_t> already_running) {
  // indexed_ marks the kept and the running parameters of this call, running_ the running ones:
  // a candidate conflicts with a marked neighbour that is running (updated against an older
  // state, whatever its group) or of another group (same-group updates are sequential, exact).
  const uint64_t first = store_.first();
  for (const uint64_t r : already_running) {
    indexed_[r - first] = epoch_;
    running_[r - first] = epoch_;
  }
  std::vector<uint64_t> kept;
  for (const uint64_t c : candidates) {
    if (kept.size() >= max_keep) break;
    assert(store_.Contains(c));
    if (indexed_[c - first] == epoch_) continue;  // kept or running already
    const uint32_t group = Group(c);
    bool independent = true;
    for (const uint32_t n : lists_->Of(c)) {
      if (indexed_[n] == epoch_ &&
          (running_[n] == epoch_ || group == kNoGroup || group_[n] != group)) {
        independent = false;
        break;
      }
    }
    if (!independent) continue;
    kept.push_back(c);
    indexed_[c - first] = epoch_;
  }
  return kept;
}

bool DependencyFilter::UseDenseIndex(size_t max_keep, size_t running) const {
  if (index_kind_ != IndexKind::kAuto) return index_kind_ == IndexKind::kDense;
  const double entries = double(store_.num_rows()) * double(max_keep + running);
  return store_.density() >= kDenseIndexDensity && entries <= double(kMaxDenseIndexEntries);
}

std::vector<uint64_t> DependencyFilter::FilterByDenseIndex(
    std::span<const uint64_t> candidates, double rho, size_t max_keep,
    std::span<const uint64_t> already_running) {
  // Columns are indexed as owners 0, 1, ...: the running ones first, then each kept one; owner o
  // is column o of the dense rows. acc_ holds a candidate's inner product with every owner.
  const auto rows = static_cast<size_t>(store_.num_rows());
  const size_t capacity = already_running.size() + max_keep;
  if (capacity > capacity_ || dense_.size() < rows * capacity) {
    capacity_ = capacity;
    dense_.assign(rows * capacity_, 0.0);
  }
  owner_group_.clear();
  std::fill(group_count_.begin(), group_count_.end(), 0);
  size_t owners = 0;
  auto index = [&](uint64_t column, uint32_t group) {
    indexed_[column - store_.first()] = epoch_;
    owner_group_.push_back(group);
    if (group != kNoGroup) ++group_count_[group];
    const auto r = store_.Rows(column);
    const auto v = store_.Values(column);
    for (size_t n = 0; n < r.size(); ++n) dense_[size_t(r[n]) * capacity_ + owners] = v[n];
    ++owners;
  };
  for (const uint64_t r : already_running) {
    if (owners < capacity_ && indexed_[r - store_.first()] != epoch_) index(r, kNoGroup);
  }
  uint64_t budget = kMinWork, work = 0;
  for (const uint64_t c : candidates) budget += kWorkPerEntry * store_.Nnz(c);
  budget *= kDenseSpeedup;
  std::vector<uint64_t> kept;
  acc_.resize(capacity_);
  for (const uint64_t c : candidates) {
    if (kept.size() >= max_keep || work > budget) break;
    assert(store_.Contains(c));
    if (indexed_[c - store_.first()] == epoch_) continue;  // kept or running already
    const uint32_t group = Group(c);
    if (group != kNoGroup && group_count_[group] == owners) {
      kept.push_back(c);  // everything indexed is of c's own group
      index(c, group);
      continue;
    }
    const auto r = store_.Rows(c);
    const auto v = store_.Values(c);
    double* acc = acc_.data();
    std::fill(acc, acc + owners, 0.0);
    for (size_t n = 0; n < r.size(); ++n) {
      const double* row = dense_.data() + size_t(r[n]) * capacity_;
      const double value = v[n];
      for (size_t o = 0; o < owners; ++o) acc[o] += value * row[o];
    }
    work += r.size() * owners;
    bool independent = true;
    for (size_t o = 0; o < owners && independent; ++o) {
      // Rounding can push |cos| of parallel columns a hair past 1.
      independent = !(std::min(1.0, std::abs(acc[o])) > rho &&
                      (group == kNoGroup || owner_group_[o] != group));
    }
    if (!independent) continue;
    kept.push_back(c);
    index(c, group);
  }
  // Zero what was written, for the next call.
  for (size_t row = 0; row < rows; ++row) {
    std::fill_n(dense_.data() + row * capacity_, owners, 0.0);
  }
  return kept;
}

std::vector<uint64_t> FilterIndependent(const ColumnStore& store,
                                        std::span<const uint64_t> candidates_in_priority_order,
                                        double rho, size_t max_keep) {
  DependencyFilter filter(store);
  return filter.Filter(candidates_in_priority_order, rho, max_keep);
}

}  // namespace strads
