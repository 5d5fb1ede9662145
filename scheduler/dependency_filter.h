// The dependency check of SAP (paper Section 2.1, Algorithm 1, second step).
//
// From candidates drawn by priority, SAP keeps a set of coefficients that are nearly independent,
// |x_j^T x_k| <= rho for every kept pair, so that updating them in parallel does not interfere.
// The paper assumes standardised columns; we do not rescale the data (the objective is on the
// data exactly as loaded), so the measure used here is the absolute cosine of the raw columns,
// |x_j^T x_k| / (||x_j|| ||x_k||), in [0, 1] and independent of column scaling. An all-zero column
// has correlation 0 with every column (updating it is a no-op, so it never interferes).
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

class ColumnStore {
 public:
  // Copies and normalises columns [first, end) of x.
  // REQUIRES: first <= end <= x.cols().
  ColumnStore(const SparseColMatrix& x, uint64_t first, uint64_t end);

  uint64_t first() const { return first_; }
  uint64_t end() const { return end_; }
  bool Contains(uint64_t j) const { return j >= first_ && j < end_; }

  // |cos| of the raw columns a and b: the inner product of their normalised copies (merge-walk of
  // the sorted row indices), clamped to [0, 1]; 0 if either column is all zero.
  // O(nnz_a + nnz_b). REQUIRES: Contains(a) && Contains(b).
  double Correlation(uint64_t a, uint64_t b) const;

  // ||x_j||^2 of the raw (not normalised) column. REQUIRES: Contains(j).
  double SquaredNorm(uint64_t j) const { return sq_norm_[j - first_]; }

  // Stored entries of column j. REQUIRES: Contains(j).
  uint64_t Nnz(uint64_t j) const { return offset_[j - first_ + 1] - offset_[j - first_]; }

 private:
  uint64_t first_;
  uint64_t end_;
  std::vector<uint64_t>
      offset_;                 // end_ - first_ + 1 entries; column c is [offset_[c], offset_[c+1])
  std::vector<int64_t> row_;   // sorted ascending within each column
  std::vector<double> value_;  // normalised: each non-zero column has unit norm
  std::vector<double> sq_norm_;  // raw squared norms
};

// Greedy independent subset: walks `candidates` in order (highest priority first) and keeps a
// candidate iff its Correlation with every already kept one is <= rho; stops once max_keep are
// kept. A candidate id repeated in the list is considered once. Returns the kept ids in candidate
// order. O(|candidates| * max_keep * column nnz).
// REQUIRES: store.Contains(c) for every candidate c.
std::vector<uint64_t> FilterIndependent(const ColumnStore& store,
                                        std::span<const uint64_t> candidates_in_priority_order,
                                        double rho, size_t max_keep);

}  // namespace strads
