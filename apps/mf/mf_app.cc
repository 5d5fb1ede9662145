// The mf app on the static engine.
//
// Objective and initialisation are those of the sequential references (apps/mf/mf_reference.h):
//   F(W, H) = sum_Omega (a_ij - w_i^T h_j)^2 + lambda (||W||_F^2 + ||H||_F^2).
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
// residual of the block, R^ = R + w_t h_t^T; it sums r^_ij h_jt and h_jt^2 per row and sets w_it
// at EndPass), then an H pass (blocks carry sums num_j, den_j that start at 0 and lambda; every
// worker adds r^_ij w_it and w_it^2 over its rows; the home sets h_jt = num_j / den_j at
// ReturnBlock); after the last alternation an R pass carries the final h_t, R = R^ - w_t h_t^T.
// That is k (2T + 1) passes, plus the evaluation pass. Every sum is over the same terms as in
// SolveCcdReference, in its order for one worker (rows by ascending column within a block, blocks
// in order; columns by ascending row), so P = 1 reproduces it bit for bit and any P up to
// summation order.
//
// Evaluation: blocks carry whole H rows; each worker sums (a_ij - w_i^T h_j)^2 over its training
// ratings and over its rows' test ratings (--test), plus lambda ||W_shard||^2; the homes add
// lambda ||H_blocks||^2 and their column count. The home of scheduler 0 also reports the rank,
// lambda and algorithm (metrics "rank", "lambda", "sgd"), which Summarize needs and has no other
// way to learn.
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

#include "apps/mf/array_mtx.h"
#include "apps/mf/mf_reference.h"
#include "apps/mf/ratings.h"
#include "apps/mf/split_mix.h"
#include "engine/app_params.h"
#include "engine/rotation_plan.h"

namespace strads::mf {
namespace {

enum class Algorithm { kCcd, kSgd };

// The job's parameters, checked.
struct Params {
  Algorithm algorithm = Algorithm::kCcd;
  uint32_t rank = 0;
  double lambda = 0;
  uint32_t inner = 1;  // CCD++ inner alternations T
  double learning_rate = 0;
  double decay = 0;
  uint64_t seed = 0;
  Balance balance = Balance::kWork;
  std::string test_path;  // empty: none
};

Result<Params> ParseParams(const proto::JobSpec& spec) {
  Result<proto::MfSpec> params = AppParams<proto::MfSpec>(spec);
  if (!params.ok()) return Status::InvalidArgument("mf: " + params.status().message());
  const proto::MfSpec& mf = *params;
  Params p;
  if (mf.algorithm() == "sgd") {
    p.algorithm = Algorithm::kSgd;
  } else if (mf.algorithm() != "ccd" && !mf.algorithm().empty()) {
    return Status::InvalidArgument("mf: unknown --algorithm '" + mf.algorithm() + "' (ccd or sgd)");
  }
  if (mf.rank() == 0) return Status::InvalidArgument("mf: --rank must be >= 1");
  p.rank = mf.rank();
  if (!(mf.lambda() >= 0.0) || !std::isfinite(mf.lambda())) {
    return Status::InvalidArgument(
        fmt::format("mf: --lambda must be finite and >= 0, got {}", mf.lambda()));
  }
  p.lambda = mf.lambda();
  p.inner = std::max<uint32_t>(1, mf.inner_iterations());
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
  Result<Balance> balance = ParseBalance(
      spec.static_engine().balance().empty() ? "work" : spec.static_engine().balance());
  if (!balance.ok()) return Status::InvalidArgument("mf: --balance: " + balance.status().message());
  p.balance = *balance;
  if (spec.data_path().empty()) return Status::InvalidArgument("mf: --data FILE is required");
  return p;
}

uint32_t Passes(const Params& p) {
  return p.algorithm == Algorithm::kSgd ? 2 : p.rank * (2 * p.inner + 1) + 1;
}

enum class PassKind { kW, kH, kR, kEpoch, kEval };

struct PassInfo {
  PassKind kind = PassKind::kEval;
  uint32_t t = 0;  // CCD++: the rank-one subproblem
  uint32_t s = 0;  // CCD++: the inner alternation
};

// What pass `pass` of an iteration is. REQUIRES: pass < Passes(p).
PassInfo Describe(const Params& p, uint32_t pass) {
  if (pass + 1 == Passes(p)) return {PassKind::kEval};
  if (p.algorithm == Algorithm::kSgd) return {PassKind::kEpoch};
  const uint32_t per_rank = 2 * p.inner + 1;
  const uint32_t t = pass / per_rank, q = pass % per_rank;
  if (q == 2 * p.inner) return {PassKind::kR, t, p.inner - 1};
  return {q % 2 == 0 ? PassKind::kW : PassKind::kH, t, q / 2};
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
  const uint64_t expected = columns * Width(p, Describe(p, step.pass).kind);
  if (block.doubles.size() != expected) {
    return BadBlock(block, step,
                    fmt::format("carries {} numbers, expected {} ({} columns)",
                                block.doubles.size(), expected, columns));
  }
  return Status::Ok();
}

Result<Ratings> LoadTrain(const proto::JobSpec& spec) {
  STRADS_ASSIGN_OR_RETURN(Ratings train, LoadRatings(spec.data_path()));
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
      : p_(p), layout_(std::move(layout)), rank_(rank), k_(p.rank), passes_(Passes(p)) {
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
    if (p.algorithm == Algorithm::kCcd) {
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
      residual_ = value_;  // W = 0
      num_.assign(rows_, 0.0);
      den_.assign(rows_, p.lambda);
    }
    if (test != nullptr) {
      has_test_ = true;
      test_.resize(blocks);
      for (uint64_t e = test->row_start[row0_]; e < test->row_start[row0_ + rows_]; ++e) {
        test_[block_of[test->col[e]]].push_back(
            {static_cast<uint32_t>(test->row[e] - row0_), test->col[e], test->value[e]});
        ++test_ratings_;
      }
    }
    const double scale = 1.0 / std::sqrt(static_cast<double>(k_));
    w_.assign(rows_ * k_, 0.0);
    if (p.algorithm == Algorithm::kSgd) {
      for (uint64_t i = 0; i < rows_; ++i) {
        for (uint32_t t = 0; t < k_; ++t) {
          W(i, t) = scale * InitialUniform(p.seed, Factor::kW, row0_ + i, t);
        }
      }
      row_reg_.resize(rows_);
      for (uint64_t i = 0; i < rows_; ++i) {
        const uint64_t n = train.row_start[row0_ + i + 1] - train.row_start[row0_ + i];
        row_reg_[i] = p.lambda / static_cast<double>(n);
      }
      col_reg_.resize(cols_);
      for (uint64_t j = 0; j < cols_; ++j) {
        const uint64_t n = train.col_start[j + 1] - train.col_start[j];
        col_reg_[j] = p.lambda / static_cast<double>(n);
      }
    }
  }

  uint64_t rows() const override { return rows_; }
  uint64_t items() const override { return cols_; }
  uint64_t work() const override { return value_.size(); }
  std::vector<double> InitialAggregates() const override { return {}; }

  Result<uint64_t> Process(const StaticStep& step, std::span<const double>, StaticBlock& block,
                           std::span<double>) override {
    STRADS_RETURN_IF_ERROR(CheckBlock(block, step, p_, layout_, passes_));
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
        const uint64_t columns = block.doubles.size() / 2;
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
      case PassKind::kEval:
        Evaluate(step, block);
        return entries.size();
    }
    return Status::Internal("mf: unknown pass kind");
  }

  void EndPass(const StaticStep& step) override {
    const PassInfo pass = Describe(p_, step.pass);
    if (pass.kind != PassKind::kW) return;
    double* w = Column(pass.t);
    for (uint64_t i = 0; i < rows_; ++i) {
      w[i] = den_[i] > 0.0 ? num_[i] / den_[i] : 0.0;
      num_[i] = 0.0;
      den_[i] = p_.lambda;
    }
  }

  void Metrics(std::map<std::string, double>& out) const override {
    double norm = 0.0;
    for (double v : w_) norm += v * v;
    out["sq_err"] += sq_err_;
    out["ratings"] += static_cast<double>(value_.size());
    out["rows"] += static_cast<double>(rows_);
    out["w_penalty"] += p_.lambda * norm;
    if (has_test_) {
      out["test_sq_err"] += test_sq_err_;
      out["test_ratings"] += static_cast<double>(test_ratings_);
    }
  }

  void SaveState(std::vector<proto::OutputPiece>& out) const override { Output(out); }

  // W's rows of the shard; CCD++ also rebuilds the residual A - W H^T from every column of H.
  Status RestoreState(const StatePieces& pieces) override {
    STRADS_RETURN_IF_ERROR(
        TakeRows(pieces, "W", row0_, rows_, k_,
                 [&](uint64_t i, uint32_t t, double v) { W(i - row0_, t) = v; }));
    if (p_.algorithm != Algorithm::kCcd) return Status::Ok();
    std::vector<double> h(cols_ * k_);
    STRADS_RETURN_IF_ERROR(TakeRows(pieces, "H", 0, cols_, k_,
                                    [&](uint64_t j, uint32_t t, double v) { h[j * k_ + t] = v; }));
    for (size_t e = 0; e < value_.size(); ++e) {
      residual_[e] = value_[e] - Predict(row_[e], h.data() + uint64_t{col_[e]} * k_);
    }
    return Status::Ok();
  }

  void Output(std::vector<proto::OutputPiece>& out) const override {
    if (rows_ == 0) return;
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name("W");
    piece.set_first(row0_);
    piece.set_width(k_);
    piece.mutable_values()->Reserve(static_cast<int>(w_.size()));
    for (uint64_t i = 0; i < rows_; ++i) {
      for (uint32_t t = 0; t < k_; ++t) piece.add_values(W(i, t));
    }
  }

 private:
  struct TestRating {
    uint32_t row;  // in the shard
    uint32_t col;
    double value;
  };

  // W is column-major (w_t contiguous) for CCD++, row-major (w_i contiguous) for SGD.
  double& W(uint64_t i, uint32_t t) {
    return p_.algorithm == Algorithm::kSgd ? w_[i * k_ + t] : w_[t * rows_ + i];
  }
  double W(uint64_t i, uint32_t t) const {
    return p_.algorithm == Algorithm::kSgd ? w_[i * k_ + t] : w_[t * rows_ + i];
  }
  // CCD++: w_t, rows_ values.
  double* Column(uint32_t t) { return w_.data() + uint64_t{t} * rows_; }

  // One SGD sweep over the shard's ratings of `block` (whole H rows).
  Result<uint64_t> Epoch(const StaticStep& step, StaticBlock& block) {
    const uint64_t c0 = layout_.col_bounds[block.id];
    order_ = by_row_[block.id];
    SplitMix64 rng(Mix(
        Mix(Mix(Mix(Mix(p_.seed) ^ 0x5347440000000000ULL) ^ step.iteration) ^ rank_) ^ block.id));
    for (uint64_t n = order_.size(); n > 1; --n) std::swap(order_[n - 1], order_[rng.Below(n)]);
    // Epoch t = iteration - 1 of the reference.
    const double eta =
        p_.learning_rate / (1.0 + p_.decay * static_cast<double>(step.iteration - 1));
    double check = 0.0;
    for (uint64_t e : order_) {
      double* wi = &w_[uint64_t{row_[e]} * k_];
      double* hj = block.doubles.data() + (col_[e] - c0) * k_;
      double pred = 0.0;
      for (uint32_t t = 0; t < k_; ++t) pred += wi[t] * hj[t];
      const double err = value_[e] - pred;
      const double ri = row_reg_[row_[e]], cj = col_reg_[col_[e]];
      for (uint32_t t = 0; t < k_; ++t) {
        const double wt = wi[t], ht = hj[t];
        wi[t] = wt + eta * (err * ht - ri * wt);
        hj[t] = ht + eta * (err * wt - cj * ht);
      }
      check += err;
    }
    if (!std::isfinite(check)) {
      return Status::FailedPrecondition(
          fmt::format("mf sgd: diverged in epoch {} (a prediction is not finite); lower "
                      "--learning-rate",
                      step.iteration));
    }
    return order_.size();
  }

  double Predict(uint32_t i, const double* hj) const {
    double pred = 0.0;
    for (uint32_t t = 0; t < k_; ++t) pred += W(i, t) * hj[t];
    return pred;
  }

  void Evaluate(const StaticStep& step, const StaticBlock& block) {
    if (step.iteration != evaluated_) {  // the first block of this evaluation pass
      evaluated_ = step.iteration;
      sq_err_ = test_sq_err_ = 0.0;
    }
    const uint64_t c0 = layout_.col_bounds[block.id];
    const double* h = block.doubles.data();
    for (uint64_t e : by_row_[block.id]) {
      const double d = value_[e] - Predict(row_[e], h + (col_[e] - c0) * k_);
      sq_err_ += d * d;
    }
    if (!has_test_) return;
    for (const TestRating& r : test_[block.id]) {
      const double d = r.value - Predict(r.row, h + (r.col - c0) * k_);
      test_sq_err_ += d * d;
    }
  }

  const Params p_;
  const Layout layout_;
  const uint32_t rank_;
  const uint32_t k_;
  const uint32_t passes_;
  uint64_t row0_ = 0, rows_ = 0, cols_ = 0;
  uint64_t e0_ = 0;  // the shard's first entry in the training matrix

  // The shard's training ratings, in (row, col) order; rows relative to row0_.
  std::vector<uint32_t> row_, col_;
  std::vector<double> value_;
  std::vector<std::vector<uint64_t>> by_row_;  // per block: entries in (row, col) order
  std::vector<std::vector<uint64_t>> by_col_;  // per block: entries in (col, row) order (CCD++)

  std::vector<double> w_;  // rows_ x k_, see W()

  // CCD++: the residual R (R^ within a rank-one subproblem), and a W pass's sums per row.
  std::vector<double> residual_, num_, den_;
  // SGD: lambda / |Omega_i|, lambda / |Omega^j| (global counts), and the visiting order buffer.
  std::vector<double> row_reg_, col_reg_;
  std::vector<uint64_t> order_;

  bool has_test_ = false;
  uint64_t test_ratings_ = 0;
  std::vector<std::vector<TestRating>> test_;  // per block

  uint64_t evaluated_ = std::numeric_limits<uint64_t>::max();
  double sq_err_ = 0.0, test_sq_err_ = 0.0;
};

// ------------------------------------------------------------------------------------------------
// Scheduler side.

class MfHome final : public StaticHome {
 public:
  MfHome(const Params& p, Layout layout, uint32_t rank, uint32_t schedulers)
      : p_(p),
        layout_(std::move(layout)),
        rank_(rank),
        schedulers_(schedulers),
        k_(p.rank),
        passes_(Passes(p)) {
    const uint32_t blocks = static_cast<uint32_t>(layout_.col_bounds.size() - 1);
    const double scale = 1.0 / std::sqrt(static_cast<double>(k_));
    for (uint32_t b = rank; b < blocks; b += schedulers) {
      const uint64_t c0 = layout_.col_bounds[b], c1 = layout_.col_bounds[b + 1];
      std::vector<double>& h = h_[b];
      h.resize((c1 - c0) * k_);
      for (uint64_t j = c0; j < c1; ++j) {
        for (uint32_t t = 0; t < k_; ++t) {
          h[(j - c0) * k_ + t] = scale * InitialUniform(p.seed, Factor::kH, j, t);
        }
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
    StaticBlock out;
    out.id = block;
    switch (pass.kind) {
      case PassKind::kW:
      case PassKind::kR:
        out.doubles.resize(columns);
        for (uint64_t j = 0; j < columns; ++j) out.doubles[j] = h[j * k_ + pass.t];
        break;
      case PassKind::kH:
        // num_j = 0, den_j = lambda: the reference's starting values.
        out.doubles.assign(2 * columns, 0.0);
        std::fill(out.doubles.begin() + static_cast<int64_t>(columns), out.doubles.end(),
                  p_.lambda);
        break;
      case PassKind::kEpoch:
      case PassKind::kEval:
        out.doubles = h;
        break;
    }
    return out;
  }

  Status ReturnBlock(StaticBlock block, const StaticStep& step) override {
    STRADS_RETURN_IF_ERROR(CheckBlock(block, step, p_, layout_, passes_));
    auto it = h_.find(block.id);
    if (it == h_.end()) return BadBlock(block, step, fmt::format("not homed at {}", rank_));
    std::vector<double>& h = it->second;
    const PassInfo pass = Describe(p_, step.pass);
    if (pass.kind == PassKind::kH) {
      const uint64_t columns = h.size() / k_;
      for (uint64_t j = 0; j < columns; ++j) {
        const double num = block.doubles[j], den = block.doubles[columns + j];
        h[j * k_ + pass.t] = den > 0.0 ? num / den : 0.0;
      }
    } else if (pass.kind == PassKind::kEpoch) {
      h = std::move(block.doubles);
    }
    return Status::Ok();
  }

  void Metrics(std::map<std::string, double>& out) const override {
    double norm = 0.0;
    for (const auto& [b, h] : h_) {
      for (double v : h) norm += v * v;
    }
    out["h_penalty"] += p_.lambda * norm;
    out["cols"] += static_cast<double>(columns_);
    if (rank_ == 0) {
      out["rank"] += k_;
      out["lambda"] += p_.lambda;
      out["sgd"] += p_.algorithm == Algorithm::kSgd ? 1.0 : 0.0;
    }
  }

  void SaveState(std::vector<proto::OutputPiece>& out) const override { Output(out); }

  Status RestoreState(const StatePieces& pieces) override {
    for (auto& [b, h] : h_) {
      const uint64_t c0 = layout_.col_bounds[b], c1 = layout_.col_bounds[b + 1];
      STRADS_RETURN_IF_ERROR(
          TakeRows(pieces, "H", c0, c1 - c0, k_,
                   [&](uint64_t j, uint32_t t, double v) { h[(j - c0) * k_ + t] = v; }));
    }
    return Status::Ok();
  }

  void Output(std::vector<proto::OutputPiece>& out) const override {
    for (const auto& [b, h] : h_) {
      if (h.empty()) continue;
      proto::OutputPiece& piece = out.emplace_back();
      piece.set_name("H");
      piece.set_first(layout_.col_bounds[b]);
      piece.set_width(k_);
      piece.mutable_values()->Add(h.begin(), h.end());
    }
  }

 private:
  const Params p_;
  const Layout layout_;
  const uint32_t rank_;
  const uint32_t schedulers_;
  const uint32_t k_;
  const uint32_t passes_;
  uint64_t columns_ = 0;
  std::map<uint32_t, std::vector<double>> h_;  // owned block -> its H rows, row-major
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

double TrainRmse(const std::map<std::string, double>& m) {
  const double n = Get(m, "ratings");
  return n > 0 ? std::sqrt(Get(m, "sq_err") / n) : std::numeric_limits<double>::quiet_NaN();
}

// NaN when there was no --test (or it had no ratings).
double TestRmse(const std::map<std::string, double>& m) {
  const double n = Get(m, "test_ratings");
  return n > 0 ? std::sqrt(Get(m, "test_sq_err") / n) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::string MfApp::summary() const { return "matrix factorisation, CCD++ or stratified SGD"; }

boost::program_options::options_description MfApp::Options() const {
  namespace po = boost::program_options;
  po::options_description d("mf");
  d.add_options()("algorithm", po::value<std::string>()->default_value("ccd"),
                  "ccd (CCD++) | sgd (stratified SGD)")(
      "test", po::value<std::string>()->default_value(""),
      "held-out ratings (MatrixMarket coordinate) for test_rmse")(
      "rank", po::value<uint32_t>()->default_value(10), "k: rank of the factors")(
      "lambda", po::value<double>()->default_value(0.1, "0.1"), "regularisation lambda >= 0")(
      "learning-rate", po::value<double>()->default_value(0.01, "0.01"),
      "sgd: eta_0; epoch t uses eta_0 / (1 + decay * t)")(
      "decay", po::value<double>()->default_value(0.1, "0.1"), "sgd: learning-rate decay >= 0")(
      "inner-iterations", po::value<uint32_t>()->default_value(1),
      "ccd: inner alternations per rank-one subproblem");
  return d;
}

Status MfApp::FromOptions(const boost::program_options::variables_map& vm,
                          proto::JobSpec& spec) const {
  proto::MfSpec mf;
  mf.set_algorithm(vm["algorithm"].as<std::string>());
  mf.set_test_path(AbsolutePath(vm["test"].as<std::string>()));
  mf.set_rank(vm["rank"].as<uint32_t>());
  mf.set_lambda(vm["lambda"].as<double>());
  mf.set_learning_rate(vm["learning-rate"].as<double>());
  mf.set_decay(vm["decay"].as<double>());
  mf.set_inner_iterations(vm["inner-iterations"].as<uint32_t>());
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

std::vector<std::string> MfApp::OutputFiles() const { return {"W.mtx", "H.mtx"}; }

Status MfApp::Validate(const proto::JobSpec& spec) const { return ParseParams(spec).status(); }

uint32_t MfApp::NumAggregates(const proto::JobSpec&) const { return 0; }

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
        std::make_unique<MfHome>(p, std::move(layout), rank, schedulers));
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
  for (const auto& piece : pieces) {
    if (piece.name() != "W" && piece.name() != "H") {
      return Status::InvalidArgument("mf: unexpected output piece '" + piece.name() + "'");
    }
  }
  std::vector<proto::ResultFile> files;
  for (const char* name : {"W", "H"}) {
    STRADS_ASSIGN_OR_RETURN(Eigen::MatrixXd m, Join(pieces, name, mf.rank()));
    proto::ResultFile& file = files.emplace_back();
    file.set_name(std::string(name) + ".mtx");
    file.set_content(FormatArrayMtx(m));
  }
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
  summary["ratings"] = static_cast<uint64_t>(Get(metrics, "ratings"));
  summary["rank"] = static_cast<uint64_t>(Get(metrics, "rank"));
  summary["algorithm"] = Get(metrics, "sgd") > 0 ? "sgd" : "ccd";
  summary["lambda"] = Get(metrics, "lambda");
}

}  // namespace strads::mf
