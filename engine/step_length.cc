#include "engine/step_length.h"

#include <algorithm>
#include <cmath>

namespace strads {

double StepLength(const OneSidedSlope& slope, int iterations) {
  double s_hi = slope(1.0, -1);
  if (s_hi <= 0.0) return 1.0;
  double s_lo = slope(0.0, +1);
  if (s_lo >= 0.0) return 0.0;
  // Invariant: phi'(lo+) < 0 < phi'(hi-) (s_lo and s_hi are those slopes, or Illinois' halves).
  // False position on the slope, Illinois variant: when the same end is kept twice in a row, the
  // other end's slope is halved, so the interpolation point moves past the root. Exact in one
  // step where the slope is linear (Lasso between two kinks), superlinear where it is smooth, and
  // still a bracketing method at a kink of the penalty.
  // A slope this close to 0 is a root: rounding, not a kink.
  const double flat = 1e-12 * std::max(-s_lo, s_hi);
  double lo = 0.0, hi = 1.0;
  int kept = 0;  // -1: lo moved last time, +1: hi moved
  for (int i = 0; i < iterations && hi - lo > kWidth; ++i) {
    double mid = (lo * s_hi - hi * s_lo) / (s_hi - s_lo);
    if (!(mid > lo && mid < hi)) mid = 0.5 * (lo + hi);
    const double s = slope(mid, +1);
    if (std::abs(s) <= flat) return mid;
    if (s < 0.0) {
      lo = mid;
      s_lo = s;
      if (kept == -1) s_hi *= 0.5;
      kept = -1;
    } else {
      hi = mid;
      s_hi = std::max(s, 0.0);
      if (kept == +1) s_lo *= 0.5;
      kept = +1;
    }
  }
  return lo;
}

}  // namespace strads
