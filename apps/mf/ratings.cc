#include "apps/mf/ratings.h"

#include <algorithm>
#include <filesystem>

#include <cmath>
#include <limits>
#include <new>
#include <string_view>
#include <utility>

#include "common/line_reader.h"
#include "common/matrix_market_reader.h"
#include "common/memory_budget.h"

namespace strads::mf {
namespace {

constexpr uint64_t kMaxId = std::numeric_limits<uint32_t>::max();

// "source: " or "source:LINE: " for the entry at `e` (file order) when lines are known.
std::string Where(const std::string& source, const std::vector<uint64_t>* lines, uint64_t e) {
  std::string s = source.empty() ? std::string("ratings") : source;
  if (lines != nullptr) s.append(":").append(std::to_string((*lines)[e]));
  s.append(": ");
  return s;
}

// MakeRatings, with the file line of each input entry (or null) for messages and the line to
// blame for whole-matrix problems.
Result<Ratings> Build(uint64_t rows, uint64_t cols, std::vector<uint32_t> row,
                      std::vector<uint32_t> col, std::vector<double> value, EmptyLines empty,
                      std::string source, const std::vector<uint64_t>* lines, uint64_t size_line) {
  const std::string name = source.empty() ? std::string("ratings") : source;
  std::string at = name;
  if (size_line > 0) at.append(":").append(std::to_string(size_line));
  at.append(": ");
  if (row.size() != col.size() || row.size() != value.size()) {
    return Status::InvalidArgument(at + "row, col and value vectors differ in length");
  }
  if (rows > kMaxId || cols > kMaxId) {
    return Status::InvalidArgument(at + "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                                   " matrix exceeds the 2^32 - 1 id limit");
  }
  const uint64_t nnz = value.size();
  for (uint64_t e = 0; e < nnz; ++e) {
    if (row[e] >= rows || col[e] >= cols) {
      return Status::InvalidArgument(
          Where(name, lines, e) + "entry (" + std::to_string(uint64_t{row[e]} + 1) + ", " +
          std::to_string(uint64_t{col[e]} + 1) + ") is outside the " + std::to_string(rows) +
          " x " + std::to_string(cols) + " matrix");
    }
    if (!std::isfinite(value[e])) {
      return Status::InvalidArgument(Where(name, lines, e) + "value is not finite");
    }
  }

  // Two stable counting sorts (by column, then by row) give (row, col) order; `order` maps a
  // sorted position to the input entry.
  std::vector<uint64_t> order(nnz);
  {
    std::vector<uint64_t> by_col(nnz);
    std::vector<uint64_t> next(cols + 1, 0);
    for (uint64_t e = 0; e < nnz; ++e) ++next[col[e] + 1];
    for (uint64_t j = 0; j < cols; ++j) next[j + 1] += next[j];
    for (uint64_t e = 0; e < nnz; ++e) by_col[next[col[e]]++] = e;
    std::vector<uint64_t> start(rows + 1, 0);
    for (uint64_t e = 0; e < nnz; ++e) ++start[row[e] + 1];
    for (uint64_t i = 0; i < rows; ++i) start[i + 1] += start[i];
    for (uint64_t e : by_col) order[start[row[e]]++] = e;
  }

  Ratings r;
  r.source = std::move(source);
  r.rows = rows;
  r.cols = cols;
  r.row.resize(nnz);
  r.col.resize(nnz);
  r.value.resize(nnz);
  for (uint64_t k = 0; k < nnz; ++k) {
    const uint64_t e = order[k];
    r.row[k] = row[e];
    r.col[k] = col[e];
    r.value[k] = value[e];
    if (k > 0 && r.row[k] == r.row[k - 1] && r.col[k] == r.col[k - 1]) {
      std::string first = lines != nullptr
                              ? " (first on line " + std::to_string((*lines)[order[k - 1]]) + ")"
                              : std::string();
      return Status::InvalidArgument(Where(name, lines, e) + "entry (" +
                                     std::to_string(uint64_t{row[e]} + 1) + ", " +
                                     std::to_string(uint64_t{col[e]} + 1) + ") repeats" + first);
    }
  }

  r.row_start.assign(rows + 1, 0);
  r.col_start.assign(cols + 1, 0);
  for (uint64_t k = 0; k < nnz; ++k) {
    ++r.row_start[r.row[k] + 1];
    ++r.col_start[r.col[k] + 1];
  }
  for (uint64_t i = 0; i < rows; ++i) r.row_start[i + 1] += r.row_start[i];
  for (uint64_t j = 0; j < cols; ++j) r.col_start[j + 1] += r.col_start[j];
  if (empty == EmptyLines::kReject) {
    for (uint64_t i = 0; i < rows; ++i) {
      if (r.row_start[i] == r.row_start[i + 1]) {
        return Status::InvalidArgument(at + "row " + std::to_string(i + 1) + " of " +
                                       std::to_string(rows) + " has no ratings");
      }
    }
    for (uint64_t j = 0; j < cols; ++j) {
      if (r.col_start[j] == r.col_start[j + 1]) {
        return Status::InvalidArgument(at + "column " + std::to_string(j + 1) + " of " +
                                       std::to_string(cols) + " has no ratings");
      }
    }
  }
  r.col_entry.resize(nnz);
  {
    std::vector<uint64_t> next(r.col_start.begin(), r.col_start.end() - 1);
    for (uint64_t k = 0; k < nnz; ++k) r.col_entry[next[r.col[k]]++] = k;
  }
  return r;
}

// Reads `path`; when `like` is set its dimensions must match.
Result<Ratings> Load(const std::string& path, EmptyLines empty, const Ratings* like) {
  try {
    STRADS_ASSIGN_OR_RETURN(MatrixMarketReader opened, MatrixMarketReader::Open(path));
    MatrixMarketReader& reader = opened;
    const MatrixMarketHeader& h = reader.header();
    if (h.field == MatrixMarketHeader::Field::kPattern) {
      return LineError(path, 1, "a 'pattern' matrix has no rating values (need real or integer)");
    }
    if (like != nullptr && (h.rows != like->rows || h.cols != like->cols)) {
      return LineError(path, h.size_line,
                       "declares a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                           " matrix but the training matrix is " + std::to_string(like->rows) +
                           " x " + std::to_string(like->cols));
    }
    if (h.rows > kMaxId || h.cols > kMaxId) {
      return LineError(path, h.size_line,
                       "a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                           " matrix exceeds the 2^32 - 1 id limit");
    }

    std::vector<uint32_t> row, col;
    std::vector<double> value;
    std::vector<uint64_t> lines;
    {
      // Room for the declared entries, but never more than the file could hold (an entry line
      // takes at least 6 bytes), so that a lying header cannot make us allocate.
      std::error_code ec;
      const uint64_t cap = std::filesystem::file_size(path, ec) / 6;
      const uint64_t reserve = ec ? 0 : std::min<uint64_t>(h.nnz, cap);
      // Row and column offsets (and the factors' rows) per id, about 40 bytes per entry.
      STRADS_RETURN_IF_ERROR(
          CheckMemory(path, SaturatingMulAdd(16, h.rows + h.cols, SaturatingMulAdd(40, reserve)),
                      "a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix",
                      AvailableMemoryBytes()));
      row.reserve(reserve);
      col.reserve(reserve);
      value.reserve(reserve);
      lines.reserve(reserve);
    }
    uint64_t i, j;
    double v;
    while (reader.Next(&i, &j, &v)) {
      row.push_back(static_cast<uint32_t>(i - 1));
      col.push_back(static_cast<uint32_t>(j - 1));
      value.push_back(v);
      lines.push_back(reader.line_number());
    }
    STRADS_RETURN_IF_ERROR(reader.status());
    return Build(h.rows, h.cols, std::move(row), std::move(col), std::move(value), empty, path,
                 &lines, h.size_line);
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while loading");
  }
}

}  // namespace

Result<Ratings> MakeRatings(uint64_t rows, uint64_t cols, std::vector<uint32_t> row,
                            std::vector<uint32_t> col, std::vector<double> value, EmptyLines empty,
                            std::string source) {
  return Build(rows, cols, std::move(row), std::move(col), std::move(value), empty,
               std::move(source), nullptr, 0);
}

Coverage CoverageOf(const Ratings& ratings) {
  Coverage c;
  double sum = 0.0;
  for (double v : ratings.value) sum += v;
  c.mean = ratings.nnz() == 0 ? 0.0 : sum / static_cast<double>(ratings.nnz());
  c.empty_row.resize(ratings.rows);
  c.empty_col.resize(ratings.cols);
  for (uint64_t i = 0; i < ratings.rows; ++i) {
    c.empty_row[i] = ratings.row_start[i] == ratings.row_start[i + 1];
    c.empty_rows += c.empty_row[i] ? 1 : 0;
  }
  for (uint64_t j = 0; j < ratings.cols; ++j) {
    c.empty_col[j] = ratings.col_start[j] == ratings.col_start[j + 1];
    c.empty_cols += c.empty_col[j] ? 1 : 0;
  }
  return c;
}

Result<Ratings> LoadRatings(const std::string& path, EmptyLines empty) {
  return Load(path, empty, nullptr);
}

Result<Ratings> LoadRatingsLike(const std::string& path, const Ratings& train) {
  return Load(path, EmptyLines::kAllow, &train);
}

}  // namespace strads::mf
