#include "engine/neighbour_lists.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include <Eigen/Dense>

namespace strads {
namespace {

// Dense data: the Gram matrix of the normalised columns by Eigen's symmetric rank update, about
// ten times the multiply-adds per second of the sparse row walk (vectorised, blocked for the
// cache). Returns the pairs (a < b) above rho, ordered by a; stops early once they pass max_pairs.
// Below this many columns the dense way runs on one thread.
constexpr Eigen::Index kDenseThreadsFrom = 256;

std::vector<std::pair<uint32_t, uint32_t>> DensePairs(const ColumnStore& store, double rho,
                                                      uint64_t max_pairs) {
  const uint64_t first = store.first();
  const auto count = static_cast<Eigen::Index>(store.end() - first);
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(store.num_rows(), count);
  for (Eigen::Index c = 0; c < count; ++c) {
    const auto rows = store.Rows(first + static_cast<uint64_t>(c));
    const auto values = store.Values(first + static_cast<uint64_t>(c));
    for (size_t n = 0; n < rows.size(); ++n) d(rows[n], c) = values[n];
  }
  // The lower triangle on two threads (a scheduler builds its lists while it is loading, after
  // the workers, whose loading is shorter, have let go of the cores): the columns split at h, one
  // thread takes the left triangle and the block below it, the other the right triangle; h =
  // (1 - 1/sqrt(2)) count gives both the same multiply-adds.
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(count, count);
  const auto h = static_cast<Eigen::Index>(double(count) * (1.0 - 1.0 / std::sqrt(2.0)));
  const Eigen::Index rest = count - h;
  auto left = [&] {
    gram.topLeftCorner(h, h).selfadjointView<Eigen::Lower>().rankUpdate(d.leftCols(h).transpose());
    gram.bottomLeftCorner(rest, h).noalias() = d.rightCols(rest).transpose() * d.leftCols(h);
  };
  auto right = [&] {
    gram.bottomRightCorner(rest, rest)
        .selfadjointView<Eigen::Lower>()
        .rankUpdate(d.rightCols(rest).transpose());
  };
  std::optional<std::thread> other;
  if (count >= kDenseThreadsFrom) {
    try {
      other.emplace(left);
    } catch (const std::system_error&) {  // no thread to be had: one does both
    }
  }
  right();
  if (other) {
    other->join();
  } else {
    left();
  }
  d.resize(0, 0);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (Eigen::Index a = 0; a < count; ++a) {
    for (Eigen::Index b = a + 1; b < count; ++b) {  // the lower triangle, column a
      if (std::min(1.0, std::abs(gram(b, a))) > rho) {
        pairs.emplace_back(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
      }
    }
    if (pairs.size() > max_pairs) break;  // Build reports it
  }
  return pairs;
}

// Sparse data: each column a against every later column it shares a row with, through the
// columns turned into rows; the inner products accumulate over a's rows in ascending order, as
// ColumnStore::Correlation's merge walk does, so the values agree bit for bit. `row_start` holds
// the rows' entry counts as prefix sums. Returns the pairs (a < b) above rho, ordered by a, or
// nothing once they pass max_pairs.
std::optional<std::vector<std::pair<uint32_t, uint32_t>>> SparsePairs(
    const ColumnStore& store, double rho, const std::vector<uint64_t>& row_start,
    uint64_t max_pairs) {
  const uint64_t first = store.first();
  const uint64_t count = store.end() - first;
  const size_t rows = row_start.size() - 1;
  // The same entries by row; within a row, in ascending column order (columns are visited in
  // order), so the entries after column a's in a row are exactly the later columns of that row.
  std::vector<uint32_t> row_col(row_start[rows]);
  std::vector<double> row_value(row_start[rows]);
  std::vector<uint64_t> cursor(row_start.begin(), row_start.end() - 1);
  for (uint64_t c = 0; c < count; ++c) {
    const auto col_rows = store.Rows(first + c);
    const auto col_values = store.Values(first + c);
    for (size_t n = 0; n < col_rows.size(); ++n) {
      const uint64_t e = cursor[static_cast<size_t>(col_rows[n])]++;
      row_col[e] = static_cast<uint32_t>(c);
      row_value[e] = col_values[n];
    }
  }
  std::copy(row_start.begin(), row_start.end() - 1, cursor.begin());

  // Gustavson's row-by-row product without a branch on whether b was met before (that branch
  // mispredicted about every other time, ~8 ns a multiply-add on shuffled columns): acc[] is all
  // zero between columns; a's products are summed in, then a second walk over the same entries
  // takes each b's sum at its first meeting, resetting it, so later meetings read 0 and fail the
  // test. Same sums, in the same order, as summing with a seen-stamp.
  std::vector<double> acc(count, 0.0);
  std::vector<uint32_t> hits;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (uint64_t a = 0; a < count; ++a) {
    const auto col_rows = store.Rows(first + a);
    const auto col_values = store.Values(first + a);
    uint64_t met = 0;
    for (size_t n = 0; n < col_rows.size(); ++n) {
      const auto r = static_cast<size_t>(col_rows[n]);
      assert(row_col[cursor[r]] == a);  // column a's entry in row r
      const double v = col_values[n];
      for (uint64_t e = cursor[r] + 1; e < row_start[r + 1]; ++e) {
        assert(row_col[e] != a);  // a column's row indices are distinct (the loaders refuse those)
        acc[row_col[e]] += v * row_value[e];
      }
      met += row_start[r + 1] - cursor[r] - 1;
    }
    hits.resize(met);
    size_t found = 0;
    for (size_t n = 0; n < col_rows.size(); ++n) {
      const auto r = static_cast<size_t>(col_rows[n]);
      const uint64_t own = cursor[r]++;
      for (uint64_t e = own + 1; e < row_start[r + 1]; ++e) {
        const uint32_t b = row_col[e];
        hits[found] = b;
        // Rounding can push |cos| of parallel columns a hair past 1; rho < 1.
        found += std::abs(acc[b]) > rho;
        acc[b] = 0.0;
      }
    }
    for (size_t k = 0; k < found; ++k) pairs.emplace_back(static_cast<uint32_t>(a), hits[k]);
    if (pairs.size() > max_pairs) return std::nullopt;
  }
  return pairs;
}

// The dense way's memory and its work in the sparse walk's units (Budget::max_work).
double DenseWork(double rows, double cols) {
  return rows * cols * (cols + 1) / 2 / NeighbourLists::kDenseSpeedup;
}

}  // namespace

double NeighbourLists::DenseBytes(uint64_t rows, uint64_t cols) {
  return 8.0 * (double(rows) * double(cols) + double(cols) * double(cols));
}

bool NeighbourLists::DenseWayFits(uint64_t rows, uint64_t cols, uint64_t nonzeros, Budget budget) {
  if (rows == 0 || cols == 0) return false;
  const double nnz = double(nonzeros);
  const double least_sparse_work = std::max(0.0, (nnz * nnz / double(rows) - nnz) / 2);
  const double dense_work = DenseWork(double(rows), double(cols));
  return DenseBytes(rows, cols) <= double(kMaxDenseBytes) &&
         dense_work <= double(budget.max_work) && dense_work < least_sparse_work;
}

Result<NeighbourLists> NeighbourLists::Build(const ColumnStore& store, double rho, Budget budget) {
  assert(rho >= 0.0 && rho < 1.0);
  const uint64_t first = store.first();
  const uint64_t count = store.end() - first;
  assert(count < (uint64_t{1} << 32));
  const auto rows = static_cast<size_t>(store.num_rows());
  const std::string what = "neighbour lists of parameters [" + std::to_string(first) + ", " +
                           std::to_string(store.end()) + ")";

  // Entries per row, and from them the work of either way, before anything large is allocated.
  std::vector<uint64_t> row_start(rows + 1, 0);
  for (uint64_t c = 0; c < count; ++c) {
    for (const int64_t r : store.Rows(first + c)) ++row_start[static_cast<size_t>(r) + 1];
  }
  uint64_t sparse_work = 0;
  for (size_t r = 0; r < rows; ++r) {
    const uint64_t n = row_start[r + 1];
    if (n > 1) sparse_work += n * (n - 1) / 2;
  }
  for (size_t r = 0; r < rows; ++r) row_start[r + 1] += row_start[r];
  const double dense_work = DenseWork(double(rows), double(count));
  const bool dense = budget.allow_dense && DenseBytes(rows, count) <= double(kMaxDenseBytes) &&
                     dense_work < double(sparse_work);
  const uint64_t work = dense ? static_cast<uint64_t>(dense_work) : sparse_work;
  if (work > budget.max_work) {
    return Status::FailedPrecondition(
        what + " would take " + std::to_string(sparse_work) + " multiply-adds (" +
        std::to_string(static_cast<uint64_t>(dense_work * kDenseSpeedup)) +
        " dense), over the budget of " + std::to_string(budget.max_work));
  }
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  if (dense) {
    pairs = DensePairs(store, rho, budget.max_entries / 2);
  } else {
    auto sparse = SparsePairs(store, rho, row_start, budget.max_entries / 2);
    if (sparse)
      pairs = std::move(*sparse);
    else
      pairs.resize(budget.max_entries / 2 + 1);  // reported just below
  }
  if (2 * pairs.size() > budget.max_entries) {
    return Status::FailedPrecondition(what + " at rho " + std::to_string(rho) +
                                      " would hold more than " +
                                      std::to_string(budget.max_entries) + " entries");
  }

  NeighbourLists lists;
  lists.first_ = first;
  lists.work_ = work;
  lists.dense_ = dense;
  lists.offset_.assign(count + 1, 0);
  for (const auto& [a, b] : pairs) {
    ++lists.offset_[a + 1];
    ++lists.offset_[b + 1];
  }
  for (uint64_t c = 0; c < count; ++c) lists.offset_[c + 1] += lists.offset_[c];
  lists.neighbour_.resize(lists.offset_[count]);
  std::vector<uint64_t> fill(lists.offset_.begin(), lists.offset_.end() - 1);
  // Pairs come ordered by a: a's list gets its later columns, b's its earlier ones; sorting each
  // list makes it ascending.
  for (const auto& [a, b] : pairs) {
    lists.neighbour_[fill[a]++] = b;
    lists.neighbour_[fill[b]++] = a;
  }
  for (uint64_t c = 0; c < count; ++c) {
    std::sort(lists.neighbour_.begin() + static_cast<std::ptrdiff_t>(lists.offset_[c]),
              lists.neighbour_.begin() + static_cast<std::ptrdiff_t>(lists.offset_[c + 1]));
  }
  return lists;
}

}  // namespace strads
