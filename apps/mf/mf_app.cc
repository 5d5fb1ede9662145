// The mf app on the static engine.
//
// Objective and initialisation are those of the sequential references (apps/mf/mf_reference.h):
//   F(W, H) = sum_Omega (a_ij - w_i^T h_j)^2 + lambda (sum_i c_i ||w_i||^2 + sum_j c^j ||h_j||^2),
// c_i = |Omega_i| and c^j = |Omega^j| (--regularization weighted, the default) or 1 (plain).
//
// Layout. Every member loads the training ratings and cuts them the same way (MakeLayout): rows
// into P contiguous worker shards, columns into B contiguous blocks, both by BlockBoundaries with
// work = ratings + 1 and the job's --balance. Worker w owns the rows of W of its shard (and, for
// CCD++, the residual of its ratings); scheduler s is the home of the H rows of the blocks
// b with b mod S == s. A block carries, depending on the pass, H values of its columns or
// accumulators for them, in StaticBlock.doubles (column j's numbers at (j - first column) * width).
//
// Passes. SGD: pass 0 is one epoch (blocks carry whole H rows, width k; each worker visits its
// ratings of the block in an order drawn from (seed, iteration, worker, block) and takes exactly
// the reference's per-rating step), pass 1 is the evaluation. CCD++: for each rank t and inner
// alternation s a W pass (blocks carry h_t; on s = 0 the worker first adds w_it h_jt back into its
// residual of the block, R^ = R + w_t h_t^T; it sums r^_ij h_jt and h_jt^2 per row onto 0 and
// lambda c_i and sets w_it at EndPass), then an H pass (blocks carry sums num_j, den_j that start
// at 0 and lambda c^j; every
// worker adds r^_ij w_it and w_it^2 over its rows; the home sets h_jt = num_j / den_j at
// ReturnBlock); after the last alternation an R pass carries the final h_t, R = R^ - w_t h_t^T.
// That is k (2T + 1) passes, plus the evaluation pass. ALS: pass 0 gathers H (blocks carry
// whole H rows; each worker copies them, and at EndPass solves each of its rows exactly,
// AlsNormalEquations); then a residual pass (blocks carry x_j = h_j and a sum every worker adds
// (a_ij - w_i^T x_j) w_i to) and --cg-steps CG passes (blocks carry p_j and a sum of
// (w_i^T p_j) w_i), after each of which the home takes one conjugate-gradient step (AlsStep);
// cg_steps + 3 passes with the evaluation. Implicit ALS (--implicit, mf_reference.h) has the same
// passes; the Gram matrices it shares travel with the blocks (GramSize): in the gather pass each
// block brings its home's sum_j h_j h_j^T, which each worker adds up in block order into G_H for
// its row solves (then it computes its rows' W_s^T W_s); in the residual pass every worker adds its
// W_s^T W_s into every block, which so comes home with G_W = W^T W for its columns' CG steps; the
// evaluation pass's blocks bring their Gram matrices again, for the unobserved pairs' part of F,
// sum_i w_i^T G_H w_i = sum over workers of <W_s^T W_s, G_H>. Every sum is over the same terms as
// in SolveCcdReference, in its order for one worker (rows by ascending column within a block,
// blocks in order; columns by ascending row), so P = 1 reproduces it bit for bit and any P up to
// summation order.
//
// Evaluation: blocks carry whole H rows; each worker sums (a_ij - w_i^T h_j)^2 over its training
// ratings and over its rows' test ratings (--test), plus lambda sum c_i ||w_i||^2 over its rows;
// the homes add lambda sum c^j ||h_j||^2 over their columns and their column count. The home of
// scheduler 0 also reports the rank, lambda, algorithm and regularization (metrics "rank",
// "lambda", "sgd", "plain"), which Summarize needs and has no other way to learn.
//
// Outputs: W.mtx (rows x k) and H.mtx (cols x k), MatrixMarket array files as WriteArrayMtx
// writes them, assembled from pieces "W" (a shard's rows) and "H" (a block's columns), each
// row-major with width k.
#include "apps/mf/mf_app.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "apps/mf/als_solve.h"
#include "apps/mf/array_mtx.h"
#include "apps/mf/mf_reference.h"
#include "apps/mf/ratings.h"
#include "apps/mf/sgd_kernel.h"
#include "apps/mf/split_mix.h"
#include "apps/mf/unseen_file.h"
#include "engine/app_params.h"
#include "engine/rotation_plan.h"

namespace strads::mf {
namespace {

enum class Algorithm { kCcd, kSgd, kAls };

// The job's parameters, checked.
struct Params {
  Algorithm algorithm = Algorithm::kCcd;
  uint32_t rank = 0;
  double lambda = 0;
  uint32_t inner = 1;     // CCD++ inner alternations T
  uint32_t cg_steps = 3;  // ALS: conjugate-gradient steps per column and iteration
  Regularization regularization = Regularization::kWeighted;
  double learning_rate = 0;
  double decay = 0;
  uint64_t seed = 0;
  Balance balance = Balance::kWork;
  std::string test_path;  // empty: none
  uint32_t patience = 0;  // --test: stop after this many iterations without a better test RMSE
  bool implicit = false;  // ALS: implicit feedback (mf_reference.h)
  double alpha = 0;       // implicit: c_ij = 1 + alpha |a_ij|

  // With --test the job keeps the model of the best test RMSE (see Tracking).
  bool keep_best() const { return !test_path.empty(); }
};

Result<Params> ParseParams(const proto::JobSpec& spec) {
  Result<proto::MfSpec> params = AppParams<proto::MfSpec>(spec);
  if (!params.ok()) return Status::InvalidArgument("mf: " + params.status().message());
  const proto::MfSpec& mf = *params;
  Params p;
  if (mf.algorithm() == "sgd") {
    p.algorithm = Algorithm::kSgd;
  } else if (mf.algorithm() == "als") {
    p.algorithm = Algorithm::kAls;
  } else if (mf.algorithm() != "ccd" && !mf.algorithm().empty()) {
    return Status::InvalidArgument("mf: unknown --algorithm '" + mf.algorithm() +
                                   "' (ccd, sgd or als)");
  }
  if (mf.rank() == 0) return Status::InvalidArgument("mf: --rank must be >= 1");
  p.rank = mf.rank();
  if (!(mf.lambda() >= 0.0) || !std::isfinite(mf.lambda())) {
    return Status::InvalidArgument(
        fmt::format("mf: --lambda must be finite and >= 0, got {}", mf.lambda()));
  }
  p.lambda = mf.lambda();
  Result<Regularization> regularization = ParseRegularization(mf.regularization());
  if (!regularization.ok()) {
    return Status::InvalidArgument("mf: --regularization: " + regularization.status().message());
  }
  p.regularization = *regularization;
  p.inner = std::max<uint32_t>(1, mf.inner_iterations());
  p.cg_steps = mf.cg_steps() == 0 ? 3 : mf.cg_steps();
  if (p.algorithm == Algorithm::kAls && p.cg_steps > 1000) {
    return Status::InvalidArgument(
        fmt::format("mf als: --cg-steps must be in 1..1000, got {}", p.cg_steps));
  }
  if (p.algorithm == Algorithm::kCcd &&
      uint64_t{p.rank} * (2 * uint64_t{p.inner} + 1) + 1 > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument(
        "mf ccd: --rank x (2 --inner-iterations + 1) passes per iteration exceed 2^32 - 1");
  }
  if (p.algorithm == Algorithm::kSgd) {
    if (!(mf.learning_rate() > 0.0) || !std::isfinite(mf.learning_rate())) {
      return Status::InvalidArgument(fmt::format(
          "mf sgd: --learning-rate must be finite and > 0, got {}", mf.learning_rate()));
    }
    if (!(mf.decay() >= 0.0) || !std::isfinite(mf.decay())) {
      return Status::InvalidArgument(
          fmt::format("mf sgd: --decay must be finite and >= 0, got {}", mf.decay()));
    }
  }
  p.learning_rate = mf.learning_rate();
  p.decay = mf.decay();
  p.seed = spec.seed();
  p.test_path = mf.test_path();
  p.patience = mf.patience();
  p.implicit = mf.implicit();
  p.alpha = mf.alpha();
  if (p.implicit) {
    if (p.algorithm != Algorithm::kAls) {
      return Status::InvalidArgument("mf: --implicit needs --algorithm als");
    }
    if (!(p.alpha >= 0.0) || !std::isfinite(p.alpha)) {
      return Status::InvalidArgument(
          fmt::format("mf als: --alpha must be finite and >= 0, got {}", p.alpha));
    }
    if (!p.test_path.empty()) {
      return Status::InvalidArgument(
          "mf als --implicit: --test measures the RMSE of explicit ratings, which an implicit "
          "model does not predict; rank the held-out entries with W.mtx and H.mtx instead "
          "(bench/mf_implicit.py computes precision@10 and MAP@10)");
    }
  }
  Result<Balance> balance = ParseBalance(
      spec.static_engine().balance().empty() ? "work" : spec.static_engine().balance());
  if (!balance.ok()) return Status::InvalidArgument("mf: --balance: " + balance.status().message());
  p.balance = *balance;
  if (spec.data_path().empty()) return Status::InvalidArgument("mf: --data FILE is required");
  return p;
}

uint32_t Passes(const Params& p) {
  switch (p.algorithm) {
    case Algorithm::kSgd:
      return 2;
    case Algorithm::kAls:
      return p.cg_steps + 3;
    case Algorithm::kCcd:
      break;
  }
  return p.rank * (2 * p.inner + 1) + 1;
}

// CCD++: kW, kH, kR; SGD: kEpoch; ALS: kGather, kResidual, kCg (see AlsHome); all: kEval.
enum class PassKind { kW, kH, kR, kEpoch, kGather, kResidual, kCg, kEval };

struct PassInfo {
  PassKind kind = PassKind::kEval;
  uint32_t t = 0;  // CCD++: the rank-one subproblem
  uint32_t s = 0;  // CCD++: the inner alternation
};

// What pass `pass` of an iteration is. REQUIRES: pass < Passes(p).
PassInfo Describe(const Params& p, uint32_t pass) {
  if (pass + 1 == Passes(p)) return {PassKind::kEval};
  if (p.algorithm == Algorithm::kSgd) return {PassKind::kEpoch};
  if (p.algorithm == Algorithm::kAls) {
    return {pass == 0 ? PassKind::kGather : pass == 1 ? PassKind::kResidual : PassKind::kCg};
  }
  const uint32_t per_rank = 2 * p.inner + 1;
  const uint32_t t = pass / per_rank, q = pass % per_rank;
  if (q == 2 * p.inner) return {PassKind::kR, t, p.inner - 1};
  return {q % 2 == 0 ? PassKind::kW : PassKind::kH, t, q / 2};
}

// Implicit ALS: the k x k Gram matrix a block carries after its columns' numbers (gather and
// evaluation: the home's sum over the block's h_j h_j^T; residual: sum_i w_i w_i^T, which every
// worker adds its rows' to), or 0.
uint64_t GramSize(const Params& p, PassKind kind) {
  if (!p.implicit) return 0;
  const bool carries =
      kind == PassKind::kGather || kind == PassKind::kEval || kind == PassKind::kResidual;
  return carries ? uint64_t{p.rank} * p.rank : 0;
}

// Doubles per column a block carries in a pass of this kind.
uint32_t Width(const Params& p, PassKind kind) {
  switch (kind) {
    case PassKind::kW:
    case PassKind::kR:
      return 1;
    case PassKind::kH:
      return 2;
    case PassKind::kEpoch:
      return p.rank + 1;  // h_j and its AdaGrad accumulator G^j
    case PassKind::kResidual:
    case PassKind::kCg:
      return 2 * p.rank;  // x_j or p_j, and a sum
    case PassKind::kGather:
    case PassKind::kEval:
      return p.rank;
  }
  return 0;
}

// The cut of rows into shards and of columns into blocks; the same in every member.
struct Layout {
  std::vector<uint64_t> row_bounds;  // workers + 1
  std::vector<uint64_t> col_bounds;  // blocks + 1
};

Layout MakeLayout(const Ratings& r, uint32_t workers, uint32_t blocks, Balance balance) {
  std::vector<uint64_t> row_work(r.rows), col_work(r.cols);
  for (uint64_t i = 0; i < r.rows; ++i) row_work[i] = r.row_start[i + 1] - r.row_start[i] + 1;
  for (uint64_t j = 0; j < r.cols; ++j) col_work[j] = r.col_start[j + 1] - r.col_start[j] + 1;
  return {BlockBoundaries(row_work, workers, balance), BlockBoundaries(col_work, blocks, balance)};
}

Status BadBlock(const StaticBlock& block, const StaticStep& step, const std::string& what) {
  return Status::InvalidArgument(fmt::format("mf: block {} in iteration {} pass {}: {}", block.id,
                                             step.iteration, step.pass, what));
}

// Checks that `block` is one of `blocks` and carries `width` doubles per column.
Status CheckBlock(const StaticBlock& block, const StaticStep& step, const Params& p,
                  const Layout& layout, uint32_t passes) {
  const uint64_t blocks = layout.col_bounds.size() - 1;
  if (step.pass >= passes) {
    return Status::InvalidArgument(
        fmt::format("mf: pass {} out of range (the job has {} per iteration)", step.pass, passes));
  }
  if (block.id >= blocks) return BadBlock(block, step, fmt::format("not one of {}", blocks));
  const uint64_t columns = layout.col_bounds[block.id + 1] - layout.col_bounds[block.id];
  // Pass 0 of a job that keeps its best model carries the decision of Tracking in a last number.
  const PassKind kind = Describe(p, step.pass).kind;
  const uint64_t expected =
      columns * Width(p, kind) + GramSize(p, kind) + (p.keep_best() && step.pass == 0 ? 1 : 0);
  if (block.doubles.size() != expected) {
    return BadBlock(block, step,
                    fmt::format("carries {} numbers, expected {} ({} columns)",
                                block.doubles.size(), expected, columns));
  }
  return Status::Ok();
}

// Keeping the best model (--test). The job's two aggregates carry, summed over every evaluation so
// far, the test squared error (each worker adds its blocks' as it evaluates them) and the number
// of evaluations (worker 0 adds 1). At its first sub-round of an iteration every worker sees the
// evaluation that ended the previous iteration, the same numbers in every worker, so all take the
// same decision: whether that model is the best so far (strictly better than every earlier
// evaluation). If so each worker copies its rows of W, and the blocks of pass 0 carry the decision
// (one more number, 1 or 0) to their homes, which keep the copy of H they took at that
// evaluation. The last evaluation has no pass after it: Assemble weighs it against the best
// (pieces "test_sq_err" of every worker, "best" of worker 0) and writes the better one,
// preferring the last unless the best is better by more than a relative 1e-12 (Summarize says the
// same from the metrics, summed in another order).
struct Tracking {
  bool has_best = false;
  double best_sq_err = 0;
  uint64_t best_iteration = 0;
  double seen_sq_err = 0, seen_evaluations = 0;  // the aggregates last taken

  static constexpr uint32_t kSqErr = 0, kEvaluations = 1;  // the aggregates

  // Takes the aggregates at the start of `iteration`: true when the evaluation that ended the
  // previous iteration is a new best.
  bool Take(std::span<const double> aggregates, uint64_t iteration) {
    if (aggregates[kEvaluations] <= seen_evaluations) return false;  // none since
    const double sq_err = aggregates[kSqErr] - seen_sq_err;
    seen_sq_err = aggregates[kSqErr];
    seen_evaluations = aggregates[kEvaluations];
    if (has_best && !(sq_err < best_sq_err)) return false;
    has_best = true;
    best_sq_err = sq_err;
    best_iteration = iteration - 1;
    return true;
  }

  std::vector<double> Values() const {
    return {has_best ? 1.0 : 0.0, best_sq_err, static_cast<double>(best_iteration), seen_sq_err,
            seen_evaluations};
  }
  bool FromValues(const proto::OutputPiece& piece) {
    if (piece.values_size() != 5) return false;
    has_best = piece.values(0) > 0;
    best_sq_err = piece.values(1);
    best_iteration = static_cast<uint64_t>(piece.values(2));
    seen_sq_err = piece.values(3);
    seen_evaluations = piece.values(4);
    return true;
  }
};

// Whether the best model (test squared error `best`) is kept over the last one (`last`).
bool KeepsBest(double best, double last) { return best < last * (1.0 - 1e-12); }

Result<Ratings> LoadTrain(const proto::JobSpec& spec) {
  STRADS_ASSIGN_OR_RETURN(Ratings train, LoadRatings(spec.data_path(), EmptyLines::kAllow));
  if (train.nnz() == 0) return Status::InvalidArgument(spec.data_path() + ": no ratings");
  return train;
}

// ------------------------------------------------------------------------------------------------
// Worker side.

// Checkpoints: calls set(i, t, value) for every row i in [first, first + count) of the pieces
// called `name` (width k, first = the piece's first global row), t < k. Every row must be covered.
template <typename Set>
Status TakeRows(const StatePieces& pieces, const std::string& name, uint64_t first, uint64_t count,
                uint32_t k, Set set) {
  uint64_t covered = 0;
  for (const auto& piece : pieces) {
    if (piece.name() != name) continue;
    if (piece.width() != k || piece.values_size() % k != 0) {
      return Status::InvalidArgument(
          fmt::format("checkpoint piece {} has width {}, rank is {}", name, piece.width(), k));
    }
    const uint64_t p0 = piece.first(), p1 = p0 + static_cast<uint64_t>(piece.values_size()) / k;
    for (uint64_t i = std::max(p0, first); i < std::min(p1, first + count); ++i) {
      for (uint32_t t = 0; t < k; ++t) set(i, t, piece.values(static_cast<int>((i - p0) * k + t)));
      ++covered;
    }
  }
  if (covered != count) {
    return Status::InvalidArgument(fmt::format(
        "checkpoint: {} of the {} rows of {} from {} are there", covered, count, name, first));
  }
  return Status::Ok();
}

class MfShard final : public StaticShard {
 public:
  MfShard(const Params& p, const Ratings& train, const Ratings* test, Layout layout, uint32_t rank)
      : p_(p),
        layout_(std::move(layout)),
        rank_(rank),
        k_(p.rank),
        passes_(Passes(p)),
        coverage_(CoverageOf(train)) {
    const uint32_t blocks = static_cast<uint32_t>(layout_.col_bounds.size() - 1);
    row0_ = layout_.row_bounds[rank];
    rows_ = layout_.row_bounds[rank + 1] - row0_;
    cols_ = train.cols;
    e0_ = train.row_start[row0_];
    const uint64_t nnz = train.row_start[row0_ + rows_] - e0_;
    row_.resize(nnz);
    col_.resize(nnz);
    value_.assign(train.value.begin() + static_cast<int64_t>(e0_),
                  train.value.begin() + static_cast<int64_t>(e0_ + nnz));
    for (uint64_t e = 0; e < nnz; ++e) {
      row_[e] = static_cast<uint32_t>(train.row[e0_ + e] - row0_);
      col_[e] = train.col[e0_ + e];
    }
    // The block of each column, and the shard's entries of each block in (row, col) order and in
    // (col, row) order.
    std::vector<uint32_t> block_of(cols_);
    for (uint32_t b = 0; b < blocks; ++b) {
      for (uint64_t j = layout_.col_bounds[b]; j < layout_.col_bounds[b + 1]; ++j) block_of[j] = b;
    }
    by_row_.resize(blocks);
    for (uint64_t e = 0; e < nnz; ++e) by_row_[block_of[col_[e]]].push_back(e);
    if (p.algorithm != Algorithm::kSgd) {
      by_col_.resize(blocks);
      const uint64_t e_end = e0_ + nnz;
      for (uint64_t j = 0; j < cols_; ++j) {
        // The column's entries are in ascending row order; the shard's are a contiguous run.
        const uint64_t* first = train.col_entry.data() + train.col_start[j];
        const uint64_t* last = train.col_entry.data() + train.col_start[j + 1];
        const uint64_t* lo = std::lower_bound(first, last, e0_);
        for (const uint64_t* q = lo; q != last && *q < e_end; ++q) {
          by_col_[block_of[j]].push_back(*q - e0_);
        }
      }
    }
    if (p.algorithm == Algorithm::kCcd) {
      residual_ = value_;  // W = 0
      num_.assign(rows_, 0.0);
    }
    // lambda c_i: the penalty of the shard's rows (and where CCD++'s denominators start).
    row_penalty_.resize(rows_);
    for (uint64_t i = 0; i < rows_; ++i) {
      const uint64_t n = train.row_start[row0_ + i + 1] - train.row_start[row0_ + i];
      row_penalty_[i] = p.lambda * PenaltyWeight(p.regularization, n);
    }
    if (p.algorithm == Algorithm::kCcd) den_ = row_penalty_;
    if (test != nullptr) {
      has_test_ = true;
      test_.resize(blocks);
      for (uint64_t e = test->row_start[row0_]; e < test->row_start[row0_ + rows_]; ++e) {
        test_[block_of[test->col[e]]].push_back(
            {static_cast<uint32_t>(test->row[e] - row0_), test->col[e], test->value[e]});
        ++test_ratings_;
      }
    }
    if (p.algorithm != Algorithm::kSgd) w_.assign(rows_ * k_, 0.0);  // W = 0
    if (p.implicit) {
      block_gram_.assign(blocks, std::vector<double>(uint64_t{k_} * k_, 0.0));
      gram_h_ = Eigen::MatrixXd::Zero(k_, k_);
      gram_w_ = Eigen::MatrixXd::Zero(k_, k_);  // W = 0
    }
    if (p.algorithm == Algorithm::kAls) {
      h_full_.assign(cols_ * k_, 0.0);
      row_begin_.assign(rows_ + 1, 0);
      for (uint64_t e = 0; e < nnz; ++e) ++row_begin_[row_[e] + 1];
      for (uint64_t i = 0; i < rows_; ++i) row_begin_[i + 1] += row_begin_[i];
    }
    if (p.algorithm == Algorithm::kSgd) InitSgd(train);
  }

  uint64_t rows() const override { return rows_; }
  uint64_t items() const override { return cols_; }
  uint64_t work() const override { return value_.size(); }
  std::vector<double> InitialAggregates() const override {
    return p_.keep_best() ? std::vector<double>{0.0, 0.0} : std::vector<double>{};
  }

  Result<uint64_t> Process(const StaticStep& step, std::span<const double> aggregates,
                           StaticBlock& block, std::span<double> delta) override {
    STRADS_RETURN_IF_ERROR(CheckBlock(block, step, p_, layout_, passes_));
    if (p_.keep_best() && step.pass == 0) {
      if (decided_ != step.iteration) {  // the first sub-round of the iteration
        decided_ = step.iteration;
        new_best_ = tracking_.Take(aggregates, step.iteration);
        if (new_best_) {
          w_best_.resize(rows_ * k_);
          for (uint64_t i = 0; i < rows_; ++i) {
            for (uint32_t t = 0; t < k_; ++t) w_best_[i * k_ + t] = W(i, t);
          }
        }
      }
      block.doubles.back() = new_best_ ? 1.0 : 0.0;
    }
    const PassInfo pass = Describe(p_, step.pass);
    const uint64_t c0 = layout_.col_bounds[block.id];
    const std::vector<uint64_t>& entries = by_row_[block.id];
    double* h = block.doubles.data();
    switch (pass.kind) {
      case PassKind::kW: {
        double* w = Column(pass.t);
        if (pass.s == 0) {
          for (uint64_t e : entries) residual_[e] += w[row_[e]] * h[col_[e] - c0];
        }
        for (uint64_t e : entries) {
          const double hj = h[col_[e] - c0];
          num_[row_[e]] += residual_[e] * hj;
          den_[row_[e]] += hj * hj;
        }
        return entries.size();
      }
      case PassKind::kH: {
        const double* w = Column(pass.t);
        const uint64_t columns = layout_.col_bounds[block.id + 1] - c0;
        double* num = h;
        double* den = h + columns;
        for (uint64_t e : by_col_[block.id]) {
          const double wi = w[row_[e]];
          num[col_[e] - c0] += residual_[e] * wi;
          den[col_[e] - c0] += wi * wi;
        }
        return entries.size();
      }
      case PassKind::kR: {
        const double* w = Column(pass.t);
        for (uint64_t e : entries) residual_[e] -= w[row_[e]] * h[col_[e] - c0];
        return entries.size();
      }
      case PassKind::kEpoch:
        return Epoch(step, block);
      case PassKind::kGather: {  // every block's H rows, for the row solves at EndPass
        const uint64_t values = (layout_.col_bounds[block.id + 1] - c0) * k_;
        std::copy_n(block.doubles.begin(), values, h_full_.begin() + static_cast<int64_t>(c0 * k_));
        if (p_.implicit) TakeGram(block, values);
        return entries.size();
      }
      case PassKind::kResidual:
      case PassKind::kCg: {
        // Per column j: r_j += (a_ij - w_i^T x_j) w_i (residual), q_j += (w_i^T p_j) w_i (CG).
        // Implicit (mf_reference.h): (c_ij p_ij - (c_ij - 1) w_i^T x_j) w_i and
        // (c_ij - 1) (w_i^T p_j) w_i, and the residual pass's block gains this shard's W^T W.
        const bool residual = pass.kind == PassKind::kResidual;
        for (uint64_t e : by_col_[block.id]) {
          const double* wi = &w_[uint64_t{row_[e]} * k_];
          const double* x = h + (col_[e] - c0) * 2 * k_;
          double* sum = h + (col_[e] - c0) * 2 * k_ + k_;
          double d = 0.0;
          for (uint32_t t = 0; t < k_; ++t) d += wi[t] * x[t];
          double c = residual ? value_[e] - d : d;
          if (p_.implicit) {
            const double conf = Confidence(p_.alpha, value_[e]);
            c = residual ? conf * Preference(value_[e]) - (conf - 1.0) * d : d * (conf - 1.0);
          }
          for (uint32_t t = 0; t < k_; ++t) sum[t] += c * wi[t];
        }
        if (p_.implicit && residual) {
          const uint64_t columns = layout_.col_bounds[block.id + 1] - c0;
          double* gram = h + columns * 2 * k_;
          for (uint64_t t = 0; t < uint64_t{k_} * k_; ++t) gram[t] += gram_w_.data()[t];
        }
        return entries.size();
      }
      case PassKind::kEval:
        Evaluate(step, block, delta);
        return entries.size();
    }
    return Status::Internal("mf: unknown pass kind");
  }

  void EndPass(const StaticStep& step) override {
    const PassInfo pass = Describe(p_, step.pass);
    if (pass.kind == PassKind::kGather) {
      if (!p_.implicit) return SolveRows();
      // G_H, the sum of the blocks' Gram matrices in block order (the same in every worker).
      gram_h_.setZero();
      for (const std::vector<double>& g : block_gram_) {
        for (uint64_t t = 0; t < uint64_t{k_} * k_; ++t) gram_h_.data()[t] += g[t];
      }
      SolveRows();
      Gram(w_.data(), rows_, k_, gram_w_.data());
      return;
    }
    if (pass.kind != PassKind::kW) return;
    double* w = Column(pass.t);
    for (uint64_t i = 0; i < rows_; ++i) {
      w[i] = den_[i] > 0.0 ? num_[i] / den_[i] : 0.0;
      num_[i] = 0.0;
      den_[i] = row_penalty_[i];
    }
  }

  void Metrics(std::map<std::string, double>& out) const override {
    double penalty = 0.0;
    for (uint64_t i = 0; i < rows_; ++i) {
      double norm = 0.0;
      for (uint32_t t = 0; t < k_; ++t) norm += W(i, t) * W(i, t);
      penalty += row_penalty_[i] * norm;
    }
    out["sq_err"] += sq_err_;
    if (p_.implicit) {
      // The unobserved pairs: this shard's rows' sum_j (w_i^T h_j)^2 = <W_s^T W_s, H^T H>.
      std::vector<double> gram_h(uint64_t{k_} * k_, 0.0);
      for (const std::vector<double>& g : block_gram_) {
        for (uint64_t t = 0; t < gram_h.size(); ++t) gram_h[t] += g[t];
      }
      double all = 0.0;
      for (uint64_t t = 0; t < gram_h.size(); ++t) all += gram_w_.data()[t] * gram_h[t];
      out["sq_err"] += all;
      out["pref_sq_err"] += pref_sq_err_;
    }
    out["ratings"] += static_cast<double>(value_.size());
    out["rows"] += static_cast<double>(rows_);
    out["w_penalty"] += penalty;
    uint64_t empty = 0;
    for (uint64_t i = 0; i < rows_; ++i) empty += coverage_.empty_row[row0_ + i] ? 1 : 0;
    out["empty_rows"] += static_cast<double>(empty);
    if (rank_ == 0) out["mean"] += FallbackMean();
    if (has_test_) {
      out["test_sq_err"] += test_sq_err_;
      out["test_ratings"] += static_cast<double>(test_ratings_);
    }
    if (p_.keep_best() && rank_ == 0) {  // the best before this evaluation
      out["iteration"] += static_cast<double>(evaluated_);
      out["has_best"] += tracking_.has_best ? 1.0 : 0.0;
      out["best_test_sq_err"] += tracking_.best_sq_err;
      out["best_iteration"] += static_cast<double>(tracking_.best_iteration);
      out["patience"] += p_.patience;
    }
  }

  // W (and the best W and Tracking, worker 0's, with --test).
  void SaveState(std::vector<proto::OutputPiece>& out) const override {
    OutputW(out, "W");
    if (p_.algorithm == Algorithm::kSgd) {
      proto::OutputPiece& g = out.emplace_back();
      g.set_name("Gw");
      g.set_first(row0_);
      g.set_width(1);
      g.mutable_values()->Add(gw_.begin(), gw_.end());
    }
    if (!p_.keep_best()) return;
    if (tracking_.has_best) OutputBestW(out);
    if (rank_ == 0) AddValues(out, "tracking", tracking_.Values());
  }

  // W's rows of the shard; CCD++ also rebuilds the residual A - W H^T from every column of H.
  Status RestoreState(const StatePieces& pieces) override {
    STRADS_RETURN_IF_ERROR(
        TakeRows(pieces, "W", row0_, rows_, k_,
                 [&](uint64_t i, uint32_t t, double v) { SetW(i - row0_, t, v); }));
    if (p_.algorithm == Algorithm::kSgd) {
      STRADS_RETURN_IF_ERROR(TakeRows(
          pieces, "Gw", row0_, rows_, 1,
          [&](uint64_t i, uint32_t, double v) { gw_[i - row0_] = static_cast<float>(v); }));
    }
    if (p_.keep_best()) STRADS_RETURN_IF_ERROR(RestoreTracking(pieces));
    if (p_.implicit) Gram(w_.data(), rows_, k_, gram_w_.data());
    if (p_.algorithm != Algorithm::kCcd) return Status::Ok();
    std::vector<double> h(cols_ * k_);
    STRADS_RETURN_IF_ERROR(TakeRows(pieces, "H", 0, cols_, k_,
                                    [&](uint64_t j, uint32_t t, double v) { h[j * k_ + t] = v; }));
    for (size_t e = 0; e < value_.size(); ++e) {
      residual_[e] = value_[e] - Predict(row_[e], h.data() + uint64_t{col_[e]} * k_);
    }
    return Status::Ok();
  }

  // W's rows, the shard's rows without ratings ("unseen_rows", global ids) and, from shard 0, the
  // training mean ("mean"): what unseen.txt lists.
  // With --test also the best W ("W_best"), the last evaluation's test squared error
  // ("test_sq_err") and, from worker 0, the best's ("best": has_best, squared error, iteration):
  // Assemble writes the better model.
  void Output(std::vector<proto::OutputPiece>& out) const override {
    OutputW(out, "W");
    if (p_.keep_best()) {
      if (tracking_.has_best) OutputBestW(out);
      AddValues(out, "test_sq_err", {test_sq_err_});
      if (rank_ == 0) {
        AddValues(out, "best",
                  {tracking_.has_best ? 1.0 : 0.0, tracking_.best_sq_err,
                   static_cast<double>(tracking_.best_iteration)});
      }
    }
    proto::OutputPiece unseen;
    unseen.set_name("unseen_rows");
    unseen.set_width(1);
    for (uint64_t i = 0; i < rows_; ++i) {
      if (coverage_.empty_row[row0_ + i]) unseen.add_values(static_cast<double>(row0_ + i));
    }
    if (unseen.values_size() > 0) out.push_back(std::move(unseen));
    if (rank_ == 0) AddValues(out, "mean", {FallbackMean()});
  }

 private:
  struct TestRating {
    uint32_t row;  // in the shard
    uint32_t col;
    double value;
  };

  // The shard's rows of W as piece `name`.
  void OutputW(std::vector<proto::OutputPiece>& out, const char* name) const {
    if (rows_ == 0) return;
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name(name);
    piece.set_first(row0_);
    piece.set_width(k_);
    piece.mutable_values()->Reserve(static_cast<int>(rows_ * k_));
    for (uint64_t i = 0; i < rows_; ++i) {
      for (uint32_t t = 0; t < k_; ++t) piece.add_values(W(i, t));
    }
  }

  void OutputBestW(std::vector<proto::OutputPiece>& out) const {
    if (rows_ == 0) return;
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name("W_best");
    piece.set_first(row0_);
    piece.set_width(k_);
    piece.mutable_values()->Add(w_best_.begin(), w_best_.end());
  }

  static void AddValues(std::vector<proto::OutputPiece>& out, const char* name,
                        const std::vector<double>& values) {
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name(name);
    piece.set_width(1);
    piece.mutable_values()->Add(values.begin(), values.end());
  }

  Status RestoreTracking(const StatePieces& pieces) {
    tracking_ = Tracking();
    for (const auto& piece : pieces) {
      if (piece.name() == "tracking" && !tracking_.FromValues(piece)) {
        return Status::InvalidArgument("checkpoint: a 'tracking' piece of the wrong size");
      }
    }
    decided_ = std::numeric_limits<uint64_t>::max();
    if (!tracking_.has_best) return Status::Ok();
    w_best_.assign(rows_ * k_, 0.0);
    return TakeRows(pieces, "W_best", row0_, rows_, k_,
                    [&](uint64_t i, uint32_t t, double v) { w_best_[(i - row0_) * k_ + t] = v; });
  }

  // W: for CCD++ w_, column-major (w_t contiguous); for SGD wf_, rows of kp_ floats.
  // ALS: w_, row-major.
  double W(uint64_t i, uint32_t t) const {
    switch (p_.algorithm) {
      case Algorithm::kSgd:
        return wf_[i * kp_ + t];
      case Algorithm::kAls:
        return w_[i * k_ + t];
      case Algorithm::kCcd:
        break;
    }
    return w_[t * rows_ + i];
  }
  void SetW(uint64_t i, uint32_t t, double v) {
    switch (p_.algorithm) {
      case Algorithm::kSgd:
        wf_[i * kp_ + t] = static_cast<float>(v);
        return;
      case Algorithm::kAls:
        w_[i * k_ + t] = v;
        return;
      case Algorithm::kCcd:
        w_[t * rows_ + i] = v;
        return;
    }
  }

  // What a pair without factors is predicted as: the training mean; implicit, preference 0.
  double FallbackMean() const { return p_.implicit ? 0.0 : coverage_.mean; }

  // Implicit ALS: the k x k Gram matrix `block` carries after its first `values` numbers.
  void TakeGram(const StaticBlock& block, uint64_t values) {
    std::copy_n(block.doubles.begin() + static_cast<int64_t>(values), uint64_t{k_} * k_,
                block_gram_[block.id].begin());
  }

  // ALS: every row with ratings solved exactly against the gathered H (als_solve.h); implicit,
  // from G_H (mf_reference.h).
  void SolveRows() {
    AlsNormalEquations equations(k_);
    for (uint64_t i = 0; i < rows_; ++i) {
      if (row_begin_[i] == row_begin_[i + 1]) continue;  // w_i stays 0
      if (p_.implicit) {
        equations.Start(gram_h_);
      } else {
        equations.Clear();
      }
      for (uint64_t e = row_begin_[i]; e < row_begin_[i + 1]; ++e) {
        const double* h = &h_full_[uint64_t{col_[e]} * k_];
        if (p_.implicit) {
          const double c = Confidence(p_.alpha, value_[e]);
          equations.Add(h, c - 1.0, c * Preference(value_[e]));
        } else {
          equations.Add(h, value_[e]);
        }
      }
      equations.Solve(row_penalty_[i], &w_[i * k_]);
    }
  }
  // CCD++: w_t, rows_ values.
  double* Column(uint32_t t) { return w_.data() + uint64_t{t} * rows_; }

  // SGD's state: W in single precision and padded (sgd_kernel.h), the accumulators G_i, the
  // per-rating penalty coefficients, and each block's ratings as runs of one row's, in
  // SgdRowOrder, as the kernel streams them.
  void InitSgd(const Ratings& train) {
    kp_ = PaddedRank(k_);
    const double s = RatingScale(train);
    const double scale = SgdInitialScale(s, k_);
    g_scale_ = static_cast<float>(1.0 / (s * k_));
    wf_.assign(rows_ * kp_, 0.0f);
    gw_.assign(rows_, static_cast<float>(s * s));
    for (uint64_t i = 0; i < rows_; ++i) {
      if (coverage_.empty_row[row0_ + i]) continue;  // stays 0
      for (uint32_t t = 0; t < k_; ++t) {
        wf_[i * kp_ + t] =
            static_cast<float>(scale * InitialUniform(p_.seed, Factor::kW, row0_ + i, t));
      }
    }
    // lambda c_i / |Omega_i| and lambda c^j / |Omega^j| (as the reference computes them).
    auto per_rating = [&](uint64_t n) {
      return n == 0 ? 0.0f
                    : static_cast<float>(p_.lambda * PenaltyWeight(p_.regularization, n) /
                                         static_cast<double>(n));
    };
    row_reg_.resize(rows_);
    for (uint64_t i = 0; i < rows_; ++i) {
      row_reg_[i] = per_rating(train.row_start[row0_ + i + 1] - train.row_start[row0_ + i]);
    }
    const uint32_t blocks = static_cast<uint32_t>(layout_.col_bounds.size() - 1);
    sgd_.resize(blocks);
    for (uint32_t b = 0; b < blocks; ++b) {
      const uint64_t c0 = layout_.col_bounds[b], c1 = layout_.col_bounds[b + 1];
      SgdBlock& block = sgd_[b];
      for (uint64_t j = c0; j < c1; ++j) {
        block.col_reg.push_back(per_rating(train.col_start[j + 1] - train.col_start[j]));
      }
      // by_row_[b] holds each row's ratings of the block as one run.
      const std::vector<uint64_t>& entries = by_row_[b];
      for (size_t q = 0; q < entries.size();) {
        size_t end = q;
        while (end < entries.size() && row_[entries[end]] == row_[entries[q]]) ++end;
        const std::vector<SgdRating> run =
            SgdRowOrder(train, p_.seed, e0_ + entries[q], e0_ + entries[end - 1] + 1,
                        static_cast<uint32_t>(c0));
        block.runs.push_back({row_[entries[q]], static_cast<uint32_t>(block.ratings.size()),
                              static_cast<uint32_t>(run.size())});
        block.ratings.insert(block.ratings.end(), run.begin(), run.end());
        q = end;
      }
    }
  }

  // One SGD sweep over the shard's ratings of `block` (H rows and accumulators): its rows in an
  // order drawn from (seed, iteration, worker, block), each row's ratings in their fixed order.
  Result<uint64_t> Epoch(const StaticStep& step, StaticBlock& block) {
    const SgdBlock& sb = sgd_[block.id];
    const uint64_t columns = sb.col_reg.size();
    const uint32_t width = k_ + 1;
    h_.assign(columns * kp_, 0.0f);
    gh_.resize(columns);
    for (uint64_t j = 0; j < columns; ++j) {
      for (uint32_t t = 0; t < k_; ++t) {
        h_[j * kp_ + t] = static_cast<float>(block.doubles[j * width + t]);
      }
      gh_[j] = static_cast<float>(block.doubles[j * width + k_]);
    }
    order_.resize(sb.runs.size());
    std::iota(order_.begin(), order_.end(), uint32_t{0});
    SplitMix64 rng(SgdOrderSeed(p_.seed, step.iteration, rank_, block.id));
    for (uint64_t n = order_.size(); n > 1; --n) std::swap(order_[n - 1], order_[rng.Below(n)]);
    SgdRates rates;
    // Epoch t = iteration - 1 of the reference.
    rates.eta = static_cast<float>(p_.learning_rate /
                                   (1.0 + p_.decay * static_cast<double>(step.iteration - 1)));
    rates.g_scale = g_scale_;
    float errors = 0.0f;
    for (size_t o = 0; o < order_.size(); ++o) {
      const SgdRun& run = sb.runs[order_[o]];
      if (o + 1 < order_.size()) {  // the next row's factor: rows come in a random order
        __builtin_prefetch(&wf_[uint64_t{sb.runs[order_[o + 1]].row} * kp_], 1);
      }
      rates.row_reg = row_reg_[run.row];
      errors += SgdRow(&wf_[uint64_t{run.row} * kp_], &gw_[run.row], sb.ratings.data() + run.begin,
                       run.count, h_.data(), gh_.data(), sb.col_reg.data(), kp_, rates);
    }
    for (uint64_t j = 0; j < columns; ++j) {
      for (uint32_t t = 0; t < k_; ++t) block.doubles[j * width + t] = h_[j * kp_ + t];
      block.doubles[j * width + k_] = gh_[j];
    }
    if (!std::isfinite(errors)) {
      return Status::FailedPrecondition(
          fmt::format("mf sgd: diverged in epoch {} (a prediction is not finite); lower "
                      "--learning-rate",
                      step.iteration));
    }
    return sb.ratings.size();
  }

  // w_i^T h_j, in four partial sums (the evaluation pass is as long as an SGD epoch otherwise).
  double Predict(uint32_t i, const double* hj) const {
    if (p_.algorithm == Algorithm::kSgd) return EvalDot(&wf_[uint64_t{i} * kp_], hj, k_);
    if (p_.algorithm == Algorithm::kAls) return EvalDot(&w_[uint64_t{i} * k_], hj, k_);
    return Dot(&w_[i], rows_, hj);
  }

  template <typename T>
  double Dot(const T* w, uint64_t stride, const double* hj) const {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    uint32_t t = 0;
    for (; t + 4 <= k_; t += 4) {
      s0 += static_cast<double>(w[t * stride]) * hj[t];
      s1 += static_cast<double>(w[(t + 1) * stride]) * hj[t + 1];
      s2 += static_cast<double>(w[(t + 2) * stride]) * hj[t + 2];
      s3 += static_cast<double>(w[(t + 3) * stride]) * hj[t + 3];
    }
    for (; t < k_; ++t) s0 += static_cast<double>(w[t * stride]) * hj[t];
    return (s0 + s1) + (s2 + s3);
  }

  void Evaluate(const StaticStep& step, const StaticBlock& block, std::span<double> delta) {
    if (step.iteration != evaluated_) {  // the first block of this evaluation pass
      evaluated_ = step.iteration;
      sq_err_ = test_sq_err_ = pref_sq_err_ = 0.0;
      if (p_.keep_best() && rank_ == 0) delta[Tracking::kEvaluations] += 1.0;
    }

    const uint64_t c0 = layout_.col_bounds[block.id];
    const double* h = block.doubles.data();
    if (p_.implicit) {
      // c_ij (p_ij - y)^2 - y^2 on Omega; Metrics adds every pair's y^2.
      for (uint64_t e : by_row_[block.id]) {
        const double y = Predict(row_[e], h + (col_[e] - c0) * k_);
        const double d = Preference(value_[e]) - y;
        sq_err_ += Confidence(p_.alpha, value_[e]) * d * d - y * y;
        pref_sq_err_ += d * d;
      }
      TakeGram(block, (layout_.col_bounds[block.id + 1] - c0) * k_);
      return;
    }
    for (uint64_t e : by_row_[block.id]) {
      const double d = value_[e] - Predict(row_[e], h + (col_[e] - c0) * k_);
      sq_err_ += d * d;
    }
    if (!has_test_) return;
    double block_sq_err = 0.0;
    for (const TestRating& r : test_[block.id]) {
      // A pair without factors is predicted by the training mean.
      const double predicted = coverage_.Covers(row0_ + r.row, r.col)
                                   ? Predict(r.row, h + (r.col - c0) * k_)
                                   : coverage_.mean;
      const double d = r.value - predicted;
      block_sq_err += d * d;
    }
    test_sq_err_ += block_sq_err;
    if (p_.keep_best()) delta[Tracking::kSqErr] += block_sq_err;
  }

  const Params p_;
  const Layout layout_;
  const uint32_t rank_;
  const uint32_t k_;
  const uint32_t passes_;
  uint64_t row0_ = 0, rows_ = 0, cols_ = 0;
  uint64_t e0_ = 0;          // the shard's first entry in the training matrix
  const Coverage coverage_;  // of the whole training matrix

  // The shard's training ratings, in (row, col) order; rows relative to row0_.
  std::vector<uint32_t> row_, col_;
  std::vector<double> value_;
  std::vector<std::vector<uint64_t>> by_row_;  // per block: entries in (row, col) order
  std::vector<std::vector<uint64_t>> by_col_;  // per block: entries in (col, row) order (CCD++)

  std::vector<double> w_;  // CCD++, ALS: rows_ x k_, see W()
  // ALS: the whole of H, gathered in pass 0, and each row's first entry (rows_ + 1).
  std::vector<double> h_full_;
  std::vector<uint64_t> row_begin_;
  // Implicit ALS: each block's Gram matrix from the last gather or evaluation pass, their sum
  // G_H, and this shard's W^T W.
  std::vector<std::vector<double>> block_gram_;
  Eigen::MatrixXd gram_h_, gram_w_;

  std::vector<double> row_penalty_;  // lambda c_i
  // CCD++: the residual R (R^ within a rank-one subproblem), and a W pass's sums per row.
  std::vector<double> residual_, num_, den_;
  // SGD (InitSgd, Epoch): W and G_i, r_i per row, each block's ratings, and buffers.
  struct SgdRun {
    uint32_t row;    // in the shard
    uint32_t begin;  // in SgdBlock::ratings
    uint32_t count;
  };
  struct SgdBlock {
    std::vector<SgdRating> ratings;  // runs of one row's ratings, rows ascending
    std::vector<SgdRun> runs;
    std::vector<float> col_reg;  // c_j of the block's columns
  };
  uint32_t kp_ = 0;
  float g_scale_ = 0;
  std::vector<float> wf_, gw_, row_reg_;
  std::vector<SgdBlock> sgd_;
  std::vector<float> h_, gh_;    // the block's H rows (kp_ each) and accumulators
  std::vector<uint32_t> order_;  // of the block's runs

  bool has_test_ = false;
  uint64_t test_ratings_ = 0;
  std::vector<std::vector<TestRating>> test_;  // per block

  uint64_t evaluated_ = std::numeric_limits<uint64_t>::max();
  double sq_err_ = 0.0, test_sq_err_ = 0.0;
  double pref_sq_err_ = 0.0;  // implicit: sum (p_ij - w_i^T h_j)^2 on Omega

  // --test: the best model so far (see Tracking).
  Tracking tracking_;
  std::vector<double> w_best_;                               // rows_ x k_, row-major
  uint64_t decided_ = std::numeric_limits<uint64_t>::max();  // the iteration Take ran in
  bool new_best_ = false;                                    // what it said
};

// ------------------------------------------------------------------------------------------------
// Scheduler side.

class MfHome final : public StaticHome {
 public:
  MfHome(const Params& p, const Ratings& train, Layout layout, uint32_t rank, uint32_t schedulers)
      : p_(p),
        layout_(std::move(layout)),
        rank_(rank),
        schedulers_(schedulers),
        k_(p.rank),
        passes_(Passes(p)) {
    const uint32_t blocks = static_cast<uint32_t>(layout_.col_bounds.size() - 1);
    const bool sgd = p.algorithm == Algorithm::kSgd;
    const double s = sgd ? RatingScale(train) : 1.0;
    const double scale = sgd ? SgdInitialScale(s, k_) : CcdInitialScale(k_);
    for (uint32_t b = rank; b < blocks; b += schedulers) {
      const uint64_t c0 = layout_.col_bounds[b], c1 = layout_.col_bounds[b + 1];
      std::vector<double>& h = h_[b];
      std::vector<double>& penalty = penalty_[b];
      h.resize((c1 - c0) * k_);
      penalty.resize(c1 - c0);
      // SGD: G^j = s^2, and single-precision values (sgd_kernel.h).
      if (sgd) g_[b].assign(c1 - c0, static_cast<float>(s * s));
      for (uint64_t j = c0; j < c1; ++j) {
        const uint64_t ratings = train.col_start[j + 1] - train.col_start[j];
        if (ratings == 0) unseen_.push_back(j);  // h_j stays 0
        for (uint32_t t = 0; ratings > 0 && t < k_; ++t) {
          const double v = scale * InitialUniform(p.seed, Factor::kH, j, t);
          h[(j - c0) * k_ + t] = sgd ? static_cast<float>(v) : v;
        }
        penalty[j - c0] =
            p.lambda * PenaltyWeight(p.regularization, train.col_start[j + 1] - train.col_start[j]);
      }
      columns_ += c1 - c0;
    }
  }

  Result<StaticBlock> TakeBlock(uint32_t block, const StaticStep& step) override {
    auto it = h_.find(block);
    if (it == h_.end()) {
      return Status::InvalidArgument(
          fmt::format("mf: block {} is not homed at scheduler {}", block, rank_));
    }
    if (step.pass >= passes_) {
      return Status::InvalidArgument(fmt::format("mf: pass {} out of range", step.pass));
    }
    const std::vector<double>& h = it->second;
    const uint64_t columns = h.size() / k_;
    const PassInfo pass = Describe(p_, step.pass);
    if (p_.keep_best() && pass.kind == PassKind::kEval) candidate_[block] = h;
    StaticBlock out;
    out.id = block;
    switch (pass.kind) {
      case PassKind::kW:
      case PassKind::kR:
        out.doubles.resize(columns);
        for (uint64_t j = 0; j < columns; ++j) out.doubles[j] = h[j * k_ + pass.t];
        break;
      case PassKind::kH: {
        // num_j = 0, den_j = lambda c^j: the reference's starting values.
        const std::vector<double>& penalty = penalty_.at(block);
        out.doubles.assign(2 * columns, 0.0);
        std::copy(penalty.begin(), penalty.end(),
                  out.doubles.begin() + static_cast<int64_t>(columns));
        break;
      }
      case PassKind::kEpoch: {
        const std::vector<double>& g = g_.at(block);
        out.doubles.resize(columns * (k_ + 1));
        for (uint64_t j = 0; j < columns; ++j) {
          std::copy_n(h.begin() + static_cast<int64_t>(j * k_), k_,
                      out.doubles.begin() + static_cast<int64_t>(j * (k_ + 1)));
          out.doubles[j * (k_ + 1) + k_] = g[j];
        }
        break;
      }
      case PassKind::kResidual:
      case PassKind::kCg: {
        // ALS (see AlsStep): x_j = h_j or p_j, then a sum every worker adds to.
        const std::vector<double>& x = pass.kind == PassKind::kResidual ? h : als_p_.at(block);
        // Implicit: the residual pass's block also collects W^T W (GramSize).
        out.doubles.assign(columns * 2 * k_ + GramSize(p_, pass.kind), 0.0);
        for (uint64_t j = 0; j < columns; ++j) {
          std::copy_n(x.begin() + static_cast<int64_t>(j * k_), k_,
                      out.doubles.begin() + static_cast<int64_t>(j * 2 * k_));
        }
        break;
      }
      case PassKind::kGather:
      case PassKind::kEval:
        out.doubles = h;
        if (p_.implicit) {  // and sum_j h_j h_j^T over the block's columns
          out.doubles.resize(h.size() + GramSize(p_, pass.kind));
          Gram(h.data(), columns, k_, out.doubles.data() + h.size());
        }
        break;
    }
    if (p_.keep_best() && step.pass == 0) out.doubles.push_back(0.0);  // Tracking's decision
    return out;
  }

  Status ReturnBlock(StaticBlock block, const StaticStep& step) override {
    STRADS_RETURN_IF_ERROR(CheckBlock(block, step, p_, layout_, passes_));
    auto it = h_.find(block.id);
    if (it == h_.end()) return BadBlock(block, step, fmt::format("not homed at {}", rank_));
    std::vector<double>& h = it->second;
    const PassInfo pass = Describe(p_, step.pass);
    if (p_.keep_best() && step.pass == 0) {
      // The last evaluation was the best so far: keep H as it was then.
      if (block.doubles.back() != 0.0) h_best_[block.id] = candidate_[block.id];
      block.doubles.pop_back();
    }
    if (pass.kind == PassKind::kH) {
      const uint64_t columns = h.size() / k_;
      for (uint64_t j = 0; j < columns; ++j) {
        const double num = block.doubles[j], den = block.doubles[columns + j];
        h[j * k_ + pass.t] = den > 0.0 ? num / den : 0.0;
      }
    } else if (pass.kind == PassKind::kResidual || pass.kind == PassKind::kCg) {
      if (p_.implicit && pass.kind == PassKind::kResidual) {  // W^T W, summed by every worker
        const uint64_t columns = h.size() / k_;
        gram_w_[block.id].assign(block.doubles.begin() + static_cast<int64_t>(columns * 2 * k_),
                                 block.doubles.end());
      }
      AlsStep(block.id, pass.kind, block.doubles);
    } else if (pass.kind == PassKind::kEpoch) {
      std::vector<double>& g = g_.at(block.id);
      for (uint64_t j = 0; j < g.size(); ++j) {
        std::copy_n(block.doubles.begin() + static_cast<int64_t>(j * (k_ + 1)), k_,
                    h.begin() + static_cast<int64_t>(j * k_));
        g[j] = block.doubles[j * (k_ + 1) + k_];
      }
    }
    return Status::Ok();
  }

  // ALS's conjugate-gradient steps on the columns of `block` (mf_reference.h), from the sums the
  // workers added: after the residual pass, r_j = b - A x_j and p_j = r_j; after a CG pass, one
  // step. Implicit, A also has the term G_W = W^T W the residual pass brought. The arithmetic is
  // the reference's, term by term.
  void AlsStep(uint32_t block, PassKind kind, const std::vector<double>& sums) {
    std::vector<double>& h = h_.at(block);
    std::vector<double>& r = als_r_[block];
    std::vector<double>& p = als_p_[block];
    std::vector<double>& rs = als_rs_[block];
    const std::vector<double>& penalty = penalty_.at(block);
    const uint64_t columns = penalty.size();
    r.resize(columns * k_);
    p.resize(columns * k_);
    rs.resize(columns);
    auto dot = [this](const double* a, const double* b) {
      double d = 0.0;
      for (uint32_t t = 0; t < k_; ++t) d += a[t] * b[t];
      return d;
    };
    const double* gram = p_.implicit ? gram_w_.at(block).data() : nullptr;
    gx_.assign(k_, 0.0);
    for (uint64_t j = 0; j < columns; ++j) {
      double* x = &h[j * k_];
      double* rj = &r[j * k_];
      double* pj = &p[j * k_];
      const double* sum = &sums[j * 2 * k_ + k_];
      if (kind == PassKind::kResidual) {
        if (gram != nullptr) GramTimes(gram, x, k_, gx_.data());
        for (uint32_t t = 0; t < k_; ++t) rj[t] = (sum[t] - gx_[t]) - penalty[j] * x[t];
        std::copy_n(rj, k_, pj);
        rs[j] = dot(rj, rj);
        continue;
      }
      q_.resize(k_);
      if (gram != nullptr) GramTimes(gram, pj, k_, gx_.data());
      for (uint32_t t = 0; t < k_; ++t) q_[t] = (sum[t] + gx_[t]) + penalty[j] * pj[t];
      const double pq = dot(pj, q_.data());
      if (!(rs[j] > 0.0 && pq > 0.0)) continue;
      const double alpha = rs[j] / pq;
      for (uint32_t t = 0; t < k_; ++t) {
        x[t] += alpha * pj[t];
        rj[t] -= alpha * q_[t];
      }
      const double rs_next = dot(rj, rj);
      for (uint32_t t = 0; t < k_; ++t) pj[t] = rj[t] + (rs_next / rs[j]) * pj[t];
      rs[j] = rs_next;
    }
  }

  void Metrics(std::map<std::string, double>& out) const override {
    double penalty = 0.0;
    for (const auto& [b, h] : h_) {
      const std::vector<double>& c = penalty_.at(b);
      for (uint64_t j = 0; j < c.size(); ++j) {
        double norm = 0.0;
        for (uint32_t t = 0; t < k_; ++t) norm += h[j * k_ + t] * h[j * k_ + t];
        penalty += c[j] * norm;
      }
    }
    out["h_penalty"] += penalty;
    out["cols"] += static_cast<double>(columns_);
    out["empty_cols"] += static_cast<double>(unseen_.size());
    if (rank_ == 0) {
      out["rank"] += k_;
      out["lambda"] += p_.lambda;
      out["sgd"] += p_.algorithm == Algorithm::kSgd ? 1.0 : 0.0;
      out["als"] += p_.algorithm == Algorithm::kAls ? 1.0 : 0.0;
      out["implicit"] += p_.implicit ? 1.0 : 0.0;
      out["alpha"] += p_.implicit ? p_.alpha : 0.0;
      out["plain"] += p_.regularization == Regularization::kPlain ? 1.0 : 0.0;
    }
  }

  void SaveState(std::vector<proto::OutputPiece>& out) const override {
    OutputH(out, "H", h_);
    OutputH(out, "H_best", h_best_);
    for (const auto& [b, g] : g_) {
      proto::OutputPiece& piece = out.emplace_back();
      piece.set_name("Gh");
      piece.set_first(layout_.col_bounds[b]);
      piece.set_width(1);
      piece.mutable_values()->Add(g.begin(), g.end());
    }
  }

  // H, and with --test the best H when the checkpoint has one (H is also the copy taken at the
  // last evaluation: a checkpoint comes after an iteration).
  Status RestoreState(const StatePieces& pieces) override {
    bool has_best = false;
    for (const auto& piece : pieces) has_best = has_best || piece.name() == "H_best";
    h_best_.clear();
    for (auto& [b, h] : h_) {
      const uint64_t c0 = layout_.col_bounds[b], c1 = layout_.col_bounds[b + 1];
      STRADS_RETURN_IF_ERROR(
          TakeRows(pieces, "H", c0, c1 - c0, k_,
                   [&](uint64_t j, uint32_t t, double v) { h[(j - c0) * k_ + t] = v; }));
      if (p_.algorithm == Algorithm::kSgd) {
        std::vector<double>& g = g_.at(b);
        STRADS_RETURN_IF_ERROR(TakeRows(pieces, "Gh", c0, c1 - c0, 1,
                                        [&](uint64_t j, uint32_t, double v) { g[j - c0] = v; }));
      }
      if (p_.keep_best()) candidate_[b] = h;
      if (!p_.keep_best() || !has_best) continue;
      std::vector<double>& best = h_best_[b];
      best.resize(h.size());
      STRADS_RETURN_IF_ERROR(
          TakeRows(pieces, "H_best", c0, c1 - c0, k_,
                   [&](uint64_t j, uint32_t t, double v) { best[(j - c0) * k_ + t] = v; }));
    }
    return Status::Ok();
  }

  // H's rows, the best H's ("H_best", with --test, once there is one) and the home's columns
  // without ratings ("unseen_cols").
  void Output(std::vector<proto::OutputPiece>& out) const override {
    OutputH(out, "H", h_);
    OutputH(out, "H_best", h_best_);
    if (unseen_.empty()) return;
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name("unseen_cols");
    piece.set_width(1);
    for (uint64_t j : unseen_) piece.add_values(static_cast<double>(j));
  }

 private:
  void OutputH(std::vector<proto::OutputPiece>& out, const char* name,
               const std::map<uint32_t, std::vector<double>>& blocks) const {
    for (const auto& [b, h] : blocks) {
      if (h.empty()) continue;
      proto::OutputPiece& piece = out.emplace_back();
      piece.set_name(name);
      piece.set_first(layout_.col_bounds[b]);
      piece.set_width(k_);
      piece.mutable_values()->Add(h.begin(), h.end());
    }
  }

  const Params p_;
  const Layout layout_;
  const uint32_t rank_;
  const uint32_t schedulers_;
  const uint32_t k_;
  const uint32_t passes_;
  uint64_t columns_ = 0;
  std::map<uint32_t, std::vector<double>> h_;        // owned block -> its H rows, row-major
  std::map<uint32_t, std::vector<double>> penalty_;  // owned block -> lambda c^j of its columns
  std::vector<uint64_t> unseen_;                     // owned columns without ratings
  // --test (see Tracking): each block's H at the last evaluation, and at the best one.
  std::map<uint32_t, std::vector<double>> candidate_, h_best_;
  std::map<uint32_t, std::vector<double>> g_;  // SGD: owned block -> G^j of its columns
  // ALS: each owned block's CG state r_j, p_j (k each), r_j^T r_j, and a buffer.
  std::map<uint32_t, std::vector<double>> als_r_, als_p_, als_rs_;
  std::map<uint32_t, std::vector<double>> gram_w_;  // implicit: W^T W, as each block brought it
  std::vector<double> q_, gx_;
};

// Joins the pieces called `name` into a (sum of piece rows) x k matrix. The pieces must tile
// rows 0..n-1 exactly.
Result<Eigen::MatrixXd> Join(const std::vector<proto::OutputPiece>& pieces, const std::string& name,
                             uint32_t k) {
  std::vector<const proto::OutputPiece*> parts;
  for (const auto& piece : pieces) {
    if (piece.name() == name) parts.push_back(&piece);
  }
  std::sort(parts.begin(), parts.end(),
            [](const auto* a, const auto* b) { return a->first() < b->first(); });
  uint64_t rows = 0;
  for (const auto* part : parts) {
    if (part->width() != k || part->values_size() % k != 0) {
      return Status::InvalidArgument(
          fmt::format("mf: piece {} at {} has width {} and {} values, expected width {} (the rank)",
                      name, part->first(), part->width(), part->values_size(), k));
    }
    if (part->first() != rows) {
      return Status::InvalidArgument(
          fmt::format("mf: pieces of {} leave rows {}..{} uncovered "
                      "or overlapping",
                      name, std::min(rows, part->first()), std::max(rows, part->first())));
    }
    rows += static_cast<uint64_t>(part->values_size()) / k;
  }
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows), k);
  for (const auto* part : parts) {
    const auto first = static_cast<Eigen::Index>(part->first());
    for (int v = 0; v < part->values_size(); ++v) {
      m(first + v / k, v % k) = part->values(v);
    }
  }
  if (!m.allFinite()) {
    return Status::FailedPrecondition("mf: " + name +
                                      " has non-finite values (the run diverged; for sgd lower "
                                      "--learning-rate)");
  }
  return m;
}

double Get(const std::map<std::string, double>& metrics, const std::string& name) {
  auto it = metrics.find(name);
  return it == metrics.end() ? 0.0 : it->second;
}

// Implicit: the preferences' RMSE on the training entries.
double TrainRmse(const std::map<std::string, double>& m) {
  const double n = Get(m, "ratings");
  const double sq_err = Get(m, "implicit") > 0 ? Get(m, "pref_sq_err") : Get(m, "sq_err");
  return n > 0 ? std::sqrt(sq_err / n) : std::numeric_limits<double>::quiet_NaN();
}

// NaN when there was no --test (or it had no ratings).
double TestRmse(const std::map<std::string, double>& m) {
  const double n = Get(m, "test_ratings");
  return n > 0 ? std::sqrt(Get(m, "test_sq_err") / n) : std::numeric_limits<double>::quiet_NaN();
}

// With --test, from an evaluation's metrics: the best model so far, this evaluation included
// (`best`), and the model the job writes if this evaluation is its last (`kept`, see Tracking).
struct Models {
  struct Model {
    double sq_err = 0;
    uint64_t iteration = 0;
  };
  Model best, kept;
  bool kept_earlier = false;  // kept is the best of an earlier evaluation, not this one
};

std::optional<Models> ModelsOf(const std::map<std::string, double>& m) {
  if (m.count("has_best") == 0) return std::nullopt;
  const Models::Model last{Get(m, "test_sq_err"), static_cast<uint64_t>(Get(m, "iteration"))};
  const Models::Model earlier{Get(m, "best_test_sq_err"),
                              static_cast<uint64_t>(Get(m, "best_iteration"))};
  const bool has_earlier = Get(m, "has_best") > 0;
  Models models;
  models.best = has_earlier && !(last.sq_err < earlier.sq_err) ? earlier : last;
  models.kept_earlier = has_earlier && KeepsBest(earlier.sq_err, last.sq_err);
  models.kept = models.kept_earlier ? earlier : last;
  return models;
}

double RmseOf(const Models::Model& model, const std::map<std::string, double>& m) {
  return std::sqrt(model.sq_err / Get(m, "test_ratings"));
}

}  // namespace

std::string MfApp::summary() const { return "matrix factorisation, CCD++, stratified SGD or ALS"; }

boost::program_options::options_description MfApp::Options() const {
  namespace po = boost::program_options;
  po::options_description d("mf");
  d.add_options()("algorithm", po::value<std::string>()->default_value("ccd"),
                  "ccd (CCD++) | sgd (stratified SGD, LIBMF's steps) | als (alternating least "
                  "squares: exact rows, conjugate-gradient columns)")(
      "test", po::value<std::string>()->default_value(""),
      "held-out ratings (MatrixMarket coordinate) for test_rmse")(
      "rank", po::value<uint32_t>()->default_value(10), "k: rank of the factors")(
      "lambda", po::value<double>()->default_value(0.1, "0.1"), "regularisation lambda >= 0")(
      "regularization", po::value<std::string>()->default_value("weighted"),
      "weighted: lambda (sum_i |Omega_i| ||w_i||^2 + sum_j |Omega^j| ||h_j||^2) | plain: "
      "lambda (||W||^2 + ||H||^2)")("learning-rate", po::value<double>()->default_value(0.1, "0.1"),
                                    "sgd: eta_0 of LIBMF's adaptive steps; epoch t uses "
                                    "eta_0 / (1 + decay * t)")(
      "decay", po::value<double>()->default_value(0.0, "0"), "sgd: learning-rate decay >= 0")(
      "inner-iterations", po::value<uint32_t>()->default_value(1),
      "ccd: inner alternations per rank-one subproblem")(
      "cg-steps", po::value<uint32_t>()->default_value(3),
      "als: conjugate-gradient steps per column and iteration (each one pass over the ratings)")(
      "implicit", po::bool_switch(),
      "als: implicit feedback (Hu, Koren and Volinsky 2008): every pair (i, j) has preference "
      "a_ij > 0 and confidence 1 + alpha |a_ij| (1 and preference 0 where nothing is stored)")(
      "alpha", po::value<double>()->default_value(1.0, "1"),
      "implicit: the confidence's slope alpha >= 0")(
      "patience", po::value<uint32_t>()->default_value(5),
      "with --test: stop after this many iterations without a better test RMSE (0: never); the "
      "job writes the model of the best test RMSE either way");
  return d;
}

Status MfApp::FromOptions(const boost::program_options::variables_map& vm,
                          proto::JobSpec& spec) const {
  proto::MfSpec mf;
  mf.set_algorithm(vm["algorithm"].as<std::string>());
  mf.set_test_path(AbsolutePath(vm["test"].as<std::string>()));
  mf.set_rank(vm["rank"].as<uint32_t>());
  mf.set_lambda(vm["lambda"].as<double>());
  mf.set_regularization(vm["regularization"].as<std::string>());
  mf.set_learning_rate(vm["learning-rate"].as<double>());
  mf.set_decay(vm["decay"].as<double>());
  mf.set_inner_iterations(vm["inner-iterations"].as<uint32_t>());
  mf.set_cg_steps(vm["cg-steps"].as<uint32_t>());
  mf.set_implicit(vm["implicit"].as<bool>());
  mf.set_alpha(vm["alpha"].as<double>());
  mf.set_patience(vm["patience"].as<uint32_t>());
  SetAppParams(mf, spec);
  return Status::Ok();
}

std::vector<std::string> MfApp::InputFiles(const proto::JobSpec& spec) const {
  // --test; JobSpecPaths leaves it out when empty. A spec Validate refuses has none.
  Result<proto::MfSpec> mf = AppParams<proto::MfSpec>(spec);
  return {mf.ok() ? mf->test_path() : ""};
}

void MfApp::MapInputFiles(proto::JobSpec& spec,
                          const std::function<std::string(const std::string&)>& map) const {
  Result<proto::MfSpec> params = AppParams<proto::MfSpec>(spec);
  if (!params.ok() || params->test_path().empty()) return;
  params->set_test_path(map(params->test_path()));
  SetAppParams(*params, spec);
}

std::vector<std::string> MfApp::OutputFiles() const { return {"W.mtx", "H.mtx", "unseen.txt"}; }

Status MfApp::Validate(const proto::JobSpec& spec) const { return ParseParams(spec).status(); }

uint32_t MfApp::NumAggregates(const proto::JobSpec& spec) const {
  Result<Params> p = ParseParams(spec);
  return p.ok() && p->keep_best() ? 2 : 0;  // Tracking's
}

uint32_t MfApp::PassesPerIteration(const proto::JobSpec& spec) const {
  Result<Params> p = ParseParams(spec);
  return p.ok() ? Passes(*p) : 1;
}

Result<std::unique_ptr<StaticShard>> MfApp::LoadShard(const proto::JobSpec& spec, uint32_t rank,
                                                      uint32_t workers, uint32_t blocks) const {
  STRADS_ASSIGN_OR_RETURN(Params p, ParseParams(spec));
  if (workers == 0 || rank >= workers || blocks == 0) {
    return Status::InvalidArgument(
        fmt::format("mf: shard {} of {} workers with {} blocks", rank, workers, blocks));
  }
  try {
    STRADS_ASSIGN_OR_RETURN(Ratings train, LoadTrain(spec));
    std::optional<Ratings> test;
    if (!p.test_path.empty()) {
      STRADS_ASSIGN_OR_RETURN(Ratings loaded, LoadRatingsLike(p.test_path, train));
      test = std::move(loaded);
    }
    Layout layout = MakeLayout(train, workers, blocks, p.balance);
    return std::unique_ptr<StaticShard>(
        std::make_unique<MfShard>(p, train, test ? &*test : nullptr, std::move(layout), rank));
  } catch (const std::bad_alloc&) {
    return Status::Internal("mf: out of memory loading shard " + std::to_string(rank));
  }
}

Result<std::unique_ptr<StaticHome>> MfApp::LoadHome(const proto::JobSpec& spec, uint32_t rank,
                                                    uint32_t schedulers, uint32_t workers,
                                                    uint32_t blocks) const {
  STRADS_ASSIGN_OR_RETURN(Params p, ParseParams(spec));
  if (schedulers == 0 || rank >= schedulers || workers == 0 || blocks == 0) {
    return Status::InvalidArgument(
        fmt::format("mf: home {} of {} schedulers with {} blocks", rank, schedulers, blocks));
  }
  try {
    STRADS_ASSIGN_OR_RETURN(Ratings train, LoadTrain(spec));
    Layout layout = MakeLayout(train, workers, blocks, p.balance);
    return std::unique_ptr<StaticHome>(
        std::make_unique<MfHome>(p, train, std::move(layout), rank, schedulers));
  } catch (const std::bad_alloc&) {
    return Status::Internal("mf: out of memory loading home " + std::to_string(rank));
  }
}

std::string MfApp::TraceHeader() const {
  return "seconds,iteration,objective,train_rmse,test_rmse";
}

std::string MfApp::TraceRow(double seconds, uint64_t iteration, uint64_t,
                            const std::map<std::string, double>& metrics) const {
  std::string test;
  if (metrics.count("test_ratings") != 0) test = fmt::format("{:.10g}", TestRmse(metrics));
  return fmt::format("{:.3f},{},{:.10g},{:.10g},{}", seconds, iteration, Objective(metrics),
                     TrainRmse(metrics), test);
}

double MfApp::Objective(const std::map<std::string, double>& metrics) const {
  return Get(metrics, "sq_err") + Get(metrics, "w_penalty") + Get(metrics, "h_penalty");
}

std::string MfApp::ObjectiveName() const { return "objective"; }

std::string MfApp::DivergenceAdvice(const proto::JobSpec& spec) const {
  Result<proto::MfSpec> mf = AppParams<proto::MfSpec>(spec);
  return mf.ok() && mf->algorithm() == "sgd" ? "try a smaller --learning-rate" : "";
}

Result<std::vector<proto::ResultFile>> MfApp::Assemble(
    const proto::JobSpec& spec, const std::vector<proto::OutputPiece>& pieces) const {
  STRADS_ASSIGN_OR_RETURN(const proto::MfSpec mf, AppParams<proto::MfSpec>(spec));
  if (mf.rank() == 0) return Status::InvalidArgument("mf: --rank must be >= 1");
  std::vector<uint64_t> rows, cols;
  std::optional<double> mean, best;
  double last_sq_err = 0.0;
  for (const auto& piece : pieces) {
    if (piece.name() == "unseen_rows" || piece.name() == "unseen_cols") {
      std::vector<uint64_t>& ids = piece.name() == "unseen_rows" ? rows : cols;
      for (double id : piece.values()) ids.push_back(static_cast<uint64_t>(id));
    } else if (piece.name() == "mean" && piece.values_size() == 1 && !mean) {
      mean = piece.values(0);
    } else if (piece.name() == "test_sq_err" && piece.values_size() == 1) {
      last_sq_err += piece.values(0);
    } else if (piece.name() == "best" && piece.values_size() == 3 && !best) {
      if (piece.values(0) > 0) best = piece.values(1);
    } else if (piece.name() != "W" && piece.name() != "H" && piece.name() != "W_best" &&
               piece.name() != "H_best") {
      return Status::InvalidArgument("mf: unexpected output piece '" + piece.name() + "'");
    }
  }
  if (!mean) return Status::InvalidArgument("mf: no output piece 'mean' (from worker 0)");
  // --test: the best model when it beats the last (see Tracking).
  const bool keep_best = best && KeepsBest(*best, last_sq_err);
  std::vector<proto::ResultFile> files;
  for (const char* name : {"W", "H"}) {
    STRADS_ASSIGN_OR_RETURN(
        Eigen::MatrixXd m, Join(pieces, keep_best ? std::string(name) + "_best" : name, mf.rank()));
    proto::ResultFile& file = files.emplace_back();
    file.set_name(std::string(name) + ".mtx");
    file.set_content(FormatArrayMtx(m));
  }
  std::sort(rows.begin(), rows.end());
  std::sort(cols.begin(), cols.end());
  proto::ResultFile& unseen = files.emplace_back();
  unseen.set_name("unseen.txt");
  unseen.set_content(FormatUnseen(*mean, rows, cols));
  return files;
}

void MfApp::Summarize(const std::map<std::string, double>& metrics,
                      nlohmann::ordered_json& summary) const {
  const double test_rmse = TestRmse(metrics);
  summary["objective"] = Objective(metrics);
  summary["train_rmse"] = TrainRmse(metrics);
  summary["test_rmse"] =
      std::isnan(test_rmse) ? nlohmann::ordered_json() : nlohmann::ordered_json(test_rmse);
  summary["rows"] = static_cast<uint64_t>(Get(metrics, "rows"));
  summary["cols"] = static_cast<uint64_t>(Get(metrics, "cols"));
  summary["empty_rows"] = static_cast<uint64_t>(Get(metrics, "empty_rows"));
  summary["empty_cols"] = static_cast<uint64_t>(Get(metrics, "empty_cols"));
  summary["mean"] = Get(metrics, "mean");
  summary["ratings"] = static_cast<uint64_t>(Get(metrics, "ratings"));
  summary["rank"] = static_cast<uint64_t>(Get(metrics, "rank"));
  summary["algorithm"] = Get(metrics, "sgd") > 0 ? "sgd" : Get(metrics, "als") > 0 ? "als" : "ccd";
  summary["lambda"] = Get(metrics, "lambda");
  summary["regularization"] = Get(metrics, "plain") > 0 ? "plain" : "weighted";
  if (Get(metrics, "implicit") > 0) {
    summary["implicit"] = true;
    summary["alpha"] = Get(metrics, "alpha");
  }
  if (const std::optional<Models> models = ModelsOf(metrics)) {
    // W.mtx and H.mtx are the kept model: test_rmse is its; objective and train_rmse stay the
    // last evaluation's (the trace has the kept iteration's).
    summary["test_rmse"] = RmseOf(models->kept, metrics);
    summary["model_iteration"] = models->kept.iteration;
    summary["model"] = models->kept_earlier ? "best" : "last";
    summary["last_test_rmse"] = test_rmse;
    summary["patience"] = static_cast<uint64_t>(Get(metrics, "patience"));
  }
}

std::string MfApp::ProgressNote(const std::map<std::string, double>& metrics) const {
  const double test_rmse = TestRmse(metrics);
  if (std::isnan(test_rmse)) return "";
  const std::optional<Models> models = ModelsOf(metrics);
  if (!models) return fmt::format("test_rmse {:.6g}", test_rmse);
  if (models->best.iteration == static_cast<uint64_t>(Get(metrics, "iteration"))) {
    return fmt::format("test_rmse {:.6g} (best so far)", test_rmse);
  }
  return fmt::format("test_rmse {:.6g} (best {:.6g} at iteration {}, kept)", test_rmse,
                     RmseOf(models->best, metrics), models->best.iteration);
}

bool MfApp::StopsAfter(const proto::JobSpec& spec, uint64_t iteration,
                       const std::map<std::string, double>& metrics) const {
  Result<Params> p = ParseParams(spec);
  const std::optional<Models> models = ModelsOf(metrics);
  if (!p.ok() || p->patience == 0 || !models) return false;
  return iteration >= models->best.iteration + p->patience;
}

}  // namespace strads::mf
