#include "common/libsvm_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>
#include <string_view>
#include <vector>

#include "common/huge_pages.h"
#include "common/line_reader.h"

namespace strads {
namespace {

// The loaded rows in compressed-row form, as parsed.
struct CsrBuilder {
  std::vector<int64_t> row_start{0};
  std::vector<int64_t> cols;  // 0-based
  std::vector<double> values;
  std::vector<double> labels;
  int64_t max_id = 0;
  std::vector<int64_t> scratch;
};

// Parses a feature token `id:value` the careful way, for tokens the fast path did not accept:
// either it still is one (e.g. "+3:+1.5") or this says precisely what is wrong with it.
Status ParseFeatureToken(std::string_view token, const std::string& path, uint64_t line_no,
                         int64_t* id, double* value) {
  const size_t colon = token.find(':');
  if (colon == std::string_view::npos) {
    return LineError(path, line_no, "missing ':' in feature '" + Excerpt(token) + "'");
  }
  if (!ParseInt64(token.substr(0, colon), id)) {
    return LineError(path, line_no, "bad feature id in '" + Excerpt(token) + "'");
  }
  if (!ParseFiniteDouble(token.substr(colon + 1), value)) {
    return LineError(path, line_no, "bad value in '" + Excerpt(token) + "'");
  }
  return Status::Ok();
}

// Parses one data line into the builder; on error the builder may hold part of the row.
Status ParseRow(std::string_view line, const std::string& path, uint64_t line_no,
                std::span<const ColumnRange> columns, CsrBuilder* b) {
  if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  const char* p = line.data();
  const char* const end = p + line.size();
  auto skip_space = [&] {
    while (p < end && IsSpace(*p)) ++p;
  };

  skip_space();
  const char* label_end = TokenEnd(p, end);
  const std::string_view label_token(p, label_end - p);
  double label;
  if (!ParseFiniteDouble(label_token, &label)) {
    return LineError(path, line_no, "bad label '" + Excerpt(label_token) + "'");
  }
  p = label_end;

  const size_t row_begin = b->cols.size();
  int64_t previous_id = 0;
  bool increasing = true;
  while (true) {
    skip_space();
    if (p == end) break;
    if (*p == 'q' && std::string_view(p, end - p).starts_with("qid:")) {
      p = TokenEnd(p, end);
      continue;
    }
    // Fast path: one left-to-right pass through "id:value", each character looked at once.
    int64_t id;
    double value;
    const auto [colon, id_ec] = std::from_chars(p, end, id);
    bool ok = id_ec == std::errc() && colon < end && *colon == ':';
    if (ok && !columns.empty() && id > 0 && id <= kMaxLibsvmFeatureId &&
        !InRanges(columns, static_cast<uint64_t>(id - 1))) {
      // A column this load does not keep: its id counts (the width), its value is parsed and
      // checked by the member that keeps it.
      b->max_id = std::max(b->max_id, id);
      p = TokenEnd(colon + 1, end);
      continue;
    }
    const char* after = colon;
    if (ok) {
      const auto [value_end, value_ec] = std::from_chars(colon + 1, end, value);
      after = value_end;
      ok = value_ec == std::errc() && (value_end == end || IsSpace(*value_end)) &&
           std::isfinite(value);
    }
    if (!ok) {
      after = TokenEnd(p, end);
      STRADS_RETURN_IF_ERROR(
          ParseFeatureToken(std::string_view(p, after - p), path, line_no, &id, &value));
    }
    p = after;
    if (id <= 0) {
      return LineError(path, line_no,
                       "feature id " + std::to_string(id) + " is not positive (ids are 1-based)");
    }
    if (id > kMaxLibsvmFeatureId) {
      return LineError(
          path, line_no,
          "feature id " + std::to_string(id) + " exceeds " + std::to_string(kMaxLibsvmFeatureId));
    }
    if (id <= previous_id) increasing = false;
    previous_id = id;
    b->max_id = std::max(b->max_id, id);
    b->cols.push_back(id - 1);
    b->values.push_back(value);
  }
  if (!increasing) {
    // Order within a row does not matter to the CSR -> CSC conversion; only repeats do.
    b->scratch.assign(b->cols.begin() + row_begin, b->cols.end());
    std::sort(b->scratch.begin(), b->scratch.end());
    auto dup = std::adjacent_find(b->scratch.begin(), b->scratch.end());
    if (dup != b->scratch.end()) {
      return LineError(path, line_no, "duplicate feature id " + std::to_string(*dup + 1));
    }
  }
  if (!columns.empty()) {  // checked whole; only the selected columns are kept
    size_t kept = row_begin;
    for (size_t k = row_begin; k < b->cols.size(); ++k) {
      if (!InRanges(columns, static_cast<uint64_t>(b->cols[k]))) continue;
      b->cols[kept] = b->cols[k];
      b->values[kept] = b->values[k];
      ++kept;
    }
    b->cols.resize(kept);
    b->values.resize(kept);
  }
  b->labels.push_back(label);
  b->row_start.push_back(static_cast<int64_t>(b->cols.size()));
  return Status::Ok();
}

std::string FeaturesWhat(int64_t max_id) {
  return std::to_string(max_id) + " features (the largest feature id; ids are not remapped)";
}

}  // namespace

Result<Dataset> ReadLibsvm(const std::string& path, RowRange rows, uint64_t available_memory,
                           std::span<const ColumnRange> columns) {
  STRADS_RETURN_IF_ERROR(CheckRowRange(path, rows));
  try {
    STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(path));
    LineReader& reader = opened;
    CsrBuilder b;
    uint64_t row = 0;
    std::string_view line;
    while (reader.Next(&line)) {
      if (!IsDataLine(line)) continue;
      if (row >= rows.begin && row < rows.end) {
        STRADS_RETURN_IF_ERROR(ParseRow(line, path, reader.line_number(), columns, &b));
      }
      ++row;
    }
    STRADS_RETURN_IF_ERROR(reader.status());

    Dataset ds;
    ds.path = path;
    ds.total_rows = row;
    ds.first_row = std::min(rows.begin, row);
    const auto n = static_cast<int64_t>(b.labels.size());
    const auto nnz = static_cast<int64_t>(b.values.size());
    STRADS_RETURN_IF_ERROR(CheckMemory(path, DatasetBuildBytes(n, b.max_id, nnz),
                                       FeaturesWhat(b.max_id), available_memory));
    STRADS_RETURN_IF_ERROR(CheckIndexable(path, n, b.max_id, nnz));
    ColumnsFromRows(n, b.max_id, b.row_start, b.cols, b.values, ds.x);
    ds.y = Eigen::Map<const Eigen::VectorXd>(b.labels.data(), n);
    return ds;
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while loading");
  }
}

Result<std::vector<uint64_t>> CountLibsvmColumns(const std::string& path, uint64_t available_memory,
                                                 std::vector<double>* sq_norms, uint64_t* rows_out,
                                                 std::pair<uint64_t, uint64_t> bytes) {
  try {
    STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(path, bytes.first, bytes.second));
    LineReader& reader = opened;
    std::vector<uint64_t> counts;
    uint64_t rows = 0, entries = 0;
    std::string_view line;
    while (reader.Next(&line)) {
      if (!IsDataLine(line)) continue;
      ++rows;
      if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      const char* p = line.data();
      const char* const end = p + line.size();
      while (p < end && IsSpace(*p)) ++p;
      while (p < end && !IsSpace(*p)) ++p;  // the label
      while (p < end) {
        while (p < end && IsSpace(*p)) ++p;
        if (p == end) break;
        int64_t id = 0;
        const auto [colon, ec] = std::from_chars(p, end, id);
        if (ec == std::errc() && colon < end && *colon == ':' && id > 0 &&
            id <= kMaxLibsvmFeatureId) {
          if (static_cast<uint64_t>(id) > counts.size()) {
            STRADS_RETURN_IF_ERROR(CheckMemory(path, DatasetBuildBytes(rows, id, entries),
                                               FeaturesWhat(id), available_memory));
            counts.resize(static_cast<size_t>(id), 0);
            if (sq_norms) sq_norms->resize(static_cast<size_t>(id), 0.0);
          }
          ++counts[static_cast<size_t>(id - 1)];
          ++entries;
          double value = 0.0;
          if (sq_norms && std::from_chars(colon + 1, end, value).ec == std::errc() &&
              std::isfinite(value)) {
            (*sq_norms)[static_cast<size_t>(id - 1)] += value * value;
          }
        }
        p = TokenEnd(p, end);  // the value, or a token this pass skips
      }
    }
    STRADS_RETURN_IF_ERROR(reader.status());
    if (rows_out) *rows_out = rows;
    return counts;
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while counting the columns");
  }
}

Result<Dataset> ReadLibsvmColumns(const std::string& path, std::span<const ColumnRange> columns,
                                  std::span<const uint64_t> counts, uint64_t rows,
                                  uint64_t available_memory) {
  try {
    const auto cols = static_cast<int64_t>(counts.size());
    // Column c's entries go to [start[c], start[c + 1]) in row order.
    std::vector<int64_t> start(counts.size() + 1, 0);
    for (size_t c = 0; c < counts.size(); ++c) {
      start[c + 1] = start[c] + (InRanges(columns, c) ? static_cast<int64_t>(counts[c]) : 0);
    }
    const int64_t nnz = start.back();
    STRADS_RETURN_IF_ERROR(CheckMemory(path, DatasetBuildBytes(rows, counts.size(), nnz),
                                       FeaturesWhat(cols), available_memory));
    STRADS_RETURN_IF_ERROR(CheckIndexable(path, rows, counts.size(), nnz));
    STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(path));
    LineReader& reader = opened;
    Dataset ds;
    ds.path = path;
    ds.x.resize(static_cast<int64_t>(rows), cols);
    ds.x.resizeNonZeros(nnz);
    std::copy(start.begin(), start.end(), ds.x.outerIndexPtr());
    // Shares visit these columns scattered (common/huge_pages.h); the entries are marked before
    // they are written, the offsets (already written) collapsed.
    AdviseHugePages(ds.x.valuePtr(), static_cast<size_t>(nnz) * sizeof(double));
    AdviseHugePages(ds.x.innerIndexPtr(), static_cast<size_t>(nnz) * sizeof(StorageIndex));
    CollapseHugePages(ds.x.outerIndexPtr(), start.size() * sizeof(StorageIndex));
    ds.y.resize(static_cast<int64_t>(rows));
    const Status changed = Status::InvalidArgument(path + ": changed while loading");
    CsrBuilder b;  // one row at a time
    uint64_t row = 0;
    std::string_view line;
    while (reader.Next(&line)) {
      if (!IsDataLine(line)) continue;
      if (row >= rows) return changed;
      b.cols.clear();
      b.values.clear();
      b.labels.clear();
      b.row_start.assign(1, 0);
      STRADS_RETURN_IF_ERROR(ParseRow(line, path, reader.line_number(), columns, &b));
      if (b.max_id > cols) return changed;
      ds.y[static_cast<int64_t>(row)] = b.labels[0];
      for (size_t k = 0; k < b.cols.size(); ++k) {
        const int64_t c = b.cols[k];
        if (start[c] == ds.x.outerIndexPtr()[c + 1]) return changed;  // more than counted
        const int64_t at = start[c]++;
        ds.x.innerIndexPtr()[at] = static_cast<StorageIndex>(row);
        ds.x.valuePtr()[at] = b.values[k];
      }
      ++row;
    }
    STRADS_RETURN_IF_ERROR(reader.status());
    // Every column must be exactly full: start[c] has reached the next column's first entry.
    for (size_t c = 0; c < counts.size(); ++c) {
      if (start[c] != ds.x.outerIndexPtr()[c + 1]) return changed;
    }
    if (row != rows) return changed;
    ds.total_rows = rows;
    ds.first_row = 0;
    return ds;
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while loading");
  }
}

Result<uint64_t> CountLibsvmRows(const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(path));
  LineReader& reader = opened;
  uint64_t rows = 0;
  std::string_view line;
  while (reader.Next(&line)) rows += IsDataLine(line) ? 1 : 0;
  STRADS_RETURN_IF_ERROR(reader.status());
  return rows;
}

}  // namespace strads
