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

}  // namespace strads::mf
