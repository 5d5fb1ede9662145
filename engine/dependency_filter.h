// The dependency check of SAP (paper Section 2.1, Algorithm 1, second step).
//
// From candidates drawn by priority, SAP keeps a set of coefficients that are nearly independent,
// |x_j^T x_k| <= rho for every kept pair (of different groups, when groups are set), so that
// updating them in parallel does not interfere. The paper assumes standardised columns; we do not
// rescale the data (the objective is on the data exactly as loaded), so the measure used here is
// the absolute cosine of the raw columns, |x_j^T x_k| / (||x_j|| ||x_k||), in [0, 1] and
// independent of column scaling. An all-zero column has correlation 0 with every column (updating
// it is a no-op, so it never interferes).
//
// ColumnStore keeps unit-normalised copies of the columns of one contiguous feature range
// [first, end) (the features one scheduler owns) in a compact CSC layout. Feature ids in its API
// are global (column j of the full matrix); the store maps them to its own range.
//
// Thread-safety: ColumnStore is immutable after construction, so all of its methods may be called
// concurrently. FilterIndependent is a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/dataset.h"

namespace strads {

class NeighbourLists;

class ColumnStore {
 public:
  // Copies and normalises columns [first, end) of x.
  // REQUIRES: first <= end <= x.cols().
  ColumnStore(const SparseColMatrix& x, uint64_t first, uint64_t end);

  // Norms only: columns [first, end) of a matrix of `num_rows` rows of which only the squared
  // norms are known, for a scheduler that runs no dependency filter. Every column then has no
  // stored entries (Nnz 0, Correlation 0).
  // REQUIRES: first <= end; sq_norms.size() == end - first.
  ColumnStore(uint64_t first, uint64_t end, int64_t num_rows, std::vector<double> sq_norms);

  uint64_t first() const { return first_; }
  uint64_t end() const { return end_; }
  bool Contains(uint64_t j) const { return j >= first_ && j < end_; }

  // |cos| of the raw columns a and b: the inner product of their normalised copies (merge-walk of
  // the sorted row indices), clamped to [0, 1]; 0 if either column is all zero.
  // O(nnz_a + nnz_b). REQUIRES: Contains(a) && Contains(b).
  double Correlation(uint64_t a, uint64_t b) const;

  // ||x_j||^2 of the raw (not normalised) column. REQUIRES: Contains(j).
  double SquaredNorm(uint64_t j) const { return sq_norm_[j - first_]; }
  // Sets ||x_j||^2 of a norms-only store (its norms arrive after it is built). REQUIRES:
  // Contains(j); the store was built from norms, not from a matrix.
  void SetSquaredNorm(uint64_t j, double sq_norm) { sq_norm_[j - first_] = sq_norm; }
  // Asks the CPU to fetch SquaredNorm(j) (a hint). REQUIRES: Contains(j).
  void PrefetchSquaredNorm(uint64_t j) const { __builtin_prefetch(sq_norm_.data() + (j - first_)); }

  // Stored entries of column j. REQUIRES: Contains(j).
  uint64_t Nnz(uint64_t j) const { return offset_[j - first_ + 1] - offset_[j - first_]; }

  // Row indices (ascending) and normalised values of column j. REQUIRES: Contains(j).
  std::span<const int64_t> Rows(uint64_t j) const {
    return {row_.data() + offset_[j - first_], Nnz(j)};
  }
  std::span<const double> Values(uint64_t j) const {
    return {value_.data() + offset_[j - first_], Nnz(j)};
  }
  // Rows of the matrix the columns came from.
  int64_t num_rows() const { return num_rows_; }
  // Stored entries over rows x columns (0 for an empty store).
  double density() const {
    const double cells = double(num_rows_) * double(end_ - first_);
    return cells > 0 ? double(row_.size()) / cells : 0.0;
  }

 private:
  uint64_t first_;
  uint64_t end_;
  int64_t num_rows_;
  std::vector<uint64_t>
      offset_;                 // end_ - first_ + 1 entries; column c is [offset_[c], offset_[c+1])
  std::vector<int64_t> row_;   // sorted ascending within each column
  std::vector<double> value_;  // normalised: each non-zero column has unit norm
  std::vector<double> sq_norm_;  // raw squared norms
};

// The greedy dependency check with reusable scratch space. It keeps an inverted row index of the
// columns kept so far (row -> their entries in that row), so a candidate c is checked against
// every kept column at once by walking c's rows: O(nnz(c) * kept columns per row) instead of
// O(|kept| * (nnz(c) + nnz(k))) for pairwise merge walks. On sparse data this is the difference
// between the scheduler keeping up with the workers or not.
// On dense data every row holds an entry of every kept column, and the index is a dense matrix
// instead (IndexKind::kDense): row r holds the kept columns' entries in that row side by side, so a
// candidate's entry in row r adds to all of its inner products in one contiguous, vectorised
// pass, where the linked index chases a pointer an entry. The sums are the same, in the same
// order (the candidate's rows ascending; a column with no entry in a row adds an exact zero), so
// both indexes keep the same parameters. Measured on the gene data's columns (128 rows, dense):
// strads-sampler-bench --filter.
// Thread-compatibility: one thread; `store` must outlive it.
class DependencyFilter {
 public:
  explicit DependencyFilter(const ColumnStore& store);

  // How kept columns are indexed: kAuto takes the dense matrix where the store is at least
  // kDenseIndexDensity non-zero and the matrix (rows x (running + max_keep) doubles) holds at most
  // kMaxDenseIndexEntries; the others force one (for tests and benchmarks).
  enum class IndexKind { kAuto, kRows, kDense };
  void SetIndexKind(IndexKind kind) { index_kind_ = kind; }
  static constexpr double kDenseIndexDensity = 0.25;
  static constexpr uint64_t kMaxDenseIndexEntries = uint64_t{1} << 23;

  // Groups of parameters that never interfere with each other (the column layout: one group per
  // worker, whose updates within a chord are sequential and exact): from now on, two candidates
  // of the same group are never checked against each other. Running parameters are still checked
  // against every candidate (they are updated against an older state). group_by_local[i] is the
  // group of parameter store.first() + i.
  // REQUIRES: group_by_local.size() == store.end() - store.first().
  void SetGroups(std::vector<uint32_t> group_by_local);
  // Moves parameter j to group `group` (< the number of groups SetGroups saw), e.g. to the worker
  // that now updates it (--active-worker). No-op without groups. REQUIRES: store.Contains(j).
  void SetGroup(uint64_t j, uint32_t group) {
    if (!group_.empty()) group_[j - store_.first()] = group;
  }

  // Checks candidates against precomputed neighbour lists (engine/neighbour_lists.h) of this
  // store at threshold `lists_rho`: a candidate then costs O(its neighbours) and the work bound
  // below does not apply. Filter calls at that rho use them, others (and a null pointer) the
  // row index. Lists found by the sparse walk hold the same inner products the row index
  // computes, so the kept sets are the same; by the dense way, a pair within rounding of rho may
  // be decided the other way. REQUIRES: `lists` (if not null) was built from `store` and outlives
  // the filter.
  void UseNeighbours(const NeighbourLists* lists, double lists_rho) {
    lists_ = lists;
    lists_rho_ = lists_rho;
  }

  // Greedy independent subset: walks `candidates` in order (highest priority first) and keeps a
  // candidate iff its |corr| with every already kept one is <= rho; stops once max_keep are kept.
  // A candidate id repeated in the list is considered once. Returns the kept ids in candidate
  // order. Candidates must also have |corr| <= rho with every id in `already_running` (e.g.
  // parameters of earlier chords still in flight), which are not returned.
  // Bounded work: on dense data every candidate meets every kept column in every row, O(B^2 n) a
  // chord, which can take seconds and starve the scheduler's event loop (and its heartbeats). So
  // the walk stops, keeping what it has kept, once it has visited more than
  // kWorkPerEntry x (the candidates' entries) + kMinWork index entries: the filter then costs at
  // most a small multiple of reading the candidates, and the chord is shorter, never less safe.
  // With neighbour lists at this rho (UseNeighbours) the walk is by lists and unbounded: each
  // candidate costs its list's length. rho >= 1 checks nothing (|corr| <= 1 always).
  // With the dense index the bound counts multiply-adds (a candidate's entries x the columns
  // indexed) and allows kDenseSpeedup times as many, each being that much cheaper.
  // REQUIRES: store.Contains(c) for every candidate c and every already running id.
  std::vector<uint64_t> Filter(std::span<const uint64_t> candidates_in_priority_order, double rho,
                               size_t max_keep, std::span<const uint64_t> already_running = {});

 private:
  std::vector<uint64_t> FilterByLists(std::span<const uint64_t> candidates, size_t max_keep,
                                      std::span<const uint64_t> already_running);
  std::vector<uint64_t> FilterByDenseIndex(std::span<const uint64_t> candidates, double rho,
                                           size_t max_keep,
                                           std::span<const uint64_t> already_running);
  bool UseDenseIndex(size_t max_keep, size_t running) const;
  // Adds column's entries to the row index under `owner`.
  void Index(uint64_t column, uint32_t owner);
  uint32_t Group(uint64_t column) const;

  static constexpr uint32_t kNoGroup = UINT32_MAX;
  static constexpr uint64_t kWorkPerEntry = 4;
  static constexpr uint64_t kMinWork = 1 << 16;
  static constexpr uint64_t kDenseSpeedup = 8;

  const ColumnStore& store_;
  std::vector<int64_t> head_;     // by row: newest entry of a kept column in that row, or -1
  std::vector<int64_t> next_;     // by entry: the next entry in the same row, or -1
  std::vector<uint32_t> owner_;   // by entry: running columns first, then kept ones
  std::vector<double> value_;     // by entry: normalised value
  std::vector<int64_t> touched_;  // rows whose head_ must be reset
  std::vector<double> acc_;       // by owner: inner product with the candidate
  std::vector<uint32_t> touched_owners_;  // owners whose acc_ the candidate changed
  std::vector<uint32_t> indexed_;         // by local column: == epoch_ when indexed in this call
  std::vector<uint32_t> group_;           // by local column (empty: no groups)
  std::vector<uint32_t> owner_group_;     // by owner: its group, kNoGroup for running ones
  std::vector<uint32_t> group_count_;     // by group: owners of it indexed in this call
  std::vector<uint32_t> running_;         // by local column: == epoch_ when running in this call
  const NeighbourLists* lists_ = nullptr;
  double lists_rho_ = 1.0;
  uint32_t epoch_ = 0;
  IndexKind index_kind_ = IndexKind::kAuto;
  std::vector<double> dense_;  // the dense index: rows x capacity_, row-major, zero outside a call
  size_t capacity_ = 0;        // columns a row of dense_ has room for
};

// FilterIndependent with a one-off DependencyFilter (see there).
std::vector<uint64_t> FilterIndependent(const ColumnStore& store,
                                        std::span<const uint64_t> candidates_in_priority_order,
                                        double rho, size_t max_keep);

}  // namespace strads
