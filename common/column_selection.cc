#include "common/column_selection.h"

#include <algorithm>
#include <cassert>

#include "common/huge_pages.h"

namespace strads {

void ColumnsFromRows(int64_t rows, int64_t cols, std::span<const int64_t> row_start,
                     std::span<const int64_t> col_ids, std::span<const double> values,
                     SparseColMatrix& x) {
  x.resize(0, 0);
  x.data().squeeze();  // the old entries' storage goes now, not after the new is written
  x.resize(rows, cols);
  assert(CheckIndexable("", static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), values.size())
             .ok());
  const auto nnz = static_cast<int64_t>(values.size());
  x.resizeNonZeros(nnz);
  AdviseHugePages(x.valuePtr(), values.size() * sizeof(double));
  AdviseHugePages(x.innerIndexPtr(), values.size() * sizeof(StorageIndex));
  StorageIndex* outer = x.outerIndexPtr();  // zeros: the counts go one column up, then prefix sums
  for (int64_t c : col_ids) {
    assert(c >= 0 && c < cols);
    ++outer[c + 1];
  }
  for (int64_t c = 0; c < cols; ++c) outer[c + 1] += outer[c];
  CollapseHugePages(outer, static_cast<size_t>(cols + 1) * sizeof(StorageIndex));
  std::vector<StorageIndex> next(outer, outer + cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = row_start[r]; k < row_start[r + 1]; ++k) {
      const StorageIndex at = next[col_ids[k]]++;
      x.innerIndexPtr()[at] = static_cast<StorageIndex>(r);
      x.valuePtr()[at] = values[k];
    }
  }
}

std::vector<uint64_t> ColumnWeights(const SparseColMatrix& x) {
  std::vector<uint64_t> weights(static_cast<size_t>(x.cols()));
  for (int64_t j = 0; j < x.cols(); ++j) {
    weights[j] = static_cast<uint64_t>(x.outerIndexPtr()[j + 1] - x.outerIndexPtr()[j]);
  }
  return weights;
}

SparseColMatrix KeepColumns(const SparseColMatrix& x, std::span<const ColumnRange> ranges) {
  const auto cols = static_cast<uint64_t>(x.cols());
  std::vector<char> keep(cols, 0);
  for (const ColumnRange& r : ranges) {
    for (uint64_t j = r.begin; j < std::min(r.end, cols); ++j) keep[j] = 1;
  }
  return KeepColumns(x, keep);
}

Dataset KeepColumns(const Dataset& data, std::span<const char> keep) {
  Dataset out;
  out.y = data.y;
  out.first_row = data.first_row;
  out.total_rows = data.total_rows;
  out.path = data.path;
  SparseColMatrix kept = KeepColumns(data.x, keep);
  out.x.swap(kept);  // Eigen's sparse matrices copy on assignment
  return out;
}

SparseColMatrix KeepColumns(const SparseColMatrix& x, std::span<const char> keep) {
  const auto cols = static_cast<uint64_t>(x.cols());
  const auto kept = [&](uint64_t j) { return j < keep.size() && keep[j]; };
  std::vector<int64_t> nnz(cols, 0);
  for (uint64_t j = 0; j < cols; ++j) {
    if (kept(j)) nnz[j] = x.outerIndexPtr()[j + 1] - x.outerIndexPtr()[j];
  }
  SparseColMatrix out(x.rows(), x.cols());
  out.reserve(nnz);
  for (uint64_t j = 0; j < cols; ++j) {
    if (!kept(j)) continue;
    for (SparseColMatrix::InnerIterator it(x, static_cast<int64_t>(j)); it; ++it) {
      out.insert(it.index(), static_cast<int64_t>(j)) = it.value();
    }
  }
  out.makeCompressed();
  return out;
}

}  // namespace strads
