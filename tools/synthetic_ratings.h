// A synthetic ratings matrix with power-law (Zipf) row and column popularity: the input of the
// static engine's load-balancing experiment (STRADS paper, Fig. 5), where a few users and items
// hold most of the ratings.
//
// What the generator produces, for a seed (deterministic on one platform and standard library):
//  * Popularity: row i (0-based) is drawn with probability ∝ 1 / (i + 1)^zipf, column j with
//    probability ∝ 1 / (j + 1)^zipf, independently. So row 0 and column 0 are the most popular
//    and ids are in popularity order (contiguous id ranges differ most in size, the hard case for
//    uniform blocking). With `shuffle`, row and column ids are permuted at random afterwards.
//  * Cells: first a covering set, so every row and column is non-empty: for every row i a cell
//    (i, column drawn by popularity), then for every column still empty a cell (row drawn by
//    popularity, j). Then cells (row, column), each drawn by popularity, until there are `ratings`
//    distinct cells; a repeated cell is drawn again. A heavy row can hold at most `cols` cells, so
//    the realised degrees are a power law truncated at the matrix's size.
//  * Split: every cell outside the covering set goes to the test set with probability
//    test_fraction; the covering set is always in train. So every row and column is non-empty in
//    train and a test cell's row and column are in train. No cell repeats, in or across the sets.
//  * Values: a planted rank-k model, a_ij = w_i^T h_j + noise * N(0, 1), with every entry of w_i
//    and h_j drawn N(0, 1) / k^(1/4), so the planted w_i^T h_j has variance 1.
//
// The functions are free of shared state and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace strads {

struct SyntheticRatingsOptions {
  uint64_t rows = 1000;
  uint64_t cols = 500;
  uint64_t ratings = 20000;    // distinct cells in train + test; rows + cols <= ratings
  uint32_t rank = 10;          // k of the planted model, >= 1
  double zipf = 1.0;           // popularity exponent >= 0 (0 = uniform)
  double test_fraction = 0.1;  // in [0, 1)
  double noise = 0.1;          // standard deviation of the noise, >= 0
  bool shuffle = false;        // permute row and column ids after generation
  uint64_t seed = 1;
};

// Ratings as coordinates (0-based), sorted by (row, col).
struct RatingEntries {
  std::vector<uint32_t> row;
  std::vector<uint32_t> col;
  std::vector<double> value;
  uint64_t size() const { return value.size(); }
};

struct SyntheticRatings {
  uint64_t rows = 0;
  uint64_t cols = 0;
  RatingEntries train;
  RatingEntries test;
};

// Ok, or InvalidArgument naming the option out of range. The draw is by rejection, so `ratings`
// is also limited to half the cells (rows * cols / 2); ids must fit in 32 bits.
Status ValidateSyntheticRatingsOptions(const SyntheticRatingsOptions& options);

// Generates the matrices described at the top of this file. Errors: InvalidArgument for bad
// options; FailedPrecondition when too many draws are repeats (the Zipf exponent concentrates the
// mass on fewer cells than `ratings`; lower --zipf or --ratings).
Result<SyntheticRatings> GenerateSyntheticRatings(const SyntheticRatingsOptions& options);

// Writes `entries` as `%%MatrixMarket matrix coordinate real general`, rows x cols, 1-based ids,
// values in shortest round-trip form. Errors: IoError naming `path`.
Status WriteRatingsMatrixMarket(const RatingEntries& entries, uint64_t rows, uint64_t cols,
                                const std::string& path);

}  // namespace strads
