#include "apps/mf/als_solve.h"

namespace strads::mf {

void AlsNormalEquations::Solve(double reg, double* w) {
  gram_.diagonal().array() += reg;
  Eigen::Map<Eigen::VectorXd> out(w, rhs_.size());
  llt_.compute(gram_);
  if (llt_.info() == Eigen::Success) {
    out = llt_.solve(rhs_);
    return;
  }
  out = gram_.selfadjointView<Eigen::Lower>().ldlt().solve(rhs_);
}

void Gram(const double* x, uint64_t n, uint32_t k, double* g) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMajor> m(x, static_cast<Eigen::Index>(n), k);
  Eigen::Map<Eigen::MatrixXd> out(g, k, k);
  if (n == 0) {
    out.setZero();
    return;
  }
  out.noalias() = m.transpose() * m;
}

void GramTimes(const double* g, const double* x, uint32_t k, double* y) {
  for (uint32_t t = 0; t < k; ++t) y[t] = 0.0;
  for (uint32_t s = 0; s < k; ++s) {
    for (uint32_t t = 0; t < k; ++t) y[t] += g[uint64_t{s} * k + t] * x[s];
  }
}

}  // namespace strads::mf
