// Reading a MatrixMarket coordinate file of X plus a separate file of labels.
//
// The matrix file is `%%MatrixMarket matrix coordinate real|integer|pattern general` (keywords
// case-insensitive), then `%` comment lines, a size line `rows cols nnz`, and `nnz` entries
// `i j v` with 1-based i and j (`i j` for pattern, whose values are 1). Entries may come in any
// order but must not repeat. The labels file has one number per non-blank line, one per matrix
// row, in row order.
//
// A shard reads only the entries of its rows, but the whole body is scanned: the entry count and
// the (i, j) bounds are checked for every entry, values only for the rows loaded. Errors are
// InvalidArgument "FILE:LINE: what is wrong", NotFound for a missing file.
//
// The functions are free of shared state and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <string>

#include "common/dataset.h"
#include "common/status.h"

namespace strads {

// What the banner and size line of a MatrixMarket coordinate file declare.
struct MatrixMarketHeader {
  enum class Field { kReal, kInteger, kPattern };
  Field field = Field::kReal;
  uint64_t rows = 0;
  uint64_t cols = 0;
  uint64_t nnz = 0;
  uint64_t size_line = 0;  // 1-based line number of the size line; entries follow it
};

// The most columns a MatrixMarket matrix may declare (a bound on what gets allocated).
inline constexpr uint64_t kMaxMatrixMarketCols = 2147483647;

// Reads and checks the banner and size line of `path`.
Result<MatrixMarketHeader> ReadMatrixMarketHeader(const std::string& path);

// Loads rows [rows.begin, rows.end) (clipped to the header's row count) of the matrix in `path`
// with their labels from `labels_path`. x has the header's column count; total_rows is the
// header's row count; first_row = min(rows.begin, total_rows).
// Errors: NotFound, IoError, InvalidArgument for a bad header, a bad or out-of-range entry, an
// entry count that disagrees with the header, a repeated entry, a bad label, a label count that
// differs from the row count, or rows.begin > rows.end.
Result<Dataset> ReadMatrixMarket(const std::string& path, const std::string& labels_path,
                                 RowRange rows);

}  // namespace strads
