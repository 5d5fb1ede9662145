// How many passes a column-layout worker makes over its share of a chord in one round.
//
// A worker's share is exact coordinate descent against its replica, so a second pass over the
// same parameters (with the shared vector as the first pass left it) is more exact descent, as
// in glmnet's active-set loop — and it costs arithmetic only: no message, no scheduler draw, no
// commit. A round's fixed cost (messages, the draw, the coordinator's commit: hundreds of µs on
// loopback, docs/performance.md) is paid once for up to `max_passes` passes.
//
// Rule: pass 1 visits every parameter of the share; pass p > 1 only while the previous pass
// moved some parameter by more than `settle` times the largest move of pass 1 (a pass that
// changes little is not repeated), and it visits only the parameters the previous pass moved (by
// more than `revisit` times that largest move, where revisit > 0).
// A parameter that did not move is at its coordinate optimum as the replica (or the quadratic
// model) then stood (for Lasso and the L1 apps mostly a zero held by the threshold), so, as in
// glmnet's active-set cycles, the repeated passes go over the parameters that are changing: on a
// chord of 2048 mostly-zero coefficients they cost a few dozen updates, not 2048. The rule looks at
// the changes only, so it is deterministic: the same chord on the same replica makes the same
// passes.
//
// Each pass decreases the objective (every coordinate step does), so a worker's share stays a
// descent step from the round's common point and the coordinator's line search (the mean of the
// workers' points is never worse; engine/step_length.h) keeps every round a descent.
// Pure; thread-compatible.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace strads {

// The settle factors SharePassesOf (engine/dynamic_spec.h) chooses between: a job's several
// workers, and a lone worker.
inline constexpr double kSettle = 0.1, kLoneSettle = 1e-3;

struct SharePasses {
  uint32_t max_passes = 1;  // >= 1
  double settle = kSettle;  // in [0, 1]
  // A parameter is visited again only if the pass before moved it by more than `revisit` times
  // the largest move of pass 1 (0: by any amount), as liblinear's inner loop shrinks.
  double revisit = 0.0;  // in [0, 1]
};

// Runs step(k, ahead) for k = 0 .. n-1 in pass 1, then for the k the previous pass moved
// (ascending) in each further pass `rule` allows; `ahead` is what the pass visits after k, in
// order (empty after its last), for a step to prefetch what it will read next (PrefetchAhead).
// step returns |change| of its parameter. Returns the number of passes made (0 when n == 0).
template <typename Step>
uint32_t RunSharePasses(size_t n, const SharePasses& rule, Step step) {
  if (n == 0) return 0;
  std::vector<size_t> visit(n), moved;
  std::vector<double> first_moves;  // pass 1's move of each parameter, when `revisit` applies
  std::iota(visit.begin(), visit.end(), size_t{0});
  moved.reserve(n);
  const uint32_t max_passes = std::max<uint32_t>(rule.max_passes, 1);
  if (rule.revisit > 0.0 && max_passes > 1) first_moves.resize(n);
  double first = 0.0, keep_above = 0.0;  // pass 1's largest move; the revisit threshold
  uint32_t pass = 0;
  for (;;) {
    double largest = 0.0;
    const std::span<const size_t> order(visit);
    for (size_t v = 0; v < order.size(); ++v) {
      const double move = step(order[v], order.subspan(v + 1));
      largest = std::max(largest, move);
      if (move > keep_above) moved.push_back(order[v]);
      if (pass == 0 && !first_moves.empty()) first_moves[order[v]] = move;
    }
    ++pass;
    if (pass == 1) {
      first = largest;
      keep_above = rule.revisit * first;
      if (!first_moves.empty()) {  // pass 1 kept every move > 0: now the threshold is known
        std::erase_if(moved, [&](size_t k) { return first_moves[k] <= keep_above; });
      }
    }
    if (pass >= max_passes || first <= 0.0 || (pass > 1 && largest <= rule.settle * first)) break;
    if (moved.empty()) break;
    visit.swap(moved);
    moved.clear();
  }
  return pass;
}

}  // namespace strads
