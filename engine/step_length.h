// StepLength: how far to go along a round's combined step.
//
// Owner-computes: each worker w moves its own parameters from b to b + d_w by
// exact sequential coordinate descent against the shared vector as it was at the start of the
// round. Every d_w alone decreases the objective F, but their sum d = sum_w d_w need not: two
// correlated parameters on different workers both correct the same part of the residual, and
// together they overshoot (the interference the SAP dependency filter exists to prevent). The
// coordinator therefore takes the step b + alpha d with the alpha in [0, 1] that minimises
//   phi(alpha) = F(b + alpha d) - F(b),
// which is convex in alpha (F is convex). It never increases F, whatever the chord, and:
//   * alpha = 1 whenever the workers' steps do not interfere (phi is still decreasing at 1);
//   * phi(1/P) <= 0 for P workers that moved (b + d/P is the mean of the P points b + d_w), so the
//     chosen alpha is never worse than that average.
// The caller gives phi's one-sided derivatives; this file only finds the minimiser (the exact
// search of PCDN, Bian et al. 2013, without its Armijo backtracking: phi' is cheap here).
// Pure functions; thread-safe.
#pragma once

#include <functional>

namespace strads {

// phi'(alpha) from the right (side = +1) or from the left (side = -1).
using OneSidedSlope = std::function<double(double alpha, int side)>;

// The minimiser of a convex phi over [0, 1], from its one-sided derivatives: 1 if phi'(1-) <= 0,
// 0 if phi'(0+) >= 0, else a root of the slope (|phi'| <= 1e-12 of the end slopes), or an alpha
// with phi'(alpha+) < 0 (so phi decreases on [0, alpha] and phi(alpha) < 0) within kWidth of the
// minimiser, found by false position on the slope (Illinois
// variant) in at most `iterations` evaluations after the first two; if they run out first, the
// best lower end found. A Lasso round (slope linear between kinks) takes 1 to 3 evaluations.
// REQUIRES: phi convex on [0, 1] (else the result is some point where the slope changes sign).
inline constexpr double kWidth = 1e-7;
double StepLength(const OneSidedSlope& slope, int iterations = 40);

}  // namespace strads
