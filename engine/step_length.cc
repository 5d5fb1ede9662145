#include "engine/step_length.h"

namespace strads {

double StepLength(const OneSidedSlope& slope, int iterations) {
  if (slope(1.0, -1) <= 0.0) return 1.0;
  if (slope(0.0, +1) >= 0.0) return 0.0;
  double lo = 0.0, hi = 1.0;  // invariant: phi'(lo+) < 0, phi'(hi-) > 0
  for (int i = 0; i < iterations; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (slope(mid, +1) < 0.0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace strads
