#include "common/matrix_market_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <new>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/line_reader.h"

namespace strads {
namespace {

Status LineError(const std::string& path, uint64_t line, const std::string& what) {
  return Status::InvalidArgument(path + ":" + std::to_string(line) + ": " + what);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsMatrixMarketDataLine(std::string_view line) { return IsDataLine(line, '%'); }

// Fast path: takes one plain number, ended by whitespace or the end, off the front of *rest
// (after leading whitespace). Returns false, leaving *rest alone, when the text is not plainly
// one number; the caller then falls back to the careful token parsers, which accept a few more
// spellings ("+1") and say exactly what is wrong.
template <typename T>
bool TakeNumber(std::string_view* rest, T* out) {
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

// Reads the banner and the size line from `reader`, leaving it positioned on the first entry.
Result<MatrixMarketHeader> ParseHeader(LineReader* reader) {
  const std::string& path = reader->path();
  std::string_view line;
  if (!reader->Next(&line)) {
    STRADS_RETURN_IF_ERROR(reader->status());
    return LineError(path, 1, "empty file, expected a '%%MatrixMarket' banner");
  }
  std::string_view rest = line;
  const std::string banner = Lower(NextToken(&rest));
  const std::string object = Lower(NextToken(&rest));
  const std::string format = Lower(NextToken(&rest));
  const std::string field = Lower(NextToken(&rest));
  const std::string symmetry = Lower(NextToken(&rest));
  if (banner != "%%matrixmarket") {
    return LineError(path, 1, "expected a '%%MatrixMarket' banner, got '" + Excerpt(line) + "'");
  }
  if (object != "matrix" || format != "coordinate") {
    return LineError(path, 1, "only 'matrix coordinate' is supported, got '" + Excerpt(line) + "'");
  }
  MatrixMarketHeader h;
  if (field == "real") {
    h.field = MatrixMarketHeader::Field::kReal;
  } else if (field == "integer") {
    h.field = MatrixMarketHeader::Field::kInteger;
  } else if (field == "pattern") {
    h.field = MatrixMarketHeader::Field::kPattern;
  } else {
    return LineError(path, 1, "field '" + field + "' is not one of real, integer, pattern");
  }
  if (symmetry != "general") {
    return LineError(path, 1, "symmetry '" + symmetry + "' is not supported (only general)");
  }
  if (!NextToken(&rest).empty()) {
    return LineError(path, 1, "unexpected text after the banner");
  }

  while (reader->Next(&line)) {
    if (!IsMatrixMarketDataLine(line)) continue;
    rest = line;
    int64_t dims[3];
    for (int64_t& d : dims) {
      std::string_view token = NextToken(&rest);
      if (!ParseInt64(token, &d) || d < 0) {
        return LineError(path, reader->line_number(),
                         "expected a size line 'rows cols nnz', got '" + Excerpt(line) + "'");
      }
    }
    if (!NextToken(&rest).empty()) {
      return LineError(path, reader->line_number(),
                       "expected a size line 'rows cols nnz', got '" + Excerpt(line) + "'");
    }
    h.rows = static_cast<uint64_t>(dims[0]);
    h.cols = static_cast<uint64_t>(dims[1]);
    h.nnz = static_cast<uint64_t>(dims[2]);
    h.size_line = reader->line_number();
    if (h.cols > kMaxMatrixMarketCols) {
      return LineError(path, h.size_line,
                       std::to_string(h.cols) + " columns exceed the supported " +
                           std::to_string(kMaxMatrixMarketCols));
    }
    return h;
  }
  STRADS_RETURN_IF_ERROR(reader->status());
  return LineError(path, reader->line_number() + 1, "missing size line 'rows cols nnz'");
}

// Reads the labels of rows [begin, end) from `labels_path`, checking there are exactly
// `expected` labels in all.
Result<std::vector<double>> ReadLabels(const std::string& labels_path, uint64_t expected,
                                       uint64_t begin, uint64_t end, const std::string& matrix) {
  Result<LineReader> opened = LineReader::Open(labels_path);
  if (!opened.ok()) return opened.status();
  LineReader& reader = opened.value();
  std::vector<double> labels;
  labels.reserve(end - begin);
  uint64_t count = 0;
  std::string_view line;
  while (reader.Next(&line)) {
    if (!IsDataLine(line, '\0')) continue;  // blank
    if (count >= begin && count < end) {
      std::string_view rest = line;
      std::string_view token = NextToken(&rest);
      double v;
      if (!ParseFiniteDouble(token, &v) || !NextToken(&rest).empty()) {
        return LineError(labels_path, reader.line_number(),
                         "expected one number, got '" + Excerpt(line) + "'");
      }
      labels.push_back(v);
    }
    ++count;
  }
  STRADS_RETURN_IF_ERROR(reader.status());
  if (count != expected) {
    return Status::InvalidArgument(labels_path + ": has " + std::to_string(count) + " labels but " +
                                   matrix + " has " + std::to_string(expected) + " rows");
  }
  return labels;
}

}  // namespace

Result<MatrixMarketHeader> ReadMatrixMarketHeader(const std::string& path) {
  Result<LineReader> opened = LineReader::Open(path);
  if (!opened.ok()) return opened.status();
  return ParseHeader(&opened.value());
}

Result<Dataset> ReadMatrixMarket(const std::string& path, const std::string& labels_path,
                                 RowRange rows) {
  if (rows.begin > rows.end) {
    return Status::InvalidArgument(path + ": row range [" + std::to_string(rows.begin) + ", " +
                                   std::to_string(rows.end) + ") is inverted");
  }
  try {
    Result<LineReader> opened = LineReader::Open(path);
    if (!opened.ok()) return opened.status();
    LineReader& reader = opened.value();
    Result<MatrixMarketHeader> header = ParseHeader(&reader);
    if (!header.ok()) return header.status();
    const MatrixMarketHeader& h = header.value();
    const uint64_t begin = std::min(rows.begin, h.rows);
    const uint64_t end = std::min(rows.end, h.rows);
    const auto n = static_cast<int64_t>(end - begin);
    const bool pattern = h.field == MatrixMarketHeader::Field::kPattern;

    // Entries of the loaded rows, as (local row, column, value).
    std::vector<int64_t> entry_rows;
    std::vector<int64_t> entry_cols;
    std::vector<double> entry_values;
    {
      // Reserve for this shard's share of the entries, but never more than the file could hold
      // (an entry line takes at least 4 bytes), so that a lying header cannot make us allocate.
      std::error_code ec;
      const uint64_t file_bytes = std::filesystem::file_size(path, ec);
      const double share = h.rows == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(h.rows);
      const double wanted = static_cast<double>(h.nnz) * share;
      const uint64_t cap = ec ? 0 : file_bytes / 4;
      const uint64_t reserve =
          wanted >= static_cast<double>(cap) ? cap : static_cast<uint64_t>(wanted);
      entry_rows.reserve(reserve);
      entry_cols.reserve(reserve);
      entry_values.reserve(reserve);
    }
    // Whether the entries came sorted by (column, row), as most writers produce them; then they
    // already are the compressed columns.
    bool column_major = true;
    uint64_t seen = 0;
    std::string_view line;
    while (reader.Next(&line)) {
      if (!IsMatrixMarketDataLine(line)) continue;
      const uint64_t line_no = reader.line_number();
      if (seen == h.nnz) {
        return LineError(path, line_no,
                         "more entries than the " + std::to_string(h.nnz) + " declared on line " +
                             std::to_string(h.size_line));
      }
      ++seen;
      std::string_view rest = line;
      int64_t i, j;
      if (!TakeNumber(&rest, &i) || !TakeNumber(&rest, &j)) {
        rest = line;
        if (!ParseInt64(NextToken(&rest), &i) || !ParseInt64(NextToken(&rest), &j)) {
          return LineError(path, line_no,
                           "expected an entry 'i j" + std::string(pattern ? "" : " v") +
                               "', got '" + Excerpt(line) + "'");
        }
      }
      if (i < 1 || j < 1 || static_cast<uint64_t>(i) > h.rows ||
          static_cast<uint64_t>(j) > h.cols) {
        return LineError(path, line_no,
                         "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                             ") is outside the " + std::to_string(h.rows) + " x " +
                             std::to_string(h.cols) + " matrix");
      }
      const uint64_t row = static_cast<uint64_t>(i) - 1;
      if (row < begin || row >= end) continue;
      double v = 1.0;
      if (!pattern && !TakeNumber(&rest, &v)) {
        std::string_view v_token = NextToken(&rest);
        if (!ParseFiniteDouble(v_token, &v)) {
          return LineError(path, line_no, "bad value '" + Excerpt(v_token) + "'");
        }
      }
      if (!NextToken(&rest).empty()) {
        return LineError(path, line_no, "unexpected text after the entry");
      }
      const auto local_row = static_cast<int64_t>(row - begin);
      if (!entry_cols.empty() && (j - 1 < entry_cols.back() ||
                                  (j - 1 == entry_cols.back() && local_row <= entry_rows.back()))) {
        column_major = false;
      }
      entry_rows.push_back(local_row);
      entry_cols.push_back(j - 1);
      entry_values.push_back(v);
    }
    STRADS_RETURN_IF_ERROR(reader.status());
    if (seen != h.nnz) {
      return LineError(path, h.size_line,
                       "declares " + std::to_string(h.nnz) + " entries but the file has " +
                           std::to_string(seen));
    }

    Result<std::vector<double>> labels = ReadLabels(labels_path, h.rows, begin, end, path);
    if (!labels.ok()) return labels.status();

    Dataset ds;
    ds.path = path;
    ds.total_rows = h.rows;
    ds.first_row = begin;
    const auto cols = static_cast<int64_t>(h.cols);
    const auto nnz = static_cast<int64_t>(entry_values.size());
    if (column_major) {
      ds.x.resize(n, cols);
      ds.x.resizeNonZeros(nnz);
      int64_t* outer = ds.x.outerIndexPtr();
      for (int64_t c : entry_cols) ++outer[c + 1];
      for (int64_t c = 0; c < cols; ++c) outer[c + 1] += outer[c];
      std::copy(entry_rows.begin(), entry_rows.end(), ds.x.innerIndexPtr());
      std::copy(entry_values.begin(), entry_values.end(), ds.x.valuePtr());
    } else {
      // Counting sort into rows, then Eigen's storage-order conversion (another counting sort)
      // gives columns with sorted row indices.
      std::vector<int64_t> row_start(n + 1, 0);
      for (int64_t r : entry_rows) ++row_start[r + 1];
      for (int64_t r = 0; r < n; ++r) row_start[r + 1] += row_start[r];
      std::vector<int64_t> row_cols(nnz);
      std::vector<double> row_values(nnz);
      {
        std::vector<int64_t> next(row_start.begin(), row_start.end() - 1);
        for (int64_t k = 0; k < nnz; ++k) {
          const int64_t at = next[entry_rows[k]]++;
          row_cols[at] = entry_cols[k];
          row_values[at] = entry_values[k];
        }
      }
      std::vector<int64_t>().swap(entry_rows);
      std::vector<int64_t>().swap(entry_cols);
      std::vector<double>().swap(entry_values);
      Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int64_t>> csr(
          n, cols, nnz, row_start.data(), row_cols.data(), row_values.data());
      ds.x = csr;
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t* inner = ds.x.innerIndexPtr();
        for (int64_t k = ds.x.outerIndexPtr()[c] + 1; k < ds.x.outerIndexPtr()[c + 1]; ++k) {
          if (inner[k] == inner[k - 1]) {
            return Status::InvalidArgument(path + ": entry (" +
                                           std::to_string(begin + inner[k] + 1) + ", " +
                                           std::to_string(c + 1) + ") appears more than once");
          }
        }
      }
    }
    ds.y = Eigen::Map<const Eigen::VectorXd>(labels->data(), n);
    return ds;
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while loading");
  }
}

}  // namespace strads
