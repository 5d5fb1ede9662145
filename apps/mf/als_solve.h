// ALS's row solve, shared by the mf app and its sequential reference (so that one worker computes
// exactly what the reference does): given the other factor's rows h_j of a row's ratings a_j,
//   w = argmin sum_j (a_j - w^T h_j)^2 + reg ||w||^2 = (sum_j h_j h_j^T + reg I)^{-1} sum_j a_j
//   h_j,
// by a Cholesky factorisation (Eigen's LLT; LDLT when the matrix is only semidefinite, reg = 0
// and fewer ratings than k). The Gram matrix is accumulated by symmetric rank-one updates of its
// lower triangle, in the order the ratings are added.
//
// Thread-compatibility: an AlsNormalEquations is a plain value; use one per thread.
#pragma once

#include <cstdint>

#include <Eigen/Dense>

namespace strads::mf {

class AlsNormalEquations {
 public:
  explicit AlsNormalEquations(uint32_t rank)
      : gram_(rank, rank), rhs_(rank), h_(rank), llt_(rank) {}

  // Starts a new row.
  void Clear() {
    gram_.setZero();
    rhs_.setZero();
  }
  // Adds rating `a` whose other factor is h[0..k).
  void Add(const double* h, double a) {
    h_ = Eigen::Map<const Eigen::VectorXd>(h, h_.size());
    gram_.selfadjointView<Eigen::Lower>().rankUpdate(h_, 1.0);
    rhs_.noalias() += a * h_;
  }
  // The minimiser with penalty `reg` ||w||^2, into w[0..k).
  void Solve(double reg, double* w);

 private:
  Eigen::MatrixXd gram_;
  Eigen::VectorXd rhs_, h_;
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt_;
};

}  // namespace strads::mf
