#include "common/memory_matrix.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/huge_pages.h"
#include "common/memory_budget.h"

namespace strads {
namespace {

using Layout = MemoryMatrix::Layout;

bool Sparse(const MemoryMatrix& m) { return m.layout == Layout::kCsr || m.layout == Layout::kCsc; }

// Calls fn(span) with the indices as they are held, 32- or 64-bit.
template <class Fn>
decltype(auto) Visit(const MemoryMatrix::Indices& indices, Fn&& fn) {
  return std::visit(std::forward<Fn>(fn), indices);
}

size_t SizeOf(const MemoryMatrix::Indices& indices) {
  return Visit(indices, [](auto span) { return span.size(); });
}

// Which columns a load keeps: every one when `columns` is empty.
std::vector<char> KeptColumns(uint64_t cols, std::span<const ColumnRange> columns) {
  std::vector<char> keep(cols, columns.empty() ? 1 : 0);
  for (const ColumnRange& r : columns) {
    for (uint64_t j = r.begin; j < std::min(r.end, cols); ++j) keep[j] = 1;
  }
  return keep;
}

// Calls f(j, r, v) for every non-zero v of `m` at row r in [first, end) and a column j that `keep`
// marks: column by column for the column-major layouts, row by row for the row-major ones (so
// within a column always by ascending r).
template <class F>
void ForEachKeptEntry(const MemoryMatrix& m, uint64_t first, uint64_t end,
                      std::span<const char> keep, F&& f) {
  const auto cols = static_cast<int64_t>(m.cols);
  Visit(m.starts, [&](auto starts) {
    Visit(m.indices, [&](auto indices) {
      switch (m.layout) {
        case Layout::kCsc:
          for (int64_t j = 0; j < cols; ++j) {
            if (!keep[j]) continue;
            const auto* b = indices.data() + starts[j];
            const auto* e = indices.data() + starts[j + 1];
            const auto* from = std::lower_bound(b, e, static_cast<int64_t>(first));
            const auto* to = std::lower_bound(from, e, static_cast<int64_t>(end));
            for (const auto* k = from; k < to; ++k) {
              f(j, static_cast<uint64_t>(*k), m.values[k - indices.data()]);
            }
          }
          break;
        case Layout::kCsr:
          for (uint64_t r = first; r < end; ++r) {
            for (auto k = starts[r]; k < starts[r + 1]; ++k) {
              if (keep[indices[k]]) f(static_cast<int64_t>(indices[k]), r, m.values[k]);
            }
          }
          break;
        case Layout::kDenseRowMajor:
          for (uint64_t r = first; r < end; ++r) {
            const double* row = m.values.data() + r * m.cols;
            for (int64_t j = 0; j < cols; ++j) {
              if (keep[j] && row[j] != 0.0) f(j, r, row[j]);
            }
          }
          break;
        case Layout::kDenseColMajor:
          for (int64_t j = 0; j < cols; ++j) {
            if (!keep[j]) continue;
            const double* col = m.values.data() + j * m.rows;
            for (uint64_t r = first; r < end; ++r) {
              if (col[r] != 0.0) f(j, r, col[r]);
            }
          }
          break;
      }
    });
  });
}

// The entries of rows [first, end) of `m` in the columns `keep` marks, as compressed columns
// (row indices relative to `first`, ascending within a column).
Result<Dataset> Build(const MemoryMatrix& m, uint64_t first, uint64_t end,
                      std::span<const char> keep, uint64_t available_memory) {
  const auto cols = static_cast<int64_t>(m.cols);
  const auto rows = static_cast<int64_t>(end - first);
  // The entries of each kept column in the rows, first counted (outer[j + 1]), then placed.
  std::vector<int64_t> count(m.cols + 1, 0);
  ForEachKeptEntry(m, first, end, keep, [&](int64_t j, uint64_t, double) { ++count[j + 1]; });
  for (int64_t j = 0; j < cols; ++j) count[j + 1] += count[j];
  const auto nnz = static_cast<uint64_t>(count[cols]);
  const std::string where = std::string(kMemoryPrefix) + m.name;
  STRADS_RETURN_IF_ERROR(CheckIndexable(where, static_cast<uint64_t>(rows), m.cols, nnz));
  STRADS_RETURN_IF_ERROR(CheckMemory(where, DatasetBuildBytes(rows, m.cols, nnz),
                                     fmt::format("{} entries in {} columns", nnz, m.cols),
                                     available_memory));
  Dataset out;
  out.path = where;
  out.total_rows = m.rows;
  out.first_row = first;
  out.y = Eigen::Map<const Eigen::VectorXd>(m.labels.data() + first, rows);
  SparseColMatrix& x = out.x;
  x.resize(rows, cols);
  x.resizeNonZeros(static_cast<int64_t>(nnz));
  AdviseHugePages(x.valuePtr(), nnz * sizeof(double));
  AdviseHugePages(x.innerIndexPtr(), nnz * sizeof(StorageIndex));
  StorageIndex* outer = x.outerIndexPtr();
  for (int64_t j = 0; j <= cols; ++j) outer[j] = static_cast<StorageIndex>(count[j]);
  double* values = x.valuePtr();
  StorageIndex* inner = x.innerIndexPtr();
  // count[j] is now where column j's next entry goes.
  auto place = [&](int64_t j, uint64_t r, double v) {
    const int64_t at = count[j]++;
    inner[at] = static_cast<StorageIndex>(r - first);
    values[at] = v;
  };
  ForEachKeptEntry(m, first, end, keep, place);
  return out;
}

}  // namespace

Status CheckMemoryMatrix(const MemoryMatrix& m) {
  const std::string where = std::string(kMemoryPrefix) + m.name;
  auto bad = [&](const std::string& what) { return Status::InvalidArgument(where + ": " + what); };
  if (m.labels.size() != m.rows) {
    return bad(fmt::format("{} labels for {} rows", m.labels.size(), m.rows));
  }
  if (!Sparse(m)) {
    if (m.values.size() != m.rows * m.cols) {
      return bad(
          fmt::format("{} values for a dense {} x {} matrix", m.values.size(), m.rows, m.cols));
    }
    return CheckIndexable(where, m.rows, m.cols, m.values.size());
  }
  STRADS_RETURN_IF_ERROR(CheckIndexable(where, m.rows, m.cols, m.values.size()));
  const bool csr = m.layout == Layout::kCsr;
  const uint64_t major = csr ? m.rows : m.cols, minor = csr ? m.cols : m.rows;
  if (SizeOf(m.starts) != major + 1) {
    return bad(
        fmt::format("{} offsets for {} {}", SizeOf(m.starts), major, csr ? "rows" : "columns"));
  }
  if (SizeOf(m.indices) != m.values.size()) {
    return bad(fmt::format("{} indices for {} values", SizeOf(m.indices), m.values.size()));
  }
  return Visit(m.starts, [&](auto starts) {
    return Visit(m.indices, [&](auto indices) -> Status {
      if (starts[0] != 0 || static_cast<uint64_t>(starts[major]) != m.values.size()) {
        return bad(fmt::format("the offsets run from {} to {}, not from 0 to the {} entries",
                               starts[0], starts[major], m.values.size()));
      }
      for (uint64_t i = 0; i < major; ++i) {
        if (starts[i + 1] < starts[i]) return bad(fmt::format("offset {} decreases", i + 1));
        for (auto k = starts[i]; k < starts[i + 1]; ++k) {
          const auto index = static_cast<int64_t>(indices[k]);
          if (index < 0 || static_cast<uint64_t>(index) >= minor) {
            return bad(fmt::format("index {} out of range [0, {})", index, minor));
          }
          if (k > starts[i] && indices[k - 1] >= indices[k]) {
            return bad(
                fmt::format("{} {}'s indices are not sorted without repeats (scipy: "
                            "X.sum_duplicates())",
                            csr ? "row" : "column", i));
          }
        }
      }
      return Status::Ok();
    });
  });
}

std::vector<uint64_t> MemoryColumnEntries(const MemoryMatrix& m) {
  std::vector<uint64_t> entries(m.cols, 0);
  Visit(m.starts, [&](auto starts) {
    Visit(m.indices, [&](auto indices) {
      switch (m.layout) {
        case Layout::kCsc:
          for (uint64_t j = 0; j < m.cols; ++j) entries[j] = starts[j + 1] - starts[j];
          break;
        case Layout::kCsr:
          for (auto j : indices) ++entries[j];
          break;
        case Layout::kDenseRowMajor:
          for (uint64_t k = 0; k < m.values.size(); ++k) entries[k % m.cols] += m.values[k] != 0;
          break;
        case Layout::kDenseColMajor:
          for (uint64_t k = 0; k < m.values.size(); ++k) entries[k / m.rows] += m.values[k] != 0;
          break;
      }
    });
  });
  return entries;
}

Result<Dataset> MemoryColumns(const MemoryMatrix& m, std::span<const ColumnRange> columns,
                              uint64_t available_memory) {
  return Build(m, 0, m.rows, KeptColumns(m.cols, columns), available_memory);
}

Result<Dataset> MemoryRows(const MemoryMatrix& m, RowRange rows, uint64_t available_memory) {
  STRADS_RETURN_IF_ERROR(CheckRowRange(std::string(kMemoryPrefix) + m.name, rows));
  const uint64_t first = std::min(rows.begin, m.rows);
  return Build(m, first, std::min(rows.end, m.rows), KeptColumns(m.cols, {}), available_memory);
}

MemoryData::MemoryData(std::vector<std::shared_ptr<const MemoryMatrix>> matrices) {
  for (auto& m : matrices) {
    std::string name = m->name;
    matrices_.emplace(std::move(name), std::move(m));
  }
}

std::shared_ptr<const MemoryMatrix> MemoryData::Find(std::string_view path) const {
  if (!IsMemoryPath(path)) return nullptr;
  auto it = matrices_.find(path.substr(kMemoryPrefix.size()));
  return it == matrices_.end() ? nullptr : it->second;
}

Result<DataSource> ResolveDataSource(std::string path, std::string format, std::string labels_path,
                                     const MemoryData* memory) {
  DataSource src{std::move(path), std::move(format), std::move(labels_path)};
  if (!IsMemoryPath(src.path)) return src;
  src.memory = memory ? memory->Find(src.path) : nullptr;
  if (!src.memory) {
    return Status::NotFound(src.path +
                            ": no such data in this member's memory (in-memory data is read only "
                            "by an embedded cluster's members, in the process that holds it)");
  }
  return src;
}

}  // namespace strads
