#include "common/data_loader.h"

#include <algorithm>
#include <filesystem>

#include "common/libsvm_reader.h"
#include "common/matrix_market_reader.h"
#include "common/memory_matrix.h"

namespace strads {

Result<DataFormat> ResolveFormat(const DataSource& src) {
  if (src.format == "libsvm" || src.format == "svmlight") return DataFormat::kLibsvm;
  if (src.format == "mm") return DataFormat::kMatrixMarket;
  if (!src.format.empty()) {
    return Status::InvalidArgument("unknown data format '" + src.format + "' for " + src.path +
                                   " (expected libsvm, svmlight or mm)");
  }
  const std::string& p = src.path;
  if (p.ends_with(".mtx") || p.ends_with(".mm")) return DataFormat::kMatrixMarket;
  return DataFormat::kLibsvm;
}

Result<Dataset> LoadDataset(const DataSource& src, RowRange rows, uint64_t available_memory) {
  if (src.memory) return MemoryRows(*src.memory, rows, available_memory);
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(src));
  if (format == DataFormat::kLibsvm) return ReadLibsvm(src.path, rows, available_memory);
  if (src.labels_path.empty()) {
    return Status::InvalidArgument(src.path + ": a MatrixMarket data set needs a labels file");
  }
  return ReadMatrixMarket(src.path, src.labels_path, rows, available_memory);
}

Result<Dataset> LoadColumns(const DataSource& src, std::span<const ColumnRange> columns,
                            uint64_t available_memory) {
  if (src.memory) return MemoryColumns(*src.memory, columns, available_memory);
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(src));
  if (format == DataFormat::kLibsvm) {
    return ReadLibsvm(src.path, RowRange{}, available_memory, columns);
  }
  if (src.labels_path.empty()) {
    return Status::InvalidArgument(src.path + ": a MatrixMarket data set needs a labels file");
  }
  return ReadMatrixMarket(src.path, src.labels_path, RowRange{}, available_memory, columns);
}

Result<Dataset> LoadColumns(const DataSource& src, std::span<const ColumnRange> columns,
                            std::span<const uint64_t> counts, uint64_t rows,
                            uint64_t available_memory) {
  if (src.memory) return MemoryColumns(*src.memory, columns, available_memory);
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(src));
  if (format != DataFormat::kLibsvm) return LoadColumns(src, columns, available_memory);
  return ReadLibsvmColumns(src.path, columns, counts, rows, available_memory);
}

Result<std::vector<uint64_t>> CountColumnEntries(const DataSource& src, uint64_t available_memory,
                                                 std::vector<double>* sq_norms, uint64_t* rows) {
  if (src.memory) {
    if (rows) *rows = src.memory->rows;
    if (sq_norms) {
      STRADS_ASSIGN_OR_RETURN(Dataset all, MemoryColumns(*src.memory, {}, available_memory));
      sq_norms->resize(static_cast<size_t>(all.x.cols()));
      for (int64_t j = 0; j < all.x.cols(); ++j) (*sq_norms)[j] = all.x.col(j).squaredNorm();
    }
    return MemoryColumnEntries(*src.memory);
  }
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(src));
  if (format == DataFormat::kLibsvm) {
    return CountLibsvmColumns(src.path, available_memory, sq_norms, rows);
  }
  return CountMatrixMarketColumns(src.path, available_memory, sq_norms, rows);
}

Result<std::vector<uint64_t>> CountColumnEntriesPart(const DataSource& src, uint32_t part,
                                                     uint32_t parts, uint64_t* rows,
                                                     uint64_t available_memory) {
  if (src.memory) {  // counted whole by part 0, as a MatrixMarket file
    if (part == 0) return CountColumnEntries(src, available_memory, nullptr, rows);
    if (rows) *rows = 0;
    return std::vector<uint64_t>{};
  }
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(src));
  if (format != DataFormat::kLibsvm) {
    if (part == 0) return CountMatrixMarketColumns(src.path, available_memory, nullptr, rows);
    if (rows) *rows = 0;
    return std::vector<uint64_t>{};
  }
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(src.path, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) {
      return Status::NotFound(src.path + ": no such file");
    }
    return Status::IoError(src.path + ": cannot read its size: " + ec.message());
  }
  const uint64_t n = std::max<uint32_t>(parts, 1);
  const uint64_t begin = size / n * part + std::min<uint64_t>(part, size % n);
  const uint64_t end = begin + size / n + (part < size % n ? 1 : 0);
  return CountLibsvmColumns(src.path, available_memory, nullptr, rows, {begin, end});
}

Status WithWorkersCounts(Status status) {
  if (status.ok() || status.message().find("changed while loading") == std::string::npos) {
    return status;
  }
  return Status::InvalidArgument(status.message() +
                                 " (or the workers' copies of it differ: the column counts are "
                                 "theirs, each of its own copy)");
}

Result<uint64_t> CountRows(const DataSource& src) {
  if (src.memory) return src.memory->rows;
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(src));
  if (format == DataFormat::kLibsvm) return CountLibsvmRows(src.path);
  STRADS_ASSIGN_OR_RETURN(MatrixMarketHeader header, ReadMatrixMarketHeader(src.path));
  return header.rows;
}

RowRange ShardRows(uint64_t total, uint32_t rank, uint32_t parts) {
  if (rank >= parts) return {total, total};
  const uint64_t base = total / parts;
  const uint64_t extra = total % parts;
  const uint64_t begin = rank * base + std::min<uint64_t>(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

}  // namespace strads
