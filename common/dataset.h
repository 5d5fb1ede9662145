// A labelled sparse design matrix, or a row shard of one, as loaded from a data file.
//
// Column j of `x` is the feature whose id in the file is j + 1 (libsvm and MatrixMarket ids are
// 1-based); `x` has as many columns as the largest feature id seen in the loaded rows (or the
// MatrixMarket header's column count). Rows are the file's rows [first_row, first_row + rows()).
// Counts and offsets are 64-bit. A Dataset is a plain value: thread-compatible.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <Eigen/Sparse>

#include "common/memory_budget.h"
#include "common/status.h"

namespace strads {

// Row indices and column offsets of the compressed columns are 32-bit: an entry is 12 bytes, not
// 16, and a pass over scattered columns (a share, a check) reads a quarter fewer bytes
// (docs/performance.md). One member's matrix is therefore limited to kMaxIndex rows, columns and
// entries each (CheckIndexable).
using StorageIndex = int32_t;
using SparseColMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, StorageIndex>;
inline constexpr uint64_t kMaxIndex = static_cast<uint64_t>(INT32_MAX);

// Prefetches for a visit over columns scattered in x, in two stages, so that the step's own loads
// mostly find their lines in cache: for the column `kFar` visits ahead, the line of its offset in
// x's outer index and of its entry in `per_column` (a per-column array the step reads, or null);
// for the column `kNear` ahead, its first 8 kLines entries: kLines lines of values and kLines / 2
// of row indices (4 bytes each, 16 to a line). The
// near stage reads that column's offsets, which the far stage fetched kFar - kNear visits before
// (except for the first columns of a pass, where it waits for them). A share visits its columns
// in chord order (by index without a filter, by priority with one), scattered over the matrix: the
// wait on the outer index for each column cost two thirds of a paper-shape share
// (docs/performance.md). `ahead` is what the visit reads after the current column, in order, as
// positions in `ids`. A hint: no effect on results. REQUIRES: x is compressed. Always inlined: GCC
// 12 finds a call to it free of side effects (prefetches do not count) and drops the call when it
// is not inlined.
[[gnu::always_inline]] inline void PrefetchAhead(const SparseColMatrix& x,
                                                 std::span<const uint64_t> ids,
                                                 std::span<const size_t> ahead,
                                                 const double* per_column = nullptr) {
  constexpr size_t kFar = 8, kNear = 2, kLines = 8;
  const auto cols = static_cast<uint64_t>(x.cols());
  if (ahead.size() > kFar) {
    const uint64_t j = ids[ahead[kFar]];
    if (j < cols) {
      __builtin_prefetch(x.outerIndexPtr() + j);
      if (per_column != nullptr) __builtin_prefetch(per_column + j);
    }
  }
  if (ahead.size() > kNear) {
    const uint64_t j = ids[ahead[kNear]];
    if (j >= cols) return;
    const int64_t start = x.outerIndexPtr()[j];
    const int64_t end = x.outerIndexPtr()[j + 1];
    // A line holds 8 values and 16 row indices.
    constexpr int64_t kValues = 64 / sizeof(double), kIndices = 64 / sizeof(StorageIndex);
    const int64_t stop = std::min<int64_t>(end, start + static_cast<int64_t>(kLines) * kValues);
    for (int64_t e = start; e < stop; e += kValues) __builtin_prefetch(x.valuePtr() + e);
    for (int64_t e = start; e < stop; e += kIndices) __builtin_prefetch(x.innerIndexPtr() + e);
  }
}

struct MemoryMatrix;  // common/memory_matrix.h

// Where a data set lives and how it is encoded.
struct DataSource {
  std::string path;         // libsvm/svmlight file, or MatrixMarket coordinate file of X
  std::string format;       // "libsvm", "mm", or empty: ".mtx"/".mm" means mm, anything else libsvm
  std::string labels_path;  // mm only: one label per line, row order
  // Set: the data is this matrix in memory (path "memory:NAME"; format and labels_path unused).
  std::shared_ptr<const MemoryMatrix> memory = nullptr;
};

// Half-open range of 0-based row indices.
struct RowRange {
  uint64_t begin = 0;
  uint64_t end = UINT64_MAX;
};

// OK, or an InvalidArgument naming `path` when `rows` is inverted (begin > end).
inline Status CheckRowRange(const std::string& path, RowRange rows) {
  if (rows.begin <= rows.end) return Status::Ok();
  return Status::InvalidArgument(path + ": row range [" + std::to_string(rows.begin) + ", " +
                                 std::to_string(rows.end) + ") is inverted");
}

// Bytes a Dataset of `rows` x `cols` with `nnz` entries needs while it is built from parsed rows:
// the compressed columns (a 4-byte offset per column, 12 bytes per entry), the labels, and the
// conversion's 8-byte count per column. Saturates instead of wrapping.
inline uint64_t DatasetBuildBytes(uint64_t rows, uint64_t cols, uint64_t nnz) {
  return SaturatingMulAdd(12, cols, SaturatingMulAdd(12, nnz, SaturatingMulAdd(8, rows, 8)));
}

// Whether one member's matrix of `rows` x `cols` with `nnz` entries fits SparseColMatrix's 32-bit
// indices: an InvalidArgument naming `path`, the limit, and what splits that dimension if not.
inline Status CheckIndexable(const std::string& path, uint64_t rows, uint64_t cols, uint64_t nnz) {
  const auto over = [&](const char* what, uint64_t n, const char* remedy) {
    return Status::InvalidArgument(path + ": " + std::to_string(n) + " " + what +
                                   " for one member, more than the " + std::to_string(kMaxIndex) +
                                   " one can index; " + remedy);
  };
  if (rows > kMaxIndex) {
    return over("rows", rows, "each worker holds every row, so the file must have fewer");
  }
  if (cols > kMaxIndex) return over("columns", cols, "renumber the features");
  if (nnz > kMaxIndex) return over("non-zero entries", nnz, "more workers each hold fewer");
  return Status::Ok();
}

struct Dataset {
  SparseColMatrix x;  // rows() == y.size()
  Eigen::VectorXd y;
  uint64_t first_row = 0;   // global index of row 0 of this shard
  uint64_t total_rows = 0;  // rows in the whole file
  std::string path;

  Dataset() = default;
  Dataset(const Dataset&) = default;
  Dataset& operator=(const Dataset&) = default;
  // Eigen 3.4's SparseMatrix has no move constructor or assignment: a "move" copies every entry.
  // A data set is moved from the loader to the model several times, and each copy cost a copy of
  // the matrix at the peak (a worker of the column layout peaked at 6x its matrix), so moves swap.
  Dataset(Dataset&& other) noexcept
      : y(std::move(other.y)),
        first_row(other.first_row),
        total_rows(other.total_rows),
        path(std::move(other.path)) {
    x.swap(other.x);
  }
  Dataset& operator=(Dataset&& other) noexcept {
    x.swap(other.x);
    y = std::move(other.y);
    first_row = other.first_row;
    total_rows = other.total_rows;
    path = std::move(other.path);
    return *this;
  }
};

}  // namespace strads
