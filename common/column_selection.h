// Building the columns of a design matrix from parsed rows, and selecting columns of a loaded one:
// the dynamic engine's column layout gives each worker full columns of the features it owns
// (contiguous ranges), and balances them by the columns' non-zero counts. Pure functions;
// thread-safe.
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

// The `rows` x `cols` matrix of rows in compressed-row form (row r's entries at [row_start[r],
// row_start[r + 1]) of col_ids and values; col_ids < cols), its columns' row indices ascending:
// the counting sort of Eigen's storage-order conversion, written into storage marked for huge
// pages before it is touched (common/huge_pages.h: solvers visit columns scattered).
// Fills `out` in place: Eigen 3.4's SparseMatrix has no move assignment, so returning the matrix
// would copy it (twice the memory at the peak, the copy on plain pages).
// REQUIRES: row_start.size() == rows + 1, col_ids.size() == values.size() == row_start[rows],
// every col_id in [0, cols); CheckIndexable(rows, cols, values.size()) is OK (32-bit indices).
void ColumnsFromRows(int64_t rows, int64_t cols, std::span<const int64_t> row_start,
                     std::span<const int64_t> col_ids, std::span<const double> values,
                     SparseColMatrix& out);

// The stored entries of every column of x, for PartitionByWeight.
std::vector<uint64_t> ColumnWeights(const SparseColMatrix& x);

// x with the same shape, keeping the entries of the columns in `ranges` and none of the others.
// Ranges past x.cols() are clipped.
SparseColMatrix KeepColumns(const SparseColMatrix& x, std::span<const ColumnRange> ranges);
// As above, keeping column j where keep[j] is non-zero (columns past keep.size() are dropped).
SparseColMatrix KeepColumns(const SparseColMatrix& x, std::span<const char> keep);
// `data` with only the columns where keep[j] is non-zero: the same labels, rows and path.
Dataset KeepColumns(const Dataset& data, std::span<const char> keep);

}  // namespace strads
