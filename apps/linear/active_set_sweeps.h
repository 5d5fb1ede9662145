// The outer loop shared by the sequential reference solvers (the oracles of the dynamic apps).
//
// Cyclic coordinate descent with active-set passes: a full sweep over all n coordinates, then the
// exact optimality check — the only thing that may declare convergence — then repeated passes over
// the nonzero coordinates until their changes settle, and again. Budgets (updates, seconds,
// sweeps) stop it early. The app supplies the pieces as callables:
//   update(j)     one coordinate update; returns the size of the change (for "settled");
//                 it counts itself in `updates`
//   exact_check() the exact relative optimality violation of the current point
//   nonzero(j)    whether coordinate j is nonzero (the active set)
//   on_sweep()    called after each full sweep's exact check
//   elapsed()     seconds since the solve began
// Returns the final relative violation, exact. Pure function of its arguments; thread-compatible.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace strads {

struct SweepLimits {
  double tolerance = 1e-6;   // on the relative violation
  uint64_t max_updates = 0;  // 0 = none
  double max_seconds = 0;    // 0 = none
  uint64_t max_sweeps = 0;   // 0 = none
};

template <typename Update, typename ExactCheck, typename Nonzero, typename OnSweep,
          typename Elapsed>
double RunActiveSetSweeps(int64_t n, const SweepLimits& limits, double lambda_max, double violation,
                          const uint64_t& updates, uint64_t& sweeps, Update update,
                          ExactCheck exact_check, Nonzero nonzero, OnSweep on_sweep,
                          Elapsed elapsed) {
  // Active passes stop once every active coordinate moves its partial gradient by at most this
  // fraction of the convergence threshold, so the following full check usually passes.
  constexpr double kActiveSlack = 0.5;
  // Bound on consecutive active passes between full sweeps, so a slow active phase (or a
  // tolerance of 0) cannot starve the full sweeps that let new features enter.
  constexpr int kMaxActivePasses = 1000;
  constexpr uint64_t kClockEvery = 4096;  // updates between looks at the wall clock

  bool out_of_budget = false;
  auto budget_left = [&]() {
    if (limits.max_updates != 0 && updates >= limits.max_updates) out_of_budget = true;
    if (limits.max_seconds > 0 && updates % kClockEvery == 0 && elapsed() >= limits.max_seconds) {
      out_of_budget = true;
    }
    return !out_of_budget;
  };

  bool checked = true;
  std::vector<int64_t> active;
  while (violation > limits.tolerance) {
    if (limits.max_sweeps != 0 && sweeps >= limits.max_sweeps) break;
    if (limits.max_seconds > 0 && elapsed() >= limits.max_seconds) break;

    // Full sweep, then the exact check that alone may declare convergence.
    for (int64_t j = 0; j < n && budget_left(); ++j) update(j);
    checked = false;
    if (out_of_budget) break;
    ++sweeps;
    violation = exact_check();
    checked = true;
    on_sweep();
    if (violation <= limits.tolerance) break;

    // Active passes over the nonzeros until they settle.
    active.clear();
    for (int64_t j = 0; j < n; ++j) {
      if (nonzero(j)) active.push_back(j);
    }
    const double settled = kActiveSlack * limits.tolerance * lambda_max;
    for (int pass = 0; pass < kMaxActivePasses && !active.empty(); ++pass) {
      double biggest = 0.0;
      for (const int64_t j : active) {
        if (!budget_left()) break;
        biggest = std::max(biggest, update(j));
        checked = false;
      }
      if (out_of_budget || biggest <= settled) break;
      if (limits.max_seconds > 0 && elapsed() >= limits.max_seconds) break;
    }
    if (out_of_budget) break;
  }
  if (!checked) violation = exact_check();
  return violation;
}

}  // namespace strads
