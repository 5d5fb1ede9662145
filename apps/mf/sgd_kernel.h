// The SGD step of the mf app and of its sequential reference (one function, so that one worker
// with one block reproduces the reference bit for bit): LIBMF's update (Chin, Zhuang, Juan and
// Lin, "A learning-rate schedule for stochastic gradient methods to matrix factorization",
// PAKDD 2015), in single precision.
//
// For rating a_ij, with e = a_ij - w_i^T h_j, the gradients (halved) of the per-rating term f_ij
// (apps/mf/mf_reference.h) are g_w = -e h_j + r_i w_i and g_h = -e w_i + c_j h_j (r_i, c_j the
// per-rating penalty coefficients), and both rows move at once, from their old values:
//   w_i -= eta / sqrt(G_i) g_w,   h_j -= eta / sqrt(G^j) g_h   (1 / sqrt to about 23 bits),
//   G_i += |g_w|^2 / (s k),       G^j += |g_h|^2 / (s k).
// G_i and G^j are one AdaGrad accumulator per factor row (LIBMF's "RPCS": per-coordinate steps
// averaged over the row), starting at s^2, where s is the standard deviation of the training
// ratings (RatingScale). That is LIBMF's schedule on the ratings divided by s, written in the
// ratings' own units: the steps do not depend on the data's scale, so eta = 0.1 works untuned.
//
// Layout: a factor row is kp = PaddedRank(k) floats, the coordinates past k zero (they stay zero:
// their gradients are zero). The loops run over lanes of kSgdLanes floats with as many partial
// sums, in a fixed order, so the compiler vectorises them without reassociating anything; the
// function is compiled for x86-64-v3 (AVX2, FMA) and for the baseline, and picks one at load time.
//
// Thread-compatibility: pure functions over the caller's arrays.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strads::mf {

inline constexpr uint32_t kSgdLanes = 8;

// k rounded up to a multiple of kSgdLanes.
inline uint32_t PaddedRank(uint32_t k) { return (k + kSgdLanes - 1) / kSgdLanes * kSgdLanes; }

// One rating of a row's run: its column within the block's H rows, and its value.
struct SgdRating {
  uint32_t col;
  float value;
};

struct SgdRates {
  float eta = 0;      // learning rate of this epoch
  float row_reg = 0;  // r_i
  float g_scale = 0;  // 1 / (s k)
};

// Takes one step for each of the n ratings of row i, in order. w (kp floats) and *gw are w_i and
// G_i; h (kp floats per column), gh and col_reg (per column) are the block's H rows, their
// accumulators and c_j. Returns the sum of the errors e (not finite once the iterates blow up).
float SgdRow(float* w, float* gw, const SgdRating* ratings, size_t n, float* h, float* gh,
             const float* col_reg, uint32_t kp, const SgdRates& rates);

// The evaluation pass's w^T h over t < k, for SGD's single-precision w and the blocks' double h
// (and for ALS's double w): in double, four lanes of partial sums (then the k mod 4 last terms)
// added in a fixed order, vectorised like SgdRow.
double EvalDot(const float* w, const double* h, uint32_t k);
double EvalDot(const double* w, const double* h, uint32_t k);

}  // namespace strads::mf
