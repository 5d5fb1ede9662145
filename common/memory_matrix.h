// MemoryMatrix: a labelled design matrix handed to a job in memory instead of as a file, and
// MemoryData, the matrices a process hands to the members it runs in itself.
//
// The Python package's estimators run their jobs on an embedded cluster (cli/embedded_cluster.h),
// whose members are threads of the same process: rather than writing numpy or scipy.sparse
// arrays as text for the members to parse again, it registers views of their buffers in a
// MemoryData under a name and submits the job with `--data memory:NAME`. A member's loads then
// read the buffers directly (data_loader.h dispatches on DataSource::memory), each keeping only
// its columns, as from a file: a dense array is kept sparse (its zeros dropped, as the text path
// dropped them), a CSR matrix is transposed into columns without densifying.
//
// A MemoryMatrix only views its buffers: whoever builds it keeps them alive and unchanged while
// any member may read them (the embedded cluster's lifetime). A MemoryData is immutable once
// built: every method is const and safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "common/column_selection.h"
#include "common/dataset.h"
#include "common/status.h"

namespace strads {

// The prefix of a --data path that names a MemoryMatrix ("memory:train").
inline constexpr std::string_view kMemoryPrefix = "memory:";

// Whether `path` names in-memory data (starts with kMemoryPrefix).
inline bool IsMemoryPath(std::string_view path) { return path.starts_with(kMemoryPrefix); }

struct MemoryMatrix {
  enum class Layout {
    kDenseRowMajor,  // values[r * cols + c] (numpy's C order)
    kDenseColMajor,  // values[c * rows + r] (Fortran order)
    kCsr,            // row r's entries at [starts[r], starts[r + 1]) of indices (columns), values
    kCsc,            // column c's entries at [starts[c], starts[c + 1]) of indices (rows), values
  };
  // Indices of a sparse layout as its owner holds them (scipy: 32-bit, 64-bit when large).
  using Indices = std::variant<std::span<const int32_t>, std::span<const int64_t>>;

  Layout layout = Layout::kCsr;
  uint64_t rows = 0;
  uint64_t cols = 0;
  std::span<const double> values;  // dense: rows * cols; sparse: the stored entries
  Indices starts;                  // sparse: rows + 1 (CSR) or cols + 1 (CSC) offsets
  Indices indices;                 // sparse: one per stored entry
  std::span<const double> labels;  // one per row
  std::string name;                // for messages ("memory:NAME")
};

// Checks that `m`'s buffers hold what its layout and shape say: the sizes, offsets that start at
// 0, never decrease and end at the entries, indices in range, one label per row, and every
// dimension within what one member can index (CheckIndexable). Column indices within a CSR row
// (row indices within a CSC column) may come in any order and repeat: repeats add up, as
// scipy's do. A member trusts a matrix that passed. Errors: InvalidArgument naming the matrix.
Status CheckMemoryMatrix(const MemoryMatrix& m);

// The stored entries of each column (zeros of a dense layout not counted), and the rows: what
// CountColumnEntries gives for a file. REQUIRES: CheckMemoryMatrix(m) is OK.
std::vector<uint64_t> MemoryColumnEntries(const MemoryMatrix& m);

// Every row of `m` with the entries of the columns in `columns` only (every column when empty),
// as LoadColumns makes a Dataset of a file: x has m.cols columns, y the labels, total_rows
// m.rows. A dense layout's zeros are not stored. Errors: InvalidArgument when the kept entries
// would need more than `available_memory` bytes (DatasetBuildBytes); never throws but bad_alloc.
// REQUIRES: CheckMemoryMatrix(m) is OK.
Result<Dataset> MemoryColumns(const MemoryMatrix& m, std::span<const ColumnRange> columns,
                              uint64_t available_memory);

// Rows [rows.begin, rows.end) of `m` (clipped), every column, as LoadDataset gives a row shard.
Result<Dataset> MemoryRows(const MemoryMatrix& m, RowRange rows, uint64_t available_memory);

// The matrices a process hands to its own members, by name (without the prefix). Immutable.
class MemoryData {
 public:
  MemoryData() = default;
  // REQUIRES: every matrix passed CheckMemoryMatrix; names are unique.
  explicit MemoryData(std::vector<std::shared_ptr<const MemoryMatrix>> matrices);

  // The matrix `path` names ("memory:NAME"); nullptr when it names none here.
  std::shared_ptr<const MemoryMatrix> Find(std::string_view path) const;

 private:
  std::map<std::string, std::shared_ptr<const MemoryMatrix>, std::less<>> matrices_;
};

// The source `path` (with `format` and `labels_path` for a file) as a member reads it: a file as
// given, or a "memory:NAME" path resolved in `memory` (which may be null: a daemon holds no
// in-memory data). Errors: NotFound for a memory path that names nothing here (the data lives in
// the process that submitted the job; a daemon cannot read it).
Result<DataSource> ResolveDataSource(std::string path, std::string format, std::string labels_path,
                                     const MemoryData* memory);

}  // namespace strads
