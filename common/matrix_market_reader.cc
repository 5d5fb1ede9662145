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

#include "common/huge_pages.h"
#include "common/line_reader.h"

namespace strads {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads the labels of rows [begin, end) from `labels_path`, checking there are exactly
// `expected` labels in all.
Result<std::vector<double>> ReadLabels(const std::string& labels_path, uint64_t expected,
                                       uint64_t begin, uint64_t end, const std::string& matrix) {
  STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(labels_path));
  LineReader& reader = opened;
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

Result<MatrixMarketReader> MatrixMarketReader::Open(const std::string& path, Options options) {
  STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(path));
  MatrixMarketReader reader(std::move(opened), std::move(options));
  STRADS_RETURN_IF_ERROR(reader.ParseHeader());
  return reader;
}

Status MatrixMarketReader::ParseHeader() {
  const std::string& file = path();
  const bool array = options_.format == MatrixMarketFormat::kArray;
  std::string_view line;
  if (!lines_.Next(&line)) {
    STRADS_RETURN_IF_ERROR(lines_.status());
    return LineError(file, 1, "empty file, expected a '%%MatrixMarket' banner");
  }
  std::string_view rest = line;
  const std::string banner = Lower(NextToken(&rest));
  const std::string object = Lower(NextToken(&rest));
  const std::string format = Lower(NextToken(&rest));
  const std::string field = Lower(NextToken(&rest));
  const std::string symmetry = Lower(NextToken(&rest));
  if (banner != "%%matrixmarket") {
    return LineError(file, 1, "expected a '%%MatrixMarket' banner, got '" + Excerpt(line) + "'");
  }
  const char* const wanted = array ? "array" : "coordinate";
  if (object != "matrix" || format != wanted) {
    return LineError(
        file, 1,
        std::string("only 'matrix ") + wanted + "' is supported, got '" + Excerpt(line) + "'");
  }
  MatrixMarketHeader& h = header_;
  h.format = options_.format;
  if (field == "real") {
    h.field = MatrixMarketHeader::Field::kReal;
  } else if (field == "integer") {
    h.field = MatrixMarketHeader::Field::kInteger;
  } else if (field == "pattern" && !array) {
    h.field = MatrixMarketHeader::Field::kPattern;
  } else {
    return LineError(
        file, 1, "field '" + field + "' is not one of real, integer" + (array ? "" : ", pattern"));
  }
  if (symmetry != "general") {
    return LineError(file, 1, "symmetry '" + symmetry + "' is not supported (only general)");
  }
  if (!NextToken(&rest).empty()) return LineError(file, 1, "unexpected text after the banner");

  const char* const size_line = array ? "'rows cols'" : "'rows cols nnz'";
  while (lines_.Next(&line)) {
    if (!matrix_market_internal::IsDataLine(line)) continue;
    rest = line;
    int64_t dims[3] = {0, 0, 0};
    for (int k = 0; k < (array ? 2 : 3); ++k) {
      if (!ParseInt64(NextToken(&rest), &dims[k]) || dims[k] < 0) {
        return LineError(lines_, std::string("expected a size line ") + size_line + ", got '" +
                                     Excerpt(line) + "'");
      }
    }
    if (!NextToken(&rest).empty()) {
      return LineError(lines_, std::string("expected a size line ") + size_line + ", got '" +
                                   Excerpt(line) + "'");
    }
    h.rows = static_cast<uint64_t>(dims[0]);
    h.cols = static_cast<uint64_t>(dims[1]);
    h.nnz = static_cast<uint64_t>(dims[2]);
    h.size_line = lines_.line_number();
    if (array) {
      if (h.rows != 0 && h.cols > UINT64_MAX / h.rows) {
        return LineError(lines_, "a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                                     " array has too many values");
      }
      h.nnz = h.rows * h.cols;
    } else if (h.cols > kMaxMatrixMarketCols) {
      return LineError(lines_, std::to_string(h.cols) + " columns exceed the supported " +
                                   std::to_string(kMaxMatrixMarketCols));
    }
    return Status::Ok();
  }
  STRADS_RETURN_IF_ERROR(lines_.status());
  return LineError(file, lines_.line_number() + 1, std::string("missing size line ") + size_line);
}

bool MatrixMarketReader::Fail(Status st) {
  status_ = std::move(st);
  return false;
}

bool MatrixMarketReader::NextValue(double* v) {
  std::string_view line;
  if (!NextBodyLine(&line)) return false;
  std::string_view rest = line;
  std::string_view token;
  if (!matrix_market_internal::TakeValueToken(&rest, v, &token) || !NextToken(&rest).empty()) {
    return FailAt("expected one value, got '" + Excerpt(line) + "'");
  }
  return true;
}

Result<MatrixMarketHeader> ReadMatrixMarketHeader(const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(MatrixMarketReader reader, MatrixMarketReader::Open(path));
  return reader.header();
}

Result<std::vector<uint64_t>> CountMatrixMarketColumns(const std::string& path,
                                                       uint64_t available_memory,
                                                       std::vector<double>* sq_norms,
                                                       uint64_t* rows) {
  try {
    STRADS_ASSIGN_OR_RETURN(MatrixMarketReader opened, MatrixMarketReader::Open(path));
    MatrixMarketReader& reader = opened;
    const MatrixMarketHeader& h = reader.header();
    STRADS_RETURN_IF_ERROR(CheckMemory(path, SaturatingMulAdd(8, h.cols),
                                       std::to_string(h.cols) + " columns (the header's)",
                                       available_memory));
    std::vector<uint64_t> counts(h.cols, 0);
    if (sq_norms) sq_norms->assign(h.cols, 0.0);
    uint64_t i, j;
    while (reader.NextCoordinate(&i, &j)) {
      ++counts[j - 1];
      if (!sq_norms) continue;
      double v;
      if (!reader.TakeValue(&v)) break;
      (*sq_norms)[j - 1] += v * v;
    }
    STRADS_RETURN_IF_ERROR(reader.status());
    if (rows) *rows = h.rows;
    return counts;
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while counting the columns");
  }
}

Result<Dataset> ReadMatrixMarket(const std::string& path, const std::string& labels_path,
                                 RowRange rows, uint64_t available_memory,
                                 std::span<const ColumnRange> columns) {
  STRADS_RETURN_IF_ERROR(CheckRowRange(path, rows));
  try {
    STRADS_ASSIGN_OR_RETURN(MatrixMarketReader opened, MatrixMarketReader::Open(path));
    MatrixMarketReader& reader = opened;
    const MatrixMarketHeader& h = reader.header();
    const uint64_t begin = std::min(rows.begin, h.rows);
    const uint64_t end = std::min(rows.end, h.rows);
    const auto n = static_cast<int64_t>(end - begin);

    // Entries of the loaded rows, as (local row, column, value).
    std::vector<int64_t> entry_rows;
    std::vector<int64_t> entry_cols;
    std::vector<double> entry_values;
    {
      // Reserve for this shard's share of the entries, but never more than the file could hold
      // (an entry line takes at least 4 bytes), so that a lying header cannot make us allocate.
      std::error_code ec;
      const uint64_t file_bytes = std::filesystem::file_size(path, ec);
      double share = h.rows == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(h.rows);
      if (!columns.empty() && h.cols > 0) {  // and the selected columns' share of those
        uint64_t selected = 0;
        for (const ColumnRange& r : columns) {
          selected += std::min(r.end, h.cols) - std::min(r.begin, std::min(r.end, h.cols));
        }
        share *= static_cast<double>(selected) / static_cast<double>(h.cols);
      }
      const double wanted = static_cast<double>(h.nnz) * share;
      const uint64_t cap = ec ? 0 : file_bytes / 4;
      const uint64_t reserve =
          wanted >= static_cast<double>(cap) ? cap : static_cast<uint64_t>(wanted);
      STRADS_RETURN_IF_ERROR(CheckMemory(
          path, DatasetBuildBytes(static_cast<uint64_t>(n), h.cols, std::min(reserve, h.nnz)),
          std::to_string(h.cols) + " columns (the header's)", available_memory));
      // The shard's rows and the header's columns are known now: past the 32-bit indices, fail
      // before reading the entries (their count is checked again once they are read).
      STRADS_RETURN_IF_ERROR(CheckIndexable(path, static_cast<uint64_t>(n), h.cols, 0));
      entry_rows.reserve(reserve);
      entry_cols.reserve(reserve);
      entry_values.reserve(reserve);
    }
    // Whether the entries came sorted by (column, row), as most writers produce them; then they
    // already are the compressed columns.
    bool column_major = true;
    uint64_t i, j;
    while (reader.NextCoordinate(&i, &j)) {
      const uint64_t row = i - 1;
      if (row < begin || row >= end || !InRanges(columns, j - 1)) continue;
      double v;
      if (!reader.TakeValue(&v)) break;
      const auto local_row = static_cast<int64_t>(row - begin);
      const auto col = static_cast<int64_t>(j - 1);
      if (!entry_cols.empty() && (col < entry_cols.back() ||
                                  (col == entry_cols.back() && local_row <= entry_rows.back()))) {
        column_major = false;
      }
      entry_rows.push_back(local_row);
      entry_cols.push_back(col);
      entry_values.push_back(v);
    }
    STRADS_RETURN_IF_ERROR(reader.status());

    STRADS_ASSIGN_OR_RETURN(std::vector<double> labels,
                            ReadLabels(labels_path, h.rows, begin, end, path));

    Dataset ds;
    ds.path = path;
    ds.total_rows = h.rows;
    ds.first_row = begin;
    const auto cols = static_cast<int64_t>(h.cols);
    const auto nnz = static_cast<int64_t>(entry_values.size());
    STRADS_RETURN_IF_ERROR(
        CheckIndexable(path, static_cast<uint64_t>(n), h.cols, static_cast<uint64_t>(nnz)));
    if (column_major) {
      ds.x.resize(n, cols);
      ds.x.resizeNonZeros(nnz);
      AdviseHugePages(ds.x.valuePtr(), static_cast<size_t>(nnz) * sizeof(double));
      AdviseHugePages(ds.x.innerIndexPtr(), static_cast<size_t>(nnz) * sizeof(StorageIndex));
      StorageIndex* outer = ds.x.outerIndexPtr();
      for (int64_t c : entry_cols) ++outer[c + 1];
      for (int64_t c = 0; c < cols; ++c) outer[c + 1] += outer[c];
      CollapseHugePages(outer, static_cast<size_t>(cols + 1) * sizeof(StorageIndex));
      std::copy(entry_rows.begin(), entry_rows.end(), ds.x.innerIndexPtr());
      std::copy(entry_values.begin(), entry_values.end(), ds.x.valuePtr());
    } else {
      // Counting sort into rows, then ColumnsFromRows (another counting sort) gives columns
      // with sorted row indices.
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
      ColumnsFromRows(n, cols, row_start, row_cols, row_values, ds.x);
      for (int64_t c = 0; c < cols; ++c) {
        const StorageIndex* inner = ds.x.innerIndexPtr();
        for (int64_t k = ds.x.outerIndexPtr()[c] + 1; k < ds.x.outerIndexPtr()[c + 1]; ++k) {
          if (inner[k] == inner[k - 1]) {
            return Status::InvalidArgument(path + ": entry (" +
                                           std::to_string(begin + inner[k] + 1) + ", " +
                                           std::to_string(c + 1) + ") appears more than once");
          }
        }
      }
    }
    ds.y = Eigen::Map<const Eigen::VectorXd>(labels.data(), n);
    return ds;
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while loading");
  }
}

}  // namespace strads
