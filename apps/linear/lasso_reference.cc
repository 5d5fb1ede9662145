#include "apps/linear/lasso_reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "apps/linear/active_set_sweeps.h"
#include "apps/linear/lasso_update.h"

namespace strads::lasso {
namespace {

using Clock = std::chrono::steady_clock;

// Raw CSC view of a compressed column-major matrix: the inner loops are plain pointer walks.
class Columns {
 public:
  explicit Columns(const SparseColMatrix& x)
      : outer_(x.outerIndexPtr()), inner_(x.innerIndexPtr()), value_(x.valuePtr()) {}

  double Dot(int64_t j, const Eigen::VectorXd& v) const {
    double s = 0.0;
    for (int64_t k = outer_[j]; k < outer_[j + 1]; ++k) s += value_[k] * v[inner_[k]];
    return s;
  }
  // v += a * x_j
  void Axpy(int64_t j, double a, Eigen::VectorXd& v) const {
    for (int64_t k = outer_[j]; k < outer_[j + 1]; ++k) v[inner_[k]] += a * value_[k];
  }
  double SquaredNorm(int64_t j) const {
    double s = 0.0;
    for (int64_t k = outer_[j]; k < outer_[j + 1]; ++k) s += value_[k] * value_[k];
    return s;
  }

 private:
  const StorageIndex* outer_;
  const StorageIndex* inner_;
  const double* value_;
};

Status Validate(const Dataset& data, const LassoReferenceOptions& o) {
  // Written as !(x >= 0) so that NaN is rejected too.
  if (!(o.lambda >= 0.0)) {
    return Status::InvalidArgument("lasso: lambda must be >= 0, got " + std::to_string(o.lambda));
  }
  if (!(o.tolerance >= 0.0)) {
    return Status::InvalidArgument("lasso: tolerance must be >= 0, got " +
                                   std::to_string(o.tolerance));
  }
  if (!(o.max_seconds >= 0.0)) {
    return Status::InvalidArgument("lasso: max_seconds must be >= 0, got " +
                                   std::to_string(o.max_seconds));
  }
  if (data.x.rows() != data.y.size()) {
    return Status::InvalidArgument("lasso: X has " + std::to_string(data.x.rows()) +
                                   " rows but y has " + std::to_string(data.y.size()));
  }
  return Status::Ok();
}

}  // namespace

Result<LassoReferenceResult> SolveLassoReference(const Dataset& data,
                                                 const LassoReferenceOptions& options,
                                                 std::function<void(const TracePoint&)> on_sweep) {
  STRADS_RETURN_IF_ERROR(Validate(data, options));
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  // The pointer walks need compressed storage; copy only when the caller's matrix is not.
  SparseColMatrix compressed;
  const SparseColMatrix* x = &data.x;
  if (!data.x.isCompressed()) {
    compressed = data.x;
    compressed.makeCompressed();
    x = &compressed;
  }
  const Columns cols(*x);
  const int64_t n = x->cols();
  const double lambda = options.lambda;

  std::vector<double> sq_norm(n);
  for (int64_t j = 0; j < n; ++j) sq_norm[j] = cols.SquaredNorm(j);

  LassoReferenceResult res;
  res.beta = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd r = data.y;
  for (int64_t j = 0; j < n; ++j)
    res.lambda_max = std::max(res.lambda_max, std::abs(cols.Dot(j, r)));

  auto finish = [&](bool converged, double violation) {
    res.converged = converged;
    res.violation = violation;
    res.objective = 0.5 * r.squaredNorm() + lambda * res.beta.lpNorm<1>();
    res.seconds = elapsed();
    return res;
  };
  if (res.lambda_max == 0.0) return finish(true, 0.0);

  // Recomputes r = y - X beta exactly (discarding the drift of incremental updates) and returns
  // the relative violation from the exact gradient X^T r.
  auto exact_check = [&]() {
    r = data.y;
    for (int64_t j = 0; j < n; ++j) {
      if (res.beta[j] != 0.0) cols.Axpy(j, -res.beta[j], r);
    }
    double worst = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      worst = std::max(worst, Violation(cols.Dot(j, r), res.beta[j], lambda));
    }
    return worst / res.lambda_max;
  };

  // One coordinate update; returns |change in the partial gradient| = ||x_j||^2 |delta beta_j|.
  auto update = [&](int64_t j) {
    ++res.updates;
    const double old_beta = res.beta[j];
    const double new_beta = CoordinateUpdate(cols.Dot(j, r), sq_norm[j], old_beta, lambda);
    if (new_beta == old_beta) return 0.0;
    res.beta[j] = new_beta;
    cols.Axpy(j, old_beta - new_beta, r);
    return sq_norm[j] * std::abs(new_beta - old_beta);
  };

  SweepLimits limits;
  limits.tolerance = options.tolerance;
  limits.max_updates = options.max_updates;
  limits.max_seconds = options.max_seconds;
  limits.max_sweeps = options.max_sweeps;
  const double violation = RunActiveSetSweeps(
      n, limits, res.lambda_max, exact_check() /* at beta = 0 */, res.updates, res.sweeps, update,
      exact_check, [&](int64_t j) { return res.beta[j] != 0.0; },
      [&] {
        if (on_sweep) {
          on_sweep(TracePoint{elapsed(), res.updates,
                              0.5 * r.squaredNorm() + lambda * res.beta.lpNorm<1>()});
        }
      },
      elapsed);
  return finish(violation <= options.tolerance, violation);
}

double LassoObjective(const Dataset& data, const Eigen::VectorXd& beta, double lambda) {
  if (beta.size() != data.x.cols() || data.x.rows() != data.y.size()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const Eigen::VectorXd r = data.y - data.x * beta;
  return 0.5 * r.squaredNorm() + lambda * beta.lpNorm<1>();
}

}  // namespace strads::lasso
