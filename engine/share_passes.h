// How many passes a column-layout worker makes over its share of a chord in one round.
//
// A worker's share is exact coordinate descent against its replica, so a second pass over the
// same parameters (with the shared vector as the first pass left it) is more exact descent, as
// in glmnet's active-set loop — and it costs arithmetic only: no message, no scheduler draw, no
// commit. A round's fixed cost (messages, the draw, the coordinator's commit: hundreds of µs on
// loopback, docs/scaling.md) is paid once for up to `max_passes` passes.
//
// Rule: pass 1 always; pass p > 1 only while the previous pass moved some parameter by more than
// `settle` times the largest move of pass 1 (a pass that changes little is not repeated). The
// rule looks at the changes only, so it is deterministic: the same chord on the same replica
// makes the same passes.
//
// Each pass decreases the objective (every coordinate step does), so a worker's share stays a
// descent step from the round's common point and the coordinator's line search (the mean of the
// workers' points is never worse; engine/step_length.h) keeps every round a descent.
// Pure; thread-compatible.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace strads {

struct SharePasses {
  uint32_t max_passes = 1;  // >= 1
  double settle = 0.1;      // in [0, 1]
};

// Runs step(k) for k = 0 .. n-1 once per pass under `rule`; step returns |change| of its
// parameter. Returns the number of passes made (0 when n == 0).
template <typename Step>
uint32_t RunSharePasses(size_t n, const SharePasses& rule, Step step) {
  if (n == 0) return 0;
  double first = 0.0;
  uint32_t pass = 0;
  while (pass < std::max<uint32_t>(rule.max_passes, 1)) {
    double largest = 0.0;
    for (size_t k = 0; k < n; ++k) largest = std::max(largest, step(k));
    ++pass;
    if (pass == 1) first = largest;
    if (largest == 0.0 || (pass > 1 && largest <= rule.settle * first)) break;
  }
  return pass;
}

}  // namespace strads
