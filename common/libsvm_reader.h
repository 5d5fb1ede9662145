// Reading libsvm / svmlight text files.
//
// One row per data line: `label id:value id:value ... [# comment]`. Feature ids are 1-based
// integers (column j of x is id j + 1), may have gaps, and may come in any order within a row,
// but must not repeat. `qid:` tokens are ignored. Blank lines and lines starting with `#` are not
// rows; everything after a `#` is a comment. A row with a label and no features is an empty row.
//
// Rows outside the requested range are only counted (so total_rows is right), never parsed: a
// malformed line there is not reported. Every error inside the range is InvalidArgument with the
// message "FILE:LINE: what is wrong" (1-based physical line).
//
// The functions are free of shared state and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/column_selection.h"
#include "common/dataset.h"
#include "common/memory_budget.h"
#include "common/status.h"

namespace strads {

// The largest feature id accepted: libsvm's own limit, and a bound on the columns allocated.
inline constexpr int64_t kMaxLibsvmFeatureId = 2147483647;

// Loads rows [rows.begin, rows.end) of the libsvm file `path`, clipped to the file. The result
// has first_row = min(rows.begin, total_rows), total_rows = data lines in the whole file, and as
// many columns as the largest feature id in the loaded rows.
// Errors: NotFound (missing file), IoError, InvalidArgument ("FILE:LINE: ...") for a malformed
// row in the range or rows.begin > rows.end.
// Before it builds the matrix it checks that the result fits in `available_memory` bytes (see
// DatasetBuildBytes; the columns are the largest id, ids are not remapped) and otherwise fails
// with InvalidArgument "FILE: needs X GB for N features ...; Y GB available".
// With `columns` not empty, only the entries of those columns are kept and checked whole; of the
// others only the ids are checked (the member that keeps a column checks its values: in the
// column layout every column has one), and the memory check counts the kept ones.
Result<Dataset> ReadLibsvm(const std::string& path, RowRange rows,
                           uint64_t available_memory = AvailableMemoryBytes(),
                           std::span<const ColumnRange> columns = {});

// Every row of the file, keeping the entries of `columns` only, written straight into compressed
// columns sized from `counts` and `rows` (what CountLibsvmColumns gave for this file): the load
// never holds more than the result and one row. A file that disagrees with the counts (changed
// since) is InvalidArgument "FILE: changed while loading"; other errors as ReadLibsvm.
Result<Dataset> ReadLibsvmColumns(const std::string& path, std::span<const ColumnRange> columns,
                                  std::span<const uint64_t> counts, uint64_t rows,
                                  uint64_t available_memory = AvailableMemoryBytes());

// The entries of every column (0-based; as many as the largest feature id) over the whole file,
// from a pass that reads only the ids. A malformed token is skipped here (ReadLibsvm reports it);
// an id past kMaxLibsvmFeatureId is ignored. Before the counts grow to an id, the matrix that id
// implies is checked against `available_memory` as ReadLibsvm does, with the same message.
// With `sq_norms`, it also parses the values and sets (*sq_norms)[j] to the sum of squares of
// column j's values (a malformed value is skipped); with `rows`, it sets the data lines.
// With `bytes`, only the lines that start in that byte range count (LineReader::Open): the counts
// of the ranges of a cut file add up to the whole file's (each as long as its largest id).
Result<std::vector<uint64_t>> CountLibsvmColumns(const std::string& path,
                                                 uint64_t available_memory = AvailableMemoryBytes(),
                                                 std::vector<double>* sq_norms = nullptr,
                                                 uint64_t* rows = nullptr,
                                                 std::pair<uint64_t, uint64_t> bytes = {0, ~0ull});

// Number of rows (data lines) in the libsvm file `path`, without parsing them.
Result<uint64_t> CountLibsvmRows(const std::string& path);

}  // namespace strads
