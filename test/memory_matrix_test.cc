// Tests of in-memory data (common/memory_matrix.h): every layout loads what the MatrixMarket file
// of the same matrix loads, malformed buffers are refused with what is wrong, and a job on an
// embedded cluster reads its matrix in memory as it reads the file.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/client.h"
#include "cli/embedded_cluster.h"
#include "common/data_loader.h"
#include "common/memory_matrix.h"
#include "common/protocol.h"
#include "test/cluster_test_util.h"
#include "test/status_testing.h"
#include "test/temp_dir.h"

namespace strads {
namespace {

using testing::Must;

// A rows x cols matrix with about a third of its entries zero, its labels, and every layout of it
// (the buffers the views of MemoryMatrix point into).
struct Buffers {
  uint64_t rows, cols;
  Eigen::MatrixXd dense;
  std::vector<double> row_major, col_major, labels;
  std::vector<int32_t> csr_starts, csr_indices;
  std::vector<double> csr_values;
  std::vector<int64_t> csc_starts, csc_indices;
  std::vector<double> csc_values;

  Buffers(uint64_t r, uint64_t c, uint64_t seed) : rows(r), cols(c), dense(r, c) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    for (uint64_t i = 0; i < rows; ++i)
      for (uint64_t j = 0; j < cols; ++j) dense(i, j) = rng() % 3 == 0 ? 0.0 : normal(rng);
    for (uint64_t i = 0; i < rows; ++i) labels.push_back(normal(rng));
    csr_starts.push_back(0);
    for (uint64_t i = 0; i < rows; ++i) {
      for (uint64_t j = 0; j < cols; ++j) {
        row_major.push_back(dense(i, j));
        if (dense(i, j) != 0.0) {
          csr_indices.push_back(static_cast<int32_t>(j));
          csr_values.push_back(dense(i, j));
        }
      }
      csr_starts.push_back(static_cast<int32_t>(csr_values.size()));
    }
    csc_starts.push_back(0);
    for (uint64_t j = 0; j < cols; ++j) {
      for (uint64_t i = 0; i < rows; ++i) {
        col_major.push_back(dense(i, j));
        if (dense(i, j) != 0.0) {
          csc_indices.push_back(static_cast<int64_t>(i));
          csc_values.push_back(dense(i, j));
        }
      }
      csc_starts.push_back(static_cast<int64_t>(csc_values.size()));
    }
  }

  MemoryMatrix View(MemoryMatrix::Layout layout, const std::string& name = "m") const {
    MemoryMatrix m;
    m.layout = layout;
    m.rows = rows;
    m.cols = cols;
    m.labels = labels;
    m.name = name;
    switch (layout) {
      case MemoryMatrix::Layout::kDenseRowMajor:
        m.values = row_major;
        break;
      case MemoryMatrix::Layout::kDenseColMajor:
        m.values = col_major;
        break;
      case MemoryMatrix::Layout::kCsr:
        m.values = csr_values;
        m.starts = std::span<const int32_t>(csr_starts);
        m.indices = std::span<const int32_t>(csr_indices);
        break;
      case MemoryMatrix::Layout::kCsc:
        m.values = csc_values;
        m.starts = std::span<const int64_t>(csc_starts);
        m.indices = std::span<const int64_t>(csc_indices);
        break;
    }
    return m;
  }

  // The MatrixMarket file of the matrix and its labels file, in `dir`.
  DataSource File(const testing::TempDir& dir) const {
    std::ostringstream mm, y;
    mm.precision(17);
    y.precision(17);
    mm << "%%MatrixMarket matrix coordinate real general\n"
       << rows << ' ' << cols << ' ' << csr_values.size() << '\n';
    for (uint64_t i = 0; i < rows; ++i) {
      for (int32_t k = csr_starts[i]; k < csr_starts[i + 1]; ++k) {
        mm << i + 1 << ' ' << csr_indices[k] + 1 << ' ' << csr_values[k] << '\n';
      }
      y << labels[i] << '\n';
    }
    return DataSource{dir.Write("x.mtx", mm.str()), "mm", dir.Write("y.txt", y.str())};
  }
};

constexpr MemoryMatrix::Layout kLayouts[] = {
    MemoryMatrix::Layout::kDenseRowMajor, MemoryMatrix::Layout::kDenseColMajor,
    MemoryMatrix::Layout::kCsr, MemoryMatrix::Layout::kCsc};

void CheckSame(const Dataset& a, const Dataset& b) {
  REQUIRE(a.x.rows() == b.x.rows());
  REQUIRE(a.x.cols() == b.x.cols());
  CHECK(a.x.nonZeros() == b.x.nonZeros());
  CHECK(Eigen::MatrixXd(a.x) == Eigen::MatrixXd(b.x));
  CHECK(a.y == b.y);
  CHECK(a.total_rows == b.total_rows);
  CHECK(a.first_row == b.first_row);
}

DataSource InMemory(const MemoryMatrix& m) {
  DataSource src{"memory:" + m.name, "", ""};
  src.memory = std::make_shared<const MemoryMatrix>(m);
  return src;
}

}  // namespace

TEST_CASE("every in-memory layout loads what the MatrixMarket file of the matrix loads",
          "[memory]") {
  const Buffers b(37, 11, 3);
  testing::TempDir dir;
  const DataSource file = b.File(dir);
  const std::vector<ColumnRange> ranges = {{1, 4}, {7, 9}};
  for (auto layout : kLayouts) {
    CAPTURE(static_cast<int>(layout));
    const MemoryMatrix m = b.View(layout);
    REQUIRE(CheckMemoryMatrix(m).ok());
    const DataSource memory = InMemory(m);
    CheckSame(Must(LoadColumns(memory, {})), Must(LoadColumns(file, {})));
    CheckSame(Must(LoadColumns(memory, ranges)), Must(LoadColumns(file, ranges)));
    CheckSame(Must(LoadDataset(memory, {5, 20})), Must(LoadDataset(file, {5, 20})));
    CHECK(Must(CountRows(memory)) == 37);
    std::vector<double> memory_norms, file_norms;
    uint64_t memory_rows = 0, file_rows = 0;
    CHECK(Must(CountColumnEntries(memory, kUnknownMemory, &memory_norms, &memory_rows)) ==
          Must(CountColumnEntries(file, kUnknownMemory, &file_norms, &file_rows)));
    CHECK(memory_rows == file_rows);
    for (size_t j = 0; j < file_norms.size(); ++j) {
      CHECK(memory_norms[j] == Approx(file_norms[j]).epsilon(1e-14));
    }
    // Part 0 counts the whole matrix, the other parts nothing (the coordinator sums the parts).
    uint64_t rows = 0;
    CHECK(Must(CountColumnEntriesPart(memory, 0, 2, &rows)) == Must(CountColumnEntries(file)));
    CHECK(rows == 37);
    CHECK(Must(CountColumnEntriesPart(memory, 1, 2, &rows)).empty());
    CHECK(rows == 0);
  }
}

TEST_CASE("a dense layout's zeros are not stored", "[memory]") {
  const Buffers b(20, 6, 9);
  const Dataset d = Must(LoadColumns(InMemory(b.View(MemoryMatrix::Layout::kDenseRowMajor)), {}));
  CHECK(static_cast<size_t>(d.x.nonZeros()) == b.csr_values.size());
  CHECK(b.csr_values.size() < 20 * 6);
}

TEST_CASE("malformed in-memory buffers are refused naming what is wrong", "[memory]") {
  const Buffers b(10, 4, 1);
  auto refused = [](const MemoryMatrix& m, const std::string& text) {
    testing::CheckInvalidArgument(CheckMemoryMatrix(m), text);
  };
  MemoryMatrix m = b.View(MemoryMatrix::Layout::kCsr, "train");
  m.labels = m.labels.first(9);
  refused(m, "memory:train: 9 labels for 10 rows");
  m = b.View(MemoryMatrix::Layout::kDenseRowMajor);
  m.values = m.values.first(39);
  refused(m, "39 values for a dense 10 x 4 matrix");
  m = b.View(MemoryMatrix::Layout::kCsr);
  m.starts = std::span<const int32_t>(b.csr_starts).first(10);
  refused(m, "10 offsets for 10 rows");
  std::vector<int32_t> indices = b.csr_indices;
  m = b.View(MemoryMatrix::Layout::kCsr);
  m.indices = std::span<const int32_t>(indices);
  indices[0] = 4;
  refused(m, "index 4 out of range [0, 4)");
  indices[0] = -1;
  refused(m, "index -1 out of range");
  indices = b.csr_indices;
  uint64_t row = 0;  // the first with 2 entries
  while (b.csr_starts[row + 1] - b.csr_starts[row] < 2) ++row;
  std::swap(indices[b.csr_starts[row]], indices[b.csr_starts[row] + 1]);
  refused(m, "row " + std::to_string(row) + "'s indices are not sorted without repeats");
  indices[b.csr_starts[row]] = indices[b.csr_starts[row] + 1];  // a repeat
  refused(m, "row " + std::to_string(row) + "'s indices are not sorted without repeats");
  std::vector<int32_t> starts = b.csr_starts;
  m.indices = std::span<const int32_t>(b.csr_indices);
  m.starts = std::span<const int32_t>(starts);
  starts.back() -= 1;
  refused(m, "the offsets run from 0 to");
}

TEST_CASE("a memory path resolves in the member's data, and names what is missing", "[memory]") {
  const Buffers b(10, 4, 1);
  auto held = std::make_shared<const MemoryMatrix>(b.View(MemoryMatrix::Layout::kCsc, "train"));
  const MemoryData data({held});
  CHECK(Must(ResolveDataSource("memory:train", "", "", &data)).memory == held);
  CHECK(Must(ResolveDataSource("/data/x.svm", "libsvm", "", &data)).memory == nullptr);
  for (const MemoryData* member : {&data, static_cast<const MemoryData*>(nullptr)}) {
    auto missing = ResolveDataSource("memory:test", "", "", member);
    CHECK(missing.status().code() == StatusCode::kNotFound);
    CHECK_THAT(missing.status().message(),
               Catch::StartsWith("memory:test: no such data in this member's memory"));
  }
}

TEST_CASE("a Lasso job reads its matrix in memory as it reads the file", "[memory][cluster]") {
  const Buffers b(120, 30, 5);
  testing::TempDir dir;
  const DataSource file = b.File(dir);
  double objective[2] = {0, 0};
  for (int in_memory : {0, 1}) {
    std::vector<std::shared_ptr<const MemoryMatrix>> matrices;
    matrices.push_back(
        std::make_shared<const MemoryMatrix>(b.View(MemoryMatrix::Layout::kCsr, "train")));
    EmbeddedCluster cluster(1, 2, testing::FastOptions(), "warn", {},
                            std::make_shared<const MemoryData>(std::move(matrices)));
    proto::JobSpec spec = testing::BaseSpec("lasso", in_memory ? "memory:train" : file.path, 5.0);
    if (!in_memory) spec.mutable_dynamic()->set_labels_path(file.labels_path);
    spec.mutable_dynamic()->set_tolerance(1e-9);
    InProcTransport transport(cluster.hub(), "client");
    Client client(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
    const proto::JobInfo info =
        testing::WaitForJob(client, testing::SubmitJob(client, "client", spec));
    REQUIRE(info.state() == proto::JOB_SUCCEEDED);
    CHECK(info.converged());
    objective[in_memory] = info.objective();
  }
  CHECK(objective[1] == Approx(objective[0]).epsilon(1e-9));
}

TEST_CASE("a job naming memory data its members do not hold fails saying so", "[memory][cluster]") {
  EmbeddedCluster cluster(1, 1, testing::FastOptions());
  InProcTransport transport(cluster.hub(), "client");
  Client client(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
  const proto::JobInfo info = testing::WaitForJob(
      client,
      testing::SubmitJob(client, "client", testing::BaseSpec("lasso", "memory:train", 1.0)));
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("memory:train: no such data in this member's memory"));
}

}  // namespace strads
