// Selecting columns of a loaded design matrix: the dynamic engine's column layout gives each
// worker full columns of the features it owns (contiguous ranges), and balances them by the
// columns' non-zero counts.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/dataset.h"

namespace strads {

// Half-open range of 0-based column indices.
struct ColumnRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// Whether column `col` lies in one of `ranges`; every column does when `ranges` is empty.
inline bool InRanges(std::span<const ColumnRange> ranges, uint64_t col) {
  if (ranges.empty()) return true;
  for (const ColumnRange& r : ranges) {
    if (col >= r.begin && col < r.end) return true;
  }
  return false;
}

// The stored entries of every column of x, for PartitionByWeight.
std::vector<uint64_t> ColumnWeights(const SparseColMatrix& x);

// x with the same shape, keeping the entries of the columns in `ranges` and none of the others.
// Ranges past x.cols() are clipped.
SparseColMatrix KeepColumns(const SparseColMatrix& x, std::span<const ColumnRange> ranges);

}  // namespace strads
