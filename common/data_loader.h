// Loading a data set, or one worker's row shard of it, whatever its file format.
//
// A DataSource names a file and its format (libsvm/svmlight, or MatrixMarket with a labels
// file); LoadDataset reads the rows of one shard into a Dataset, CountRows tells how many rows
// the file has, and ShardRows splits them evenly among workers. The usual pattern on worker
// `rank` of `parts`:
//
//   Result<uint64_t> total = CountRows(src);
//   Result<Dataset> shard = LoadDataset(src, ShardRows(*total, rank, parts));
//
// A source with `memory` set (common/memory_matrix.h) is read from that matrix, never a file: each
// function gives what it gives for a MatrixMarket file of the same matrix (part 0 counts it whole).
//
// Shards of the same file agree on total_rows; for libsvm each shard has as many columns as its
// own largest feature id, for MatrixMarket every shard has the header's column count.
//
// All functions are free of shared state and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/column_selection.h"
#include "common/dataset.h"
#include "common/memory_budget.h"
#include "common/status.h"

namespace strads {

enum class DataFormat { kLibsvm, kMatrixMarket };

// The format of `src`: "libsvm" or "svmlight" -> kLibsvm, "mm" -> kMatrixMarket; when empty, a
// path ending in ".mtx" or ".mm" is MatrixMarket and anything else libsvm.
// Errors: InvalidArgument for any other format name.
Result<DataFormat> ResolveFormat(const DataSource& src);

// Loads rows [rows.begin, rows.end) of `src`, clipped to the file, with total_rows set to the
// rows in the whole file and first_row to min(rows.begin, total_rows). See libsvm_reader.h and
// matrix_market_reader.h for the file formats and what each checks.
// Errors: NotFound naming a missing file; InvalidArgument "FILE:LINE: what is wrong" for a
// malformed file, or for a MatrixMarket source without labels_path; IoError; never throws.
// A shard that would need more than `available_memory` bytes fails before it is built (see
// DatasetBuildBytes) with "FILE: needs X GB for N features ...; Y GB available".
Result<Dataset> LoadDataset(const DataSource& src, RowRange rows,
                            uint64_t available_memory = AvailableMemoryBytes());

// Every row of `src`, keeping only the entries of the columns in `columns` (all of them when it is
// empty): a member of the column layout holds its columns without ever holding the whole matrix.
// x has the file's full width (libsvm: the largest feature id in the file; MatrixMarket: the
// header's columns), so column ids are the file's. Errors as LoadDataset.
Result<Dataset> LoadColumns(const DataSource& src, std::span<const ColumnRange> columns,
                            uint64_t available_memory = AvailableMemoryBytes());

// As above, given what CountColumnEntries found for `src` (its `counts` and `rows`): a libsvm file
// is then parsed once more straight into compressed columns, never holding more than the result
// and one row (MatrixMarket loads as above).
Result<Dataset> LoadColumns(const DataSource& src, std::span<const ColumnRange> columns,
                            std::span<const uint64_t> counts, uint64_t rows,
                            uint64_t available_memory = AvailableMemoryBytes());

// The entries of every column of `src` (for PartitionByWeight, before LoadColumns), from a pass
// that parses coordinates only. Errors: as LoadDataset for a missing file or a bad header; a
// malformed libsvm token is skipped here and reported by the load that follows.
// With `sq_norms` the pass also parses the values and gives each column's sum of squares; with
// `rows` the number of rows.
Result<std::vector<uint64_t>> CountColumnEntries(const DataSource& src,
                                                 uint64_t available_memory = AvailableMemoryBytes(),
                                                 std::vector<double>* sq_norms = nullptr,
                                                 uint64_t* rows = nullptr);

// What a counting pass finds: each column's entries (0-based, as far as the largest id seen) and
// the data rows, of a file or of a part of it.
struct CountedColumns {
  std::vector<uint64_t> entries;
  uint64_t rows = 0;
};

// The status of a LoadColumns from counts that the workers of a job made together, each of its own
// copy of the file: a column that disagrees with the counts reads as a file that changed while
// loading, and the copies differing is named as the other cause.
Status WithWorkersCounts(Status status);

// Part `part` of `parts` of CountColumnEntries, for members that count a file together: for a
// libsvm file the lines that start in the part-th of `parts` equal byte ranges, so the parts'
// counts and rows add up to the whole file's; a MatrixMarket file is counted whole by part 0 and
// not at all by the others (empty counts, 0 rows).
Result<std::vector<uint64_t>> CountColumnEntriesPart(
    const DataSource& src, uint32_t part, uint32_t parts, uint64_t* rows,
    uint64_t available_memory = AvailableMemoryBytes());

// The number of rows in `src`: data lines of a libsvm file (not parsed), the header's row count
// of a MatrixMarket file. Errors as LoadDataset.
Result<uint64_t> CountRows(const DataSource& src);

// The contiguous block of rows of part `rank` out of `parts` over `total` rows: block sizes differ
// by at most one, the larger blocks come first, and the blocks of ranks 0..parts-1 tile
// [0, total) in order.
// REQUIRES: rank < parts (otherwise the result is the empty range [total, total)).
RowRange ShardRows(uint64_t total, uint32_t rank, uint32_t parts);

}  // namespace strads
