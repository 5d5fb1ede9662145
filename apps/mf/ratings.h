// A sparse ratings matrix A (rows = users, columns = items) with the observed set Omega, as the
// matrix-factorisation app reads it from a MatrixMarket coordinate file.
//
// Layout. The entries are stored once, sorted by (row, column): row[e], col[e], value[e] for
// e in [0, nnz). That order is itself the CSR-by-row view: the entries of row i are
// [row_start[i], row_start[i + 1]). The CSC-by-column view is an index over the same arrays: the
// entries of column j are col_entry[col_start[j] .. col_start[j + 1]), in ascending row order.
// Per-entry state kept by a solver (a residual, say) is indexed by e in both views.
//
// Input format: `%%MatrixMarket matrix coordinate real|integer general` (read by
// strads::MatrixMarketReader, common/matrix_market_reader.h), then `nnz` entries
// `i j v` with 1-based i and j, in any order, never repeated. `pattern` files are rejected: a
// rating needs a value. Ids must fit in 32 bits. Errors are InvalidArgument "FILE:LINE: what is
// wrong" (NotFound for a missing file, IoError for a failed read).
//
// A Ratings is a plain value (thread-compatible); the functions here share no state and are safe
// to call from several threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace strads::mf {

struct Ratings {
  std::string source;  // file it came from (for messages); may be empty
  uint64_t rows = 0;
  uint64_t cols = 0;
  std::vector<uint32_t> row;  // 0-based; sorted by (row, col)
  std::vector<uint32_t> col;  // 0-based
  std::vector<double> value;
  std::vector<uint64_t> row_start;  // rows + 1 offsets into the entry arrays
  std::vector<uint64_t> col_start;  // cols + 1 offsets into col_entry
  std::vector<uint64_t> col_entry;  // nnz entry indices, grouped by column, rows ascending

  uint64_t nnz() const { return value.size(); }
};

// Whether a row or column without a single rating is acceptable. After a random split of a real
// matrix a training matrix routinely has some (new users, new items): a model trained on it has
// no factors for them and predicts them by Coverage's fallback. A test matrix has many.
enum class EmptyLines { kReject, kAllow };

// What a model trained on a ratings matrix knows: which rows and columns have ratings, and the
// mean rating, the prediction for a pair whose row or column had none (LIBMF's convention).
struct Coverage {
  double mean = 0;              // over every rating; 0 without ratings
  std::vector<bool> empty_row;  // rows: no ratings
  std::vector<bool> empty_col;  // cols
  uint64_t empty_rows = 0, empty_cols = 0;

  // Whether the model has factors for (i, j). REQUIRES: i < rows, j < cols.
  bool Covers(uint64_t i, uint64_t j) const { return !empty_row[i] && !empty_col[j]; }
};

Coverage CoverageOf(const Ratings& ratings);

// Builds a Ratings from coordinates in any order (0-based ids). `source` names the data in
// messages. Errors: InvalidArgument if the three vectors differ in length, an id is out of range,
// rows or cols exceed 2^32 - 1, an (i, j) repeats, a value is not finite, or (with kReject) a row
// or column is empty.
Result<Ratings> MakeRatings(uint64_t rows, uint64_t cols, std::vector<uint32_t> row,
                            std::vector<uint32_t> col, std::vector<double> value,
                            EmptyLines empty = EmptyLines::kReject, std::string source = "");

// Loads a training matrix. Errors (besides MakeRatings's, now with file:line): NotFound, IoError,
// a bad banner or size line, a pattern file, a bad or out-of-range entry, more or fewer entries
// than the size line declares.
Result<Ratings> LoadRatings(const std::string& path, EmptyLines empty = EmptyLines::kReject);

// Loads a test matrix for a model trained on `train`: its size line must declare exactly
// train.rows x train.cols (an error at that line otherwise). Empty rows and columns are allowed.
Result<Ratings> LoadRatingsLike(const std::string& path, const Ratings& train);

}  // namespace strads::mf
