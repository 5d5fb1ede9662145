#include "apps/mf/sgd_kernel.h"

#include <cmath>
#include <cstring>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace strads::mf {
namespace {

// kSgdLanes floats as one value (GCC/Clang vector extension): element-wise arithmetic that
// compiles to one AVX register or two SSE ones, each lane computed as the scalar code would.
using Lanes = float __attribute__((vector_size(kSgdLanes * sizeof(float))));

inline Lanes Load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void Store(float* p, Lanes v) { std::memcpy(p, &v, sizeof v); }

// The lanes' sum as a tree of depth 3 (it is on the critical path of every step).
inline float Sum(Lanes v) {
  static_assert(kSgdLanes == 8);
  return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

// 1 / sqrt(x) for x > 0: the hardware's estimate and one Newton step (about 23 bits, as LIBMF's
// own approximation), off the critical path's square root and division.
inline float InvSqrt(float x) {
#if defined(__SSE__)
  const float y = _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)));
  return y * (1.5f - 0.5f * x * y * y);
#else
  return 1.0f / std::sqrt(x);
#endif
}

// How many ratings ahead the next H rows are fetched (their columns are random; the rows do not
// fit the L2 cache for ~10^4 columns and more).
constexpr size_t kPrefetch = 4;

}  // namespace

__attribute__((target_clones("arch=x86-64-v3", "default"))) float SgdRow(
    float* w, float* gw, const SgdRating* ratings, size_t n, float* h, float* gh,
    const float* col_reg, uint32_t kp, const SgdRates& rates) {
  const float row_reg = rates.row_reg;
  float errors = 0.0f;
  for (size_t r = 0; r < n; ++r) {
    if (r + kPrefetch < n) {
      const float* ahead = h + size_t{ratings[r + kPrefetch].col} * kp;
      for (size_t d = 0; d < kp; d += 16) __builtin_prefetch(ahead + d, 1);
    }
    const uint32_t j = ratings[r].col;
    float* hj = h + size_t{j} * kp;
    Lanes dot = {};
    for (size_t d = 0; d < kp; d += kSgdLanes) dot += Load(w + d) * Load(hj + d);
    const float e = ratings[r].value - Sum(dot);
    const float cj = col_reg[j];
    const float step_w = rates.eta * InvSqrt(*gw), step_h = rates.eta * InvSqrt(gh[j]);
    Lanes norm_w = {}, norm_h = {};
    for (size_t d = 0; d < kp; d += kSgdLanes) {
      const Lanes wd = Load(w + d), hd = Load(hj + d);
      const Lanes g_w = row_reg * wd - e * hd;
      const Lanes g_h = cj * hd - e * wd;
      norm_w += g_w * g_w;
      norm_h += g_h * g_h;
      Store(w + d, wd - step_w * g_w);
      Store(hj + d, hd - step_h * g_h);
    }
    *gw += Sum(norm_w) * rates.g_scale;
    gh[j] += Sum(norm_h) * rates.g_scale;
    errors += e;
  }
  return errors;
}

namespace {

// Four doubles as one value, like Lanes.
using Doubles = double __attribute__((vector_size(4 * sizeof(double))));
using Floats = float __attribute__((vector_size(4 * sizeof(float))));

inline Doubles Load4(const double* p) {
  Doubles v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline Doubles Load4(const float* p) {
  Floats v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_convertvector(v, Doubles);
}

template <typename T>
inline double Dot4(const T* w, const double* h, uint32_t k) {
  Doubles sum = {};
  size_t t = 0;
  for (; t + 4 <= k; t += 4) sum += Load4(w + t) * Load4(h + t);
  double tail = 0.0;
  for (; t < k; ++t) tail += static_cast<double>(w[t]) * h[t];
  return ((sum[0] + sum[1]) + (sum[2] + sum[3])) + tail;
}

}  // namespace

__attribute__((target_clones("arch=x86-64-v3", "default"))) double EvalDot(const float* w,
                                                                           const double* h,
                                                                           uint32_t k) {
  return Dot4(w, h, k);
}

__attribute__((target_clones("arch=x86-64-v3", "default"))) double EvalDot(const double* w,
                                                                           const double* h,
                                                                           uint32_t k) {
  return Dot4(w, h, k);
}

}  // namespace strads::mf
