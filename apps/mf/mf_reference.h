// The sequential matrix-factorisation solvers: the oracles the distributed mf engine is checked
// against, and the single-process baselines.
//
// Objective, on the ratings exactly as loaded (no centring, no biases), in one of two forms:
//   weighted (the default; LIBMF, ALS-WR (Zhou et al. 2008) and Spark MLlib's ALS):
//     F(W, H) = sum_{(i,j) in Omega} (a_ij - w_i^T h_j)^2
//               + lambda (sum_i |Omega_i| ||w_i||^2 + sum_j |Omega^j| ||h_j||^2),
//   plain:
//     F(W, H) = sum_{(i,j) in Omega} (a_ij - w_i^T h_j)^2 + lambda (||W||_F^2 + ||H||_F^2),
// W is rows x k (row i = w_i), H is cols x k (row j = h_j), Omega_i the ratings of row i and
// Omega^j those of column j. Write c_i (c^j) for the penalty weight of row i (column j): |Omega_i|
// (|Omega^j|) when weighted, 1 when plain. Every reported objective is this F. The weighted form
// shrinks a row in proportion to the evidence it has, so on power-law data the heavy rows are not
// under-regularised and the light ones over-regularised; it is what generalises there.
//
// CCD++ (Yu, Hsieh, Si, Dhillon, ICDM 2012). Keeps the residual R = A - W H^T on Omega. One outer
// iteration: for t = 0..k-1: R^ = R + w_t h_t^T on Omega (w_t, h_t the t-th columns); then
// ccd_inner times: for every row i, w_it = sum_{j in Omega_i} R^_ij h_jt / (lambda c_i +
// sum_j h_jt^2), then for every column j, h_jt = sum_{i in Omega^j} R^_ij w_it / (lambda c^j +
// sum_i w_it^2) (0 when the denominator is 0); then R = R^ - w_t h_t^T. Each such step exactly
// minimises F over the coordinates it changes, so F never increases. Initialisation: W = 0, H
// uniform in [0, 1/sqrt(k)) (so R = A at the start).
//
// SGD. One epoch (iteration) visits every rating once: the rows with ratings in an order drawn
// afresh from the seed each epoch, and each row's ratings in one fixed order (SgdRowOrder: by a
// hash of the seed and the column, so that no row meets its columns in the order of their ids).
// F is split exactly into per-rating terms
//   f_ij = (a_ij - w_i^T h_j)^2 + lambda c_i ||w_i||^2 / |Omega_i| + lambda c^j ||h_j||^2 /
//   |Omega^j|
// (sum_ij f_ij = F; weighted, the per-rating penalty is just lambda (||w_i||^2 + ||h_j||^2), as in
// LIBMF), and each visit takes LIBMF's adaptive step along -1/2 grad f_ij, in single precision
// (apps/mf/sgd_kernel.h): w_i and h_j move at once, each by eta_t / sqrt(G) times its gradient,
// with one AdaGrad accumulator G per factor row that starts at s^2, s = RatingScale, and
// eta_t = learning_rate / (1 + decay * t) in epoch t = 0, 1, ... . Initialisation: W and H both
// uniform in [0, sqrt(s / k)) (LIBMF's sqrt(1/k) on the ratings divided by s), then rounded to
// single precision.
//
// ALS (Zhou, Wilkinson, Schreiber and Pan 2008, "ALS-WR"; Spark MLlib's ALS). One iteration:
// every row exactly, w_i = (sum_{j in Omega_i} h_j h_j^T + lambda c_i I)^{-1} sum_j a_ij h_j
// (AlsNormalEquations, apps/mf/als_solve.h); then every column by cg_steps steps of conjugate
// gradient on its normal equations A h_j = b, A = sum_{i in Omega^j} w_i w_i^T + lambda c^j I,
// b = sum_i a_ij w_i, warm-started at the current h_j: r = b - A h_j, p = r, rs = r^T r; a step
// (while rs > 0 and p^T A p > 0): q = A p, alpha = rs / p^T q, h_j += alpha p, r -= alpha q,
// p = r + (r^T r / rs) p, rs = r^T r. A row's solve minimises F over w_i and each CG step lowers
// it over h_j, so F never increases. Every sum over a column's ratings runs in ascending row
// order, every dot product w_i^T x over t = 0..k-1. Initialisation: CCD++'s (W = 0, H uniform in
// [0, 1/sqrt(k))).
//
// Implicit-feedback ALS (Hu, Koren and Volinsky 2008; Spark MLlib's implicitPrefs). The ratings
// are observations of strength a_ij (clicks, plays, counts); every pair (i, j), observed or not,
// has a preference p_ij = 1 if a_ij > 0 else 0 and a confidence c_ij = 1 + alpha |a_ij| (so
// p = 0, c = 1 where nothing was observed), and the objective is over ALL rows x cols pairs:
//   F(W, H) = sum_{i < rows, j < cols} c_ij (p_ij - w_i^T h_j)^2
//             + lambda (sum_i c_i ||w_i||^2 + sum_j c^j ||h_j||^2),
// c_i, c^j the same penalty weights as above (weighted: the number of stored entries of the row or
// column; Spark counts only the entries with a_ij > 0, the same on 0/1 data). It is computed as
//   sum_{(i,j) in Omega} [c_ij (p_ij - w_i^T h_j)^2 - (w_i^T h_j)^2] + <W^T W, H^T H>_F + penalty
// (the unobserved pairs' sum_ij (w_i^T h_j)^2 over all pairs, less the observed ones'). One
// iteration is ALS's with the Gram matrix of the other factor shared: G_H = H^T H once, then
// every row exactly, w_i = (G_H + sum_{j in Omega_i} (c_ij - 1) h_j h_j^T + lambda c_i I)^{-1}
// sum_{j in Omega_i} c_ij p_ij h_j (AlsNormalEquations::Start); then G_W = W^T W once, and every
// column by cg_steps conjugate-gradient steps on A = G_W + sum_{i in Omega^j} (c_ij - 1) w_i w_i^T
// + lambda c^j I, b = sum_{i in Omega^j} c_ij p_ij w_i (the residual r = b - A h_j summed as
// sum_i (c_ij p_ij - (c_ij - 1) w_i^T h_j) w_i - G_W h_j - lambda c^j h_j; a step's q = A p as
// sum_i (c_ij - 1) (w_i^T p) w_i + G_W p + lambda c^j p). The train RMSE reported is the
// preferences' on Omega, sqrt(mean (p_ij - w_i^T h_j)^2). Initialisation: CCD++'s.
//
// Rows and columns without ratings (allowed: see EmptyLines) have factors 0 from the start, which
// neither solver changes; a prediction for them is the training mean (Coverage, HeldOutRmse).
//
// Randomness is reproducible across platforms and partitionings: the initial value of factor
// entry (index, t) is InitialValue(seed, factor, index, t), a pure function (a SplitMix64 hash), so
// a worker owning some rows can draw exactly the oracle's values for them.
//
// Thread-safety: the functions are reentrant; the Ratings are only read.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "apps/mf/ratings.h"
#include "apps/mf/sgd_kernel.h"
#include "common/status.h"

namespace strads::mf {

// The form of the penalty (see above).
enum class Regularization { kWeighted, kPlain };

// "weighted" or "plain"; "" is the default, weighted. Errors: InvalidArgument naming the choices.
Result<Regularization> ParseRegularization(const std::string& name);
const char* RegularizationName(Regularization regularization);

// The penalty weight of a row or column with `ratings` ratings: c_i = |Omega_i| weighted, 1 plain.
inline double PenaltyWeight(Regularization regularization, uint64_t ratings) {
  return regularization == Regularization::kWeighted ? static_cast<double>(ratings) : 1.0;
}

struct MfOptions {
  uint32_t rank = 10;          // k >= 1
  double lambda = 0.1;         // >= 0
  uint32_t iterations = 10;    // outer iterations (CCD++) or epochs (SGD); 0 = initial model
  uint64_t seed = 1;           // initial factors (both) and visiting order (SGD)
  double learning_rate = 0.1;  // SGD eta_0 > 0 (LIBMF's default)
  double decay = 0;            // SGD: eta_t = eta_0 / (1 + decay t); >= 0
  uint32_t ccd_inner = 1;      // CCD++ inner alternations per rank-one subproblem; >= 1
  Regularization regularization = Regularization::kWeighted;
  uint32_t cg_steps = 3;  // ALS: conjugate-gradient steps per column and iteration; >= 1
  bool implicit = false;  // ALS: implicit feedback (above)
  double alpha = 1.0;     // implicit: c_ij = 1 + alpha |a_ij|; >= 0
};

// Implicit feedback's confidence c_ij and preference p_ij of a stored entry a_ij (see above).
inline double Confidence(double alpha, double a) { return 1.0 + alpha * std::abs(a); }
inline double Preference(double a) { return a > 0.0 ? 1.0 : 0.0; }

struct MfModel {
  Eigen::MatrixXd W;  // rows x k
  Eigen::MatrixXd H;  // cols x k
};

// One point of a convergence trace: the initial model (iteration 0) and after every iteration.
struct MfTracePoint {
  double seconds = 0;      // since the start of the solve, before this report's callback
  uint32_t iteration = 0;  // completed outer iterations / epochs
  double objective = 0;    // F (CCD++: from the maintained residual; SGD: from scratch)
  double train_rmse = 0;
  const MfModel* model = nullptr;  // the current model, valid during the callback only (e.g. to
                                   // compute a test RMSE)
};

struct MfResult {
  MfModel model;
  double objective = 0;   // F, recomputed from scratch
  double train_rmse = 0;  // recomputed from scratch
  uint32_t iterations = 0;
  double seconds = 0;  // wall time of the solve, callbacks included
};

enum class Factor : uint64_t { kW = 0, kH = 1 };

// Uniform in [0, 1): the seeded value of factor entry (index, t). Pure.
double InitialUniform(uint64_t seed, Factor factor, uint64_t index, uint32_t t);

// The documented starting points (see above). REQUIRES: options.rank >= 1.
MfModel InitialCcdModel(const Ratings& ratings, const MfOptions& options);
MfModel InitialSgdModel(const Ratings& ratings, const MfOptions& options);

// The standard deviation of the ratings, at least 1e-4: the scale s of SGD's steps and
// initialisation.
double RatingScale(const Ratings& ratings);

// The initial factors' range [0, scale): CCD++'s H, SGD's W and H.
double CcdInitialScale(uint32_t rank);
double SgdInitialScale(double rating_scale, uint32_t rank);

// SGD's order of the ratings [first, end) (one row's, in the (row, col) order of `ratings`): by
// ColumnOrderKey(seed, column). Columns are given relative to col0 (a block's first).
std::vector<SgdRating> SgdRowOrder(const Ratings& ratings, uint64_t seed, uint64_t first,
                                   uint64_t end, uint32_t col0);

// F(W, H) computed from scratch. REQUIRES: W has ratings.rows rows, H ratings.cols rows, both
// the same number of columns.
double MfObjective(const Ratings& ratings, const MfModel& model, double lambda,
                   Regularization regularization);

// Implicit feedback's F(W, H) over every pair (see above), computed from scratch. Same REQUIRES.
double ImplicitObjective(const Ratings& ratings, const MfModel& model, double lambda,
                         Regularization regularization, double alpha);

// sqrt(mean over Omega of (p_ij - w_i^T h_j)^2), the preferences' RMSE; NaN without ratings.
double PreferenceRmse(const Ratings& ratings, const MfModel& model);

// sqrt(mean over Omega of (a_ij - w_i^T h_j)^2); NaN when there are no ratings. Same REQUIRES.
double Rmse(const Ratings& ratings, const MfModel& model);

// The RMSE of held-out `ratings` (a matrix of the training matrix's shape) when a pair the
// training matrix did not cover (`coverage` = CoverageOf(training)) is predicted by its mean.
double HeldOutRmse(const Ratings& ratings, const MfModel& model, const Coverage& coverage);

// Runs options.iterations CCD++ outer iterations from InitialCcdModel. on_iteration, if set, is
// called for iteration 0 and after each iteration. Errors: InvalidArgument for rank 0, ccd_inner
// 0, lambda < 0 or NaN.
Result<MfResult> SolveCcdReference(const Ratings& ratings, const MfOptions& options,
                                   std::function<void(const MfTracePoint&)> on_iteration = {});

// Runs options.iterations ALS iterations from InitialCcdModel, explicit or (options.implicit)
// implicit; the objective reported is MfObjective's or ImplicitObjective's. Errors:
// InvalidArgument for rank 0, cg_steps 0, lambda < 0, alpha < 0 or NaN.
Result<MfResult> SolveAlsReference(const Ratings& ratings, const MfOptions& options,
                                   std::function<void(const MfTracePoint&)> on_iteration = {});

// Runs options.iterations SGD epochs from InitialSgdModel. Errors: InvalidArgument for rank 0,
// lambda < 0, learning_rate <= 0, decay < 0 (or NaN); FailedPrecondition when the iterates blow
// up (F not finite after an epoch: the learning rate is too large).
Result<MfResult> SolveSgdReference(const Ratings& ratings, const MfOptions& options,
                                   std::function<void(const MfTracePoint&)> on_iteration = {});

}  // namespace strads::mf
