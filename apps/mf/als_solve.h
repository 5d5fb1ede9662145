// ALS's row solve, shared by the mf app and its sequential reference (so that one worker computes
// exactly what the reference does): given the other factor's rows h_j of a row's ratings a_j,
//   w = argmin sum_j (a_j - w^T h_j)^2 + reg ||w||^2 = (sum_j h_j h_j^T + reg I)^{-1} sum_j a_j
//   h_j,
// by a Cholesky factorisation (Eigen's LLT; LDLT when the matrix is only semidefinite, reg = 0
// and fewer ratings than k). The Gram matrix is accumulated by symmetric rank-one updates of its
// lower triangle, in the order the ratings are added.
//
// Implicit feedback (Hu, Koren and Volinsky 2008) solves, over every column j of the other factor,
//   w = argmin sum_j c_j (p_j - w^T h_j)^2 + reg ||w||^2
//     = (G + sum_{j in Omega} (c_j - 1) h_j h_j^T + reg I)^{-1} sum_{j in Omega} c_j p_j h_j,
// G = sum_j h_j h_j^T over all columns (shared by every row): Start(G), then Add(h_j, c_j - 1,
// c_j p_j) for the row's ratings only.
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
  // Starts a new row whose Gram matrix starts at `gram` (k x k, symmetric).
  void Start(const Eigen::MatrixXd& gram) {
    gram_ = gram;
    rhs_.setZero();
  }
  // Adds rating `a` whose other factor is h[0..k).
  void Add(const double* h, double a) { Add(h, 1.0, a); }
  // Adds weight h h^T to the Gram matrix and b h to the right-hand side.
  void Add(const double* h, double weight, double b) {
    h_ = Eigen::Map<const Eigen::VectorXd>(h, h_.size());
    gram_.selfadjointView<Eigen::Lower>().rankUpdate(h_, weight);
    rhs_.noalias() += b * h_;
  }
  // The minimiser with penalty `reg` ||w||^2, into w[0..k).
  void Solve(double reg, double* w);

 private:
  Eigen::MatrixXd gram_;
  Eigen::VectorXd rhs_, h_;
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt_;
};

// g = X^T X (k x k, column-major) for the n rows of x (row-major, n x k): the Gram matrix of a
// factor, or of some of its rows.
void Gram(const double* x, uint64_t n, uint32_t k, double* g);

// y = G x for g as Gram writes it, y[t] = sum_s g[s k + t] x[s] in order of s.
void GramTimes(const double* g, const double* x, uint32_t k, double* y);

}  // namespace strads::mf
