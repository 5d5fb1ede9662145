// Reading MatrixMarket files: the one parser of the format in STRADS.
//
// Two formats are read, each with its own banner:
//   `%%MatrixMarket matrix coordinate real|integer|pattern general`: a size line `rows cols nnz`,
//     then `nnz` entries `i j v` (`i j` for pattern, whose values are 1) with 1-based i and j;
//   `%%MatrixMarket matrix array real|integer general`: a size line `rows cols`, then rows * cols
//     values, one per line, in column-major order.
// Keywords are case-insensitive; `%` comment lines and blank lines may stand anywhere after the
// banner. Errors are InvalidArgument "FILE:LINE: what is wrong", NotFound for a missing file and
// IoError for a failed read.
//
// MatrixMarketReader streams the body, one entry or value at a time, so a caller keeps only what
// it needs (a shard its rows, `strads predict` nothing but running sums). ReadMatrixMarket loads
// the rows of a coordinate matrix X with the labels of a separate file (one number per non-blank
// line, one per matrix row, in row order): a shard reads only the entries of its rows, but the
// whole body is scanned: the entry count and the (i, j) bounds are checked for every entry, values
// only for the rows loaded.
//
// A MatrixMarketReader is movable, not copyable, and used by one thread at a time; the free
// functions share no state and are safe to call from several threads at once.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/column_selection.h"
#include "common/dataset.h"
#include "common/line_reader.h"
#include "common/status.h"

namespace strads {

enum class MatrixMarketFormat { kCoordinate, kArray };

// What the banner and size line of a MatrixMarket file declare.
struct MatrixMarketHeader {
  enum class Field { kReal, kInteger, kPattern };
  MatrixMarketFormat format = MatrixMarketFormat::kCoordinate;
  Field field = Field::kReal;
  uint64_t rows = 0;
  uint64_t cols = 0;
  uint64_t nnz = 0;        // coordinate: the entries declared; array: rows * cols
  uint64_t size_line = 0;  // 1-based line number of the size line; the body follows it
};

// The most columns a MatrixMarket coordinate matrix may declare (a bound on what gets allocated).
inline constexpr uint64_t kMaxMatrixMarketCols = 2147483647;

class MatrixMarketReader {
 public:
  struct Options {
    // The format the caller reads; a file of the other one is an error at line 1.
    MatrixMarketFormat format = MatrixMarketFormat::kCoordinate;
    // What a coordinate entry is called in "expected an entry 'i j v', got '...'".
    std::string entry_name = "an entry";
    // Off: a malformed entry is reported by its first bad field ("bad value 'x'", "unexpected
    // text after the entry"), and its value is only parsed when asked for (TakeValue). On: the
    // whole entry is parsed at once and any malformed one is "expected <entry_name> 'i j v', got
    // '...'" (bounds are checked after the shape).
    bool whole_entry_errors = false;
  };

  // Opens `path` and reads its banner and size line, leaving the reader on the body.
  // Errors: NotFound, IoError, InvalidArgument for a banner of another format, an unsupported
  // field or symmetry, a missing or malformed size line, a coordinate matrix of more than
  // kMaxMatrixMarketCols columns, or an array of more than 2^64 - 1 values.
  static Result<MatrixMarketReader> Open(const std::string& path, Options options);
  static Result<MatrixMarketReader> Open(const std::string& path) { return Open(path, Options()); }

  MatrixMarketReader(MatrixMarketReader&&) = default;
  MatrixMarketReader& operator=(MatrixMarketReader&&) = default;

  const MatrixMarketHeader& header() const { return header_; }
  const std::string& path() const { return lines_.path(); }
  // The line of the entry or value last returned.
  uint64_t line_number() const { return lines_.line_number(); }

  // Coordinate files. Sets the next entry's 1-based *i and *j (within rows x cols) and returns
  // true; returns false at the end of the body or on an error, and then status() says which: Ok
  // when the body held exactly the declared entries, else the first error ("more entries than",
  // "declares N entries but the file has M", a malformed or out-of-range entry).
  bool NextCoordinate(uint64_t* i, uint64_t* j);
  // The value of the entry NextCoordinate returned last (1 for pattern), checking that nothing
  // follows it on the line. Returns false on an error (status() says which). An entry whose value
  // is never taken is not checked past its j (unless whole_entry_errors).
  bool TakeValue(double* v);
  // NextCoordinate and TakeValue in one.
  bool Next(uint64_t* i, uint64_t* j, double* v) { return NextCoordinate(i, j) && TakeValue(v); }

  // Array files: the next value in column-major order. Returns false at the end of the body or
  // on an error (status(): Ok when there were exactly rows * cols values).
  bool NextValue(double* v);

  const Status& status() const { return status_; }

 private:
  MatrixMarketReader(LineReader lines, Options options)
      : lines_(std::move(lines)), options_(std::move(options)) {}
  Status ParseHeader();
  // The next non-comment line of the body, checking the count; false at its end or on an error.
  bool NextBodyLine(std::string_view* line);
  bool Fail(Status st);
  bool FailAt(std::string_view what) { return Fail(LineError(lines_, what)); }

  LineReader lines_;
  Options options_;
  MatrixMarketHeader header_;
  uint64_t seen_ = 0;      // body lines read
  std::string_view rest_;  // the current entry after its j
  double value_ = 0;       // the current entry's value, with whole_entry_errors
  Status status_;
};

// The per-entry path, inline so that a loader's loop compiles to straight-line parsing (the error
// paths stay out of line).
namespace matrix_market_internal {

inline bool IsDataLine(std::string_view line) { return strads::IsDataLine(line, '%'); }

// Fast path: takes one plain number, ended by whitespace or the end, off the front of *rest
// (after leading whitespace). Returns false, leaving *rest alone, when the text is not plainly
// one number; the caller then falls back to the careful token parsers, which accept a few more
// spellings ("+1") and say exactly what is wrong.
template <typename T>
inline bool TakeNumber(std::string_view* rest, T* out) {
  const char* p = rest->data();
  const char* const e = p + rest->size();
  while (p < e && IsSpace(*p)) ++p;
  const auto [q, ec] = std::from_chars(p, e, *out);
  if (ec != std::errc() || (q < e && !IsSpace(*q))) return false;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(*out)) return false;
  }
  *rest = std::string_view(q, e - q);
  return true;
}

// Takes the indices `i j` off the front of *rest: the fast path, else the careful one.
inline bool TakeIndices(std::string_view* rest, int64_t* i, int64_t* j) {
  std::string_view fast = *rest;
  if (TakeNumber(&fast, i) && TakeNumber(&fast, j)) {
    *rest = fast;
    return true;
  }
  return ParseInt64(NextToken(rest), i) && ParseInt64(NextToken(rest), j);
}

// Takes a value off the front of *rest: the fast path, else the careful one, which leaves the
// token it looked at in *token.
inline bool TakeValueToken(std::string_view* rest, double* v, std::string_view* token) {
  if (TakeNumber(rest, v)) return true;
  *token = NextToken(rest);
  return ParseFiniteDouble(*token, v);
}

}  // namespace matrix_market_internal

inline bool MatrixMarketReader::NextBodyLine(std::string_view* line) {
  if (!status_.ok()) return false;
  const bool array = header_.format == MatrixMarketFormat::kArray;
  const char* const what = array ? " values" : " entries";
  while (lines_.Next(line)) {
    if (!matrix_market_internal::IsDataLine(*line)) continue;
    if (seen_ == header_.nnz) {
      return FailAt(std::string(array ? "more than the " : "more entries than the ") +
                    std::to_string(header_.nnz) + (array ? " values" : "") + " declared on line " +
                    std::to_string(header_.size_line));
    }
    ++seen_;
    return true;
  }
  if (!lines_.status().ok()) return Fail(lines_.status());
  if (seen_ != header_.nnz) {
    return Fail(LineError(path(), header_.size_line,
                          "declares " + std::to_string(header_.nnz) + what + " but the file has " +
                              std::to_string(seen_)));
  }
  return false;
}

inline bool MatrixMarketReader::NextCoordinate(uint64_t* i, uint64_t* j) {
  std::string_view line;
  if (!NextBodyLine(&line)) return false;
  const MatrixMarketHeader& h = header_;
  const bool pattern = h.field == MatrixMarketHeader::Field::kPattern;
  std::string_view rest = line;
  int64_t si, sj;
  bool ok = matrix_market_internal::TakeIndices(&rest, &si, &sj);
  if (ok && options_.whole_entry_errors) {
    std::string_view token;
    value_ = 1.0;
    ok = (pattern || matrix_market_internal::TakeValueToken(&rest, &value_, &token)) &&
         NextToken(&rest).empty();
  }
  if (!ok) {
    return FailAt("expected " + options_.entry_name + (pattern ? " 'i j'" : " 'i j v'") +
                  ", got '" + Excerpt(line) + "'");
  }
  if (si < 1 || sj < 1 || static_cast<uint64_t>(si) > h.rows ||
      static_cast<uint64_t>(sj) > h.cols) {
    return FailAt("entry (" + std::to_string(si) + ", " + std::to_string(sj) + ") is outside the " +
                  std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix");
  }
  *i = static_cast<uint64_t>(si);
  *j = static_cast<uint64_t>(sj);
  rest_ = rest;
  return true;
}

inline bool MatrixMarketReader::TakeValue(double* v) {
  if (!status_.ok()) return false;
  if (options_.whole_entry_errors) {
    *v = value_;
    return true;
  }
  *v = 1.0;
  if (header_.field != MatrixMarketHeader::Field::kPattern) {
    std::string_view token;
    if (!matrix_market_internal::TakeValueToken(&rest_, v, &token))
      return FailAt("bad value '" + Excerpt(token) + "'");
  }
  if (!NextToken(&rest_).empty()) return FailAt("unexpected text after the entry");
  return true;
}

// Reads and checks the banner and size line of the coordinate file `path`.
Result<MatrixMarketHeader> ReadMatrixMarketHeader(const std::string& path);

// Loads rows [rows.begin, rows.end) (clipped to the header's row count) of the coordinate matrix
// in `path` with their labels from `labels_path`. x has the header's column count; total_rows is
// the header's row count; first_row = min(rows.begin, total_rows).
// Errors: NotFound, IoError, InvalidArgument for a bad header, a bad or out-of-range entry, an
// entry count that disagrees with the header, a repeated entry, a bad label, a label count that
// differs from the row count, or rows.begin > rows.end; and, before anything is allocated, a
// shard that would need more than `available_memory` bytes (DatasetBuildBytes of the header's
// columns and this shard's share of its entries).
// With `columns` not empty, only the entries of those columns are kept (as for rows, every
// entry's coordinates are checked, values only where kept); the memory check then counts the kept
// columns' share of the entries.
Result<Dataset> ReadMatrixMarket(const std::string& path, const std::string& labels_path,
                                 RowRange rows, uint64_t available_memory = AvailableMemoryBytes(),
                                 std::span<const ColumnRange> columns = {});

// The entries of every column (the header's count of them) of the coordinate matrix in `path`,
// from a pass over the coordinates (bounds checked, values not). The counts are checked against
// `available_memory` first, as ReadMatrixMarket checks the header's columns.
// With `sq_norms` it also sets each column's sum of squared values (checking them), with `rows`
// the header's rows.
Result<std::vector<uint64_t>> CountMatrixMarketColumns(
    const std::string& path, uint64_t available_memory = AvailableMemoryBytes(),
    std::vector<double>* sq_norms = nullptr, uint64_t* rows = nullptr);

}  // namespace strads
