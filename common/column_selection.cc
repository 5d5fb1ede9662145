#include "common/column_selection.h"

#include <algorithm>

namespace strads {

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
  std::vector<int64_t> nnz(cols, 0);
  for (const ColumnRange& r : ranges) {
    for (uint64_t j = r.begin; j < std::min(r.end, cols); ++j) {
      keep[j] = 1;
      nnz[j] = x.outerIndexPtr()[j + 1] - x.outerIndexPtr()[j];
    }
  }
  SparseColMatrix out(x.rows(), x.cols());
  out.reserve(nnz);
  for (uint64_t j = 0; j < cols; ++j) {
    if (!keep[j]) continue;
    for (SparseColMatrix::InnerIterator it(x, static_cast<int64_t>(j)); it; ++it) {
      out.insert(it.index(), static_cast<int64_t>(j)) = it.value();
    }
  }
  out.makeCompressed();
  return out;
}

}  // namespace strads
