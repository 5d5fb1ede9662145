// NeighbourLists: for each parameter of one scheduler's partition, the parameters of the same
// partition it depends on (|cos| of their columns > rho), found once at load time, so that the
// dependency filter checks a candidate in O(its neighbours) instead of walking its rows through an
// index of every kept column (issue 9: "the filter costs O(B · neighbours), not O(B²) sparse
// merges").
//
// Found exactly, not sketched, one of two ways, whichever costs less:
//   * sparse: the partition's columns are turned into rows, and each column a meets every later
//     column b that shares a row with it, in ascending row order. The inner products are bit for
//     bit ColumnStore::Correlation(a, b), so a filter using the lists makes the same decisions as
//     one computing correlations on the fly. Cost: sum over rows of (entries in the row)^2 / 2
//     multiply-adds, ~1-3 ns each (scattered).
//   * dense: the Gram matrix of the normalised columns by Eigen's symmetric rank update, rows x
//     columns^2 / 2 multiply-adds at about ten times the rate, when the dense copy and the Gram
//     matrix fit in kMaxDenseBytes, on two threads. Summed in another order: a pair within rounding
//     (~1e-15) of rho may fall on the other side than the on-the-fly filter puts it.
// Dense images (784 pixels, 12,000 rows) take ~0.4 s dense (1.4e9 multiply-adds sparse); the
// paper's shape (450 rows of 100,000 entries each, 2.2e12) is out of reach either way. A budget on
// the work says no before anything large is allocated, one on the lists' size as soon as the
// pairs found pass it (the dense way's matrices, at most kMaxDenseBytes, exist by then), and the
// caller falls back to the on-the-fly filter.
//
// Thread-safety: immutable once built; Build is a pure function.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "engine/dependency_filter.h"

namespace strads {

class NeighbourLists {
 public:
  struct Budget {
    // Multiply-adds of the sparse row walk (sum over rows of n_r (n_r - 1) / 2), or a tenth of the
    // dense way's, whichever is smaller: ~1-3 ns each.
    uint64_t max_work = uint64_t{1} << 29;
    // Stored neighbour entries (each pair twice, 4 bytes each).
    uint64_t max_entries = uint64_t{1} << 25;
    // Whether the dense way may be taken (engine/feature_grouping.h's budget: not).
    bool allow_dense = true;
  };

  // The lists of every column of `store` at threshold rho: b is in the list of a (and a in b's)
  // iff a != b and min(1, |x_a^T x_b| / (||x_a|| ||x_b||)) > rho. All-zero columns have none.
  // Errors: FailedPrecondition when the work or the lists would exceed `budget` (the message
  // gives the figures); nothing large is allocated before the work is known to fit.
  // REQUIRES: the store holds columns (not norms only), 0 <= rho < 1, fewer than 2^32 columns.
  static Result<NeighbourLists> Build(const ColumnStore& store, double rho, Budget budget);
  static Result<NeighbourLists> Build(const ColumnStore& store, double rho) {
    return Build(store, rho, Budget{});
  }

  // Whether Build would take the dense way within `budget` on a partition of `rows` x `cols` with
  // `nonzeros` entries, from those counts alone (before loading it): the dense matrices fit
  // kMaxDenseBytes, the dense work fits the budget, and it is below the least the sparse walk
  // can cost (nonzeros^2 / rows / 2, rows of equal length). That is, the partition is at least
  // ~32% non-zero (1 / sqrt(kDenseSpeedup)). Pure.
  static bool DenseWayFits(uint64_t rows, uint64_t cols, uint64_t nonzeros, Budget budget);
  // The dense way's matrices for a partition of `rows` x `cols`: the dense copy and the Gram
  // matrix, in bytes.
  static double DenseBytes(uint64_t rows, uint64_t cols);

  // The neighbours of parameter j (global id) as local indices (j' - first()), ascending.
  // REQUIRES: first() <= j < first() + size().
  std::span<const uint32_t> Of(uint64_t j) const {
    const uint64_t local = j - first_;
    return {neighbour_.data() + offset_[local], offset_[local + 1] - offset_[local]};
  }

  uint64_t first() const { return first_; }
  uint64_t size() const { return offset_.size() - 1; }
  // Stored entries: twice the number of dependent pairs.
  uint64_t entries() const { return neighbour_.size(); }
  // The work the build took (Budget::max_work's measure), and whether it went the dense way.
  uint64_t work() const { return work_; }
  bool dense() const { return dense_; }

  // The dense way's limit on its matrices, and its speed relative to the sparse walk's per
  // multiply-add (measured: 3.7e9 multiply-adds in 0.42 s, against 1-3 ns each sparse).
  static constexpr uint64_t kMaxDenseBytes = uint64_t{512} << 20;
  static constexpr double kDenseSpeedup = 10.0;

 private:
  NeighbourLists() = default;

  uint64_t first_ = 0;
  bool dense_ = false;
  uint64_t work_ = 0;
  std::vector<uint64_t> offset_{0};  // size() + 1 entries
  std::vector<uint32_t> neighbour_;
};

}  // namespace strads
