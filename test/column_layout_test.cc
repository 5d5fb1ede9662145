// Unit tests of the column layout's pieces, without sockets: the vector change and its wire
// form, column selection, the grouped dependency filter, the Lasso and margin column models against
// sequential coordinate descent.
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <tuple>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "apps/linear.pb.h"
#include "apps/linear/lasso_loss.h"
#include "apps/linear/lasso_update.h"
#include "apps/linear/linear_model_app.h"
#include "apps/linear/logistic_loss.h"
#include "apps/linear/logistic_update.h"
#include "apps/linear/margin_model.h"
#include "common/column_selection.h"
#include "engine/dependency_filter.h"
#include "engine/share_passes.h"
#include "engine/shared_replica.h"
#include "engine/vector_delta.h"
#include "test/app_params_edit.h"

namespace strads {
namespace {

using strads::testing::EditAppParams;

TEST_CASE("DeltaAccumulator writes a sparse change with ascending indices, then is zero",
          "[columns]") {
  DeltaAccumulator acc(10);
  acc.Add(7, 1.5);
  acc.Add(2, -1.0);
  acc.Add(7, 0.5);
  proto::VectorDelta d;
  acc.Take(d);
  CHECK_FALSE(d.dense());
  CHECK(d.size() == 10);
  REQUIRE(d.indices_size() == 2);
  CHECK(d.indices(0) == 2);
  CHECK(d.indices(1) == 7);
  CHECK(d.values(0) == -1.0);
  CHECK(d.values(1) == 2.0);
  acc.Take(d);
  CHECK(d.indices_size() == 0);
  CHECK(d.values_size() == 0);
}

TEST_CASE("DeltaAccumulator goes dense once half the entries are touched, and sums changes",
          "[columns]") {
  DeltaAccumulator acc(4);
  acc.Add(0, 1.0);
  acc.Add(3, 2.0);
  proto::VectorDelta d;
  acc.Take(d);
  REQUIRE(d.dense());
  CHECK(d.values_size() == 4);
  CHECK(d.indices_size() == 0);
  DeltaAccumulator sum(4);
  REQUIRE(sum.Add(d).ok());
  REQUIRE(sum.Add(d).ok());
  proto::VectorDelta total;
  sum.Take(total);
  std::vector<double> dense(4, 0.0);
  ForEachEntry(total, [&](uint64_t i, double v) { dense[i] += v; });
  CHECK(dense == std::vector<double>{2.0, 0.0, 0.0, 4.0});
}

TEST_CASE("DeltaAccumulator sums sparse and dense changes in any order, then is sparse again",
          "[columns]") {
  proto::VectorDelta dense;
  dense.set_size(40);
  dense.set_dense(true);
  for (int i = 0; i < 40; ++i) dense.add_values(0.25 * i);
  DeltaAccumulator acc(40);
  acc.Add(3, 1.0);  // before the dense change
  REQUIRE(acc.Add(dense).ok());
  acc.Add(3, 1.0);  // after it
  acc.Add(39, -2.0);
  REQUIRE(acc.Add(dense).ok());
  proto::VectorDelta total;
  acc.Take(total);
  REQUIRE(total.dense());
  REQUIRE(total.values_size() == 40);
  for (int i = 0; i < 40; ++i) {
    const double expected = 0.5 * i + (i == 3 ? 2.0 : 0.0) + (i == 39 ? -2.0 : 0.0);
    CHECK(total.values(i) == expected);
  }
  // Zero again, every flag cleared (3 was flagged before the dense change): entries are written
  // sparse, each once.
  acc.Add(5, 1.5);
  acc.Add(3, 0.5);
  acc.Add(3, 0.25);
  acc.Take(total);
  CHECK_FALSE(total.dense());
  REQUIRE(total.indices_size() == 2);
  CHECK(total.indices(0) == 3);
  CHECK(total.values(0) == 0.75);
  CHECK(total.indices(1) == 5);
  CHECK(total.values(1) == 1.5);
}

TEST_CASE("CheckDelta refuses changes of another size, out of range or with unpaired values",
          "[columns]") {
  proto::VectorDelta d;
  d.set_size(3);
  d.add_indices(1);
  d.add_values(1.0);
  CHECK(CheckDelta(d, 3).ok());
  CHECK_FALSE(CheckDelta(d, 4).ok());
  d.add_indices(3);
  d.add_values(1.0);
  CHECK_FALSE(CheckDelta(d, 3).ok());
  proto::VectorDelta unpaired;
  unpaired.set_size(3);
  unpaired.add_indices(0);
  CHECK_FALSE(CheckDelta(unpaired, 3).ok());
  proto::VectorDelta short_dense;
  short_dense.set_size(3);
  short_dense.set_dense(true);
  short_dense.add_values(1.0);
  CHECK_FALSE(CheckDelta(short_dense, 3).ok());
  DeltaAccumulator acc(3);
  CHECK_FALSE(acc.Add(short_dense).ok());
}

SparseColMatrix RandomSparse(int64_t rows, int64_t cols, double density, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(rows, cols);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      if (unit(rng) < density) dense(i, j) = normal(rng);
  return dense.sparseView();
}

TEST_CASE("KeepColumns keeps the shape and exactly the columns in the ranges", "[columns]") {
  const SparseColMatrix x = RandomSparse(20, 12, 0.5, 1);
  const std::vector<ColumnRange> ranges{{1, 3}, {8, 20}};
  const SparseColMatrix kept = KeepColumns(x, ranges);
  REQUIRE(kept.rows() == x.rows());
  REQUIRE(kept.cols() == x.cols());
  const std::vector<uint64_t> weights = ColumnWeights(x);
  const std::vector<uint64_t> kept_weights = ColumnWeights(kept);
  for (int64_t j = 0; j < x.cols(); ++j) {
    const bool in = (j >= 1 && j < 3) || j >= 8;
    CAPTURE(j);
    CHECK(kept_weights[j] == (in ? weights[j] : 0));
    if (in) CHECK((Eigen::VectorXd(kept.col(j)) - Eigen::VectorXd(x.col(j))).norm() == 0.0);
  }
}

TEST_CASE("ColumnsFromRows builds the columns Eigen's storage-order conversion builds",
          "[columns]") {
  // Row-major copies of random matrices, with empty rows and columns, one with no entry, and one
  // of 2.9 MB, large enough for its storage to span a whole huge page. The matrix filled was
  // used before: its old entries must not survive.
  SparseColMatrix built = RandomSparse(9, 9, 1.0, 9);
  for (const auto& [rows, cols, density, seed] :
       std::vector<std::tuple<int64_t, int64_t, double, int>>{
           {7, 5, 0.4, 1}, {30, 40, 0.1, 2}, {1, 9, 0.5, 3}, {4, 6, 0.0, 5}, {400, 1000, 0.9, 4}}) {
    CAPTURE(rows, cols, density);
    const SparseColMatrix x = RandomSparse(rows, cols, density, seed);
    const Eigen::SparseMatrix<double, Eigen::RowMajor, int64_t> csr = x;
    const int64_t nnz = csr.nonZeros();
    ColumnsFromRows(rows, cols, std::span<const int64_t>(csr.outerIndexPtr(), rows + 1),
                    std::span<const int64_t>(csr.innerIndexPtr(), nnz),
                    std::span<const double>(csr.valuePtr(), nnz), built);
    REQUIRE(built.isCompressed());
    REQUIRE(built.rows() == rows);
    REQUIRE(built.cols() == cols);
    REQUIRE(built.nonZeros() == nnz);
    CHECK(std::equal(built.outerIndexPtr(), built.outerIndexPtr() + cols + 1, x.outerIndexPtr()));
    CHECK(std::equal(built.innerIndexPtr(), built.innerIndexPtr() + nnz, x.innerIndexPtr()));
    CHECK(std::equal(built.valuePtr(), built.valuePtr() + nnz, x.valuePtr()));
  }
}

TEST_CASE("the grouped dependency filter separates only parameters of different groups",
          "[columns]") {
  // Columns 0..3 are identical (|corr| 1); 0, 1 in group 0, 2, 3 in group 1.
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(5, 4);
  for (int j = 0; j < 4; ++j) dense.col(j) << 1, 2, 0, 1, 3;
  const SparseColMatrix x = dense.sparseView();
  ColumnStore store(x, 0, 4);
  DependencyFilter filter(store);
  const std::vector<uint64_t> all{0, 1, 2, 3};
  CHECK(filter.Filter(all, 0.1, 10).size() == 1);
  filter.SetGroups({0, 0, 1, 1});
  CHECK(filter.Filter(all, 0.1, 10) == std::vector<uint64_t>{0, 1});
  // Running parameters are checked against every candidate, of any group.
  const std::vector<uint64_t> running{0};
  CHECK(filter.Filter(std::vector<uint64_t>{1, 2}, 0.1, 10, running).empty());
}

// A share's passes by hand, under SharePasses' rule written out independently (settle 0.1): the
// first pass over k = 0 .. n-1, each further one over the k the pass before moved, while its
// largest move exceeds 1/10 of the first pass's. step(k) makes parameter k's step and returns
// |change|. Gives the passes made and the visits skipped.
struct PassesByHand {
  uint32_t passes = 0;
  size_t skipped = 0;
};
template <class Step>
// `revisit`: a parameter is visited again only if it moved by more than revisit times pass 1's
// largest move (SharePasses::revisit).
PassesByHand RunPassesByHand(size_t n, uint32_t max_passes, Step step, double revisit = 0.0) {
  PassesByHand made;
  std::vector<bool> moved(n, true);
  std::vector<double> moves(n, 0.0);
  double first = 0.0;
  for (uint32_t p = 0; p < max_passes; ++p) {
    double largest = 0.0;
    const std::vector<bool> visit = moved;
    for (size_t k = 0; k < n; ++k) {
      moves[k] = 0.0;
      if (!visit[k]) {
        ++made.skipped;
        continue;
      }
      moves[k] = step(k);
      largest = std::max(largest, moves[k]);
    }
    ++made.passes;
    if (p == 0) first = largest;
    for (size_t k = 0; k < n; ++k) moved[k] = moves[k] > revisit * first;
    if (largest == 0.0 || (p > 0 && largest <= 0.1 * first)) break;
  }
  return made;
}

Dataset SmallProblem() {
  Dataset d;
  d.x = RandomSparse(40, 15, 0.3, 2);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  d.y = Eigen::VectorXd(40);
  for (int i = 0; i < 40; ++i) d.y[i] = normal(rng);
  d.total_rows = 40;
  return d;
}

// The app's column model of `data` under `spec` (REQUIREd to build).
std::unique_ptr<ColumnModel> ColumnModelOf(const DynamicApp& app, const Dataset& data,
                                           const proto::JobSpec& spec) {
  auto made = app.MakeColumnModel(data, spec);
  REQUIRE(made.ok());
  return std::move(*made);
}

TEST_CASE("LassoColumnModel::Update is sequential coordinate descent and leaves the replica as is",
          "[columns]") {
  const Dataset data = SmallProblem();
  proto::JobSpec spec;
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(0.5); });
  const auto owned = ColumnModelOf(LinearModelApp(std::make_unique<LassoLoss>()), data, spec);
  ColumnModel& model = *owned;
  const double loss_before = model.Loss();

  const std::vector<uint64_t> ids{3, 0, 7, 3};
  const std::vector<double> values{0.0, 0.0, 0.0, 0.0};
  std::vector<double> updated;
  DeltaAccumulator change(model.shared_size());
  model.Update(std::span(ids).first(3), std::span(values).first(3), updated, change);
  CHECK(model.Loss() == loss_before);  // the replica is untouched

  // The same three steps by hand, on a copy of the residual.
  Eigen::VectorXd r = data.y;
  std::vector<double> expect;
  for (uint64_t j : {3u, 0u, 7u}) {
    const Eigen::VectorXd col = data.x.col(j);
    const double beta = lasso::CoordinateUpdate(col.dot(r), col.squaredNorm(), 0.0, 0.5);
    r -= col * beta;
    expect.push_back(beta);
  }
  REQUIRE(updated.size() == 3);
  for (size_t k = 0; k < 3; ++k) CHECK(updated[k] == Approx(expect[k]).epsilon(1e-12));

  proto::VectorDelta d;
  change.Take(d);
  model.ApplyShared(d);
  CHECK(model.Loss() == Approx(0.5 * r.squaredNorm()).epsilon(1e-12));
  CHECK(model.ExactLoss() == Approx(0.5 * r.squaredNorm()).epsilon(1e-12));
  std::vector<double> g(15);
  model.Gradient(0, 15, g);
  for (uint64_t j = 0; j < 15; ++j) {
    CHECK(g[j] == Approx(-Eigen::VectorXd(data.x.col(j)).dot(r)).margin(1e-12));
  }
}

TEST_CASE("RunSharePasses repeats a share while a pass still moves, at most max_passes times",
          "[columns]") {
  SharePasses rule;
  rule.max_passes = 5;
  rule.settle = 0.1;
  // Moves that shrink 4x a pass: passes 1 (1.0), 2 (0.25), 3 (0.0625 <= 0.1: settled).
  int calls = 0;
  double scale = 1.0;
  CHECK(RunSharePasses(2, rule, [&](size_t k, std::span<const size_t>) {
          ++calls;
          const double move = scale;
          if (k == 1) scale /= 4;
          return move;
        }) == 3);
  CHECK(calls == 6);
  // A further pass visits only what the pass before it moved.
  const std::vector<double> moves{1.0, 0.0, 1.0, 0.5, 0.0, 0.05};
  std::vector<size_t> visited;
  std::vector<std::vector<size_t>> aheads;
  CHECK(RunSharePasses(3, rule, [&](size_t k, std::span<const size_t> ahead) {
          visited.push_back(k);
          aheads.emplace_back(ahead.begin(), ahead.end());
          return moves.at(visited.size() - 1);
        }) == 3);
  CHECK(visited == std::vector<size_t>{0, 1, 2, 0, 2, 0});
  // What each pass visits after each step.
  CHECK(aheads == std::vector<std::vector<size_t>>{{1, 2}, {2}, {}, {2}, {}, {}});
  // Nothing moves: one pass.
  CHECK(RunSharePasses(3, rule, [](size_t, std::span<const size_t>) { return 0.0; }) == 1);
  // Never settles: max_passes.
  CHECK(RunSharePasses(3, rule, [](size_t, std::span<const size_t>) { return 1.0; }) == 5);
  // No parameters: no pass; max_passes 0 counts as 1.
  CHECK(RunSharePasses(0, rule, [](size_t, std::span<const size_t>) { return 1.0; }) == 0);
  rule.max_passes = 0;
  CHECK(RunSharePasses(1, rule, [](size_t, std::span<const size_t>) { return 1.0; }) == 1);
}

TEST_CASE("RunSharePasses with a revisit threshold visits again only what moved by more",
          "[columns]") {
  SharePasses rule;
  rule.max_passes = 4;
  rule.settle = 0.001;
  rule.revisit = 0.1;  // of pass 1's largest move, 2.0: revisit what moved by more than 0.2
  // Pass 1 moves 0 by 2.0, 1 by 0.1, 2 by 0.5, 3 by 0.0; pass 2 (0 and 2) moves 0 by 0.5 and 2 by
  // 0.15 (<= 0.2: not again); pass 3 moves 0 by 0.3, pass 4 (the last: max_passes) by 0.01.
  const std::vector<double> moves{2.0, 0.1, 0.5, 0.0, 0.5, 0.15, 0.3, 0.01};
  std::vector<size_t> visited;
  CHECK(RunSharePasses(4, rule, [&](size_t k, std::span<const size_t>) {
          visited.push_back(k);
          return moves.at(visited.size() - 1);
        }) == 4);
  CHECK(visited == std::vector<size_t>{0, 1, 2, 3, 0, 2, 0, 0});
  // A threshold no move passes after pass 1: one pass.
  rule.revisit = 1.0;
  visited.clear();
  CHECK(RunSharePasses(4, rule, [&](size_t k, std::span<const size_t>) {
          visited.push_back(k);
          return moves.at(visited.size() - 1);
        }) == 1);
  CHECK(visited == std::vector<size_t>{0, 1, 2, 3});
}

TEST_CASE("LassoColumnModel with --inner-passes repeats its share as cyclic descent would",
          "[columns]") {
  const Dataset data = SmallProblem();
  const double lambda = 0.5;
  for (uint32_t passes : {1u, 2u, 6u}) {
    CAPTURE(passes);
    proto::JobSpec spec;
    EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(lambda); });
    spec.mutable_dynamic()->set_inner_passes(passes);
    const auto owned = ColumnModelOf(LinearModelApp(std::make_unique<LassoLoss>()), data, spec);
    ColumnModel& model = *owned;
    const double loss_before = model.Loss();

    const std::vector<uint64_t> ids{3, 0, 7, 11, 5, 2, 9, 14, 1, 8};
    const std::vector<double> values(ids.size(), 0.0);
    std::vector<double> updated{42.0};  // appended after what is there
    DeltaAccumulator change(model.shared_size());
    model.Update(ids, values, updated, change);
    CHECK(model.Loss() == loss_before);  // the replica is untouched

    // By hand: cyclic passes under the same rule.
    Eigen::VectorXd r = data.y;
    std::vector<double> beta(ids.size(), 0.0);
    const PassesByHand made = RunPassesByHand(ids.size(), passes, [&](size_t k) {
      const Eigen::VectorXd col = data.x.col(static_cast<int64_t>(ids[k]));
      const double next = lasso::CoordinateUpdate(col.dot(r), col.squaredNorm(), beta[k], lambda);
      r -= col * (next - beta[k]);
      const double move = std::abs(next - beta[k]);
      beta[k] = next;
      return move;
    });
    if (passes == 6) {  // the case exercises repeated passes that skip some parameters
      CHECK(made.passes >= 3);
      CHECK(made.skipped > 0);
    }
    REQUIRE(updated.size() == ids.size() + 1);
    CHECK(updated[0] == 42.0);
    for (size_t k = 0; k < ids.size(); ++k) {
      CHECK(updated[k + 1] == Approx(beta[k]).epsilon(1e-12).margin(1e-14));
    }
    proto::VectorDelta d;
    change.Take(d);
    model.ApplyShared(d);
    CHECK(model.ExactLoss() == Approx(0.5 * r.squaredNorm()).epsilon(1e-12));
  }
}

TEST_CASE(
    "MarginColumnModel::Update is sequential Newton descent on the margins, the replica unchanged",
    "[columns]") {
  Dataset data = SmallProblem();
  for (int i = 0; i < 40; ++i) data.y[i] = data.y[i] > 0 ? 1.0 : -1.0;
  const double lambda = 0.5;
  LinearModelApp app(std::make_unique<LogisticLoss>());  // for the coordinator's replica below
  // The exact path (the app's own model runs its shares on the quadratic model, tested below).
  margin::MarginColumnModel<logistic::LogisticLoss> model(
      data, margin::LabelCounts{}, [lambda](double g, double h, double sq_norm, double w) {
        return logistic::CoordinateUpdate(g, h, sq_norm, w, lambda);
      });
  const double loss_before = model.Loss();

  const std::vector<uint64_t> ids{3, 0, 7};
  const std::vector<double> values{0.0, 0.0, 0.0};
  std::vector<double> updated;
  DeltaAccumulator change(model.shared_size());
  model.Update(ids, values, updated, change);
  CHECK(model.Loss() == loss_before);  // the replica is untouched

  // The same three steps by hand, on a copy of the margins.
  Eigen::VectorXd m = Eigen::VectorXd::Zero(40);
  std::vector<double> expect;
  for (uint64_t j : ids) {
    const Eigen::VectorXd col = data.x.col(j);
    double g = 0.0, h = 0.0;
    for (int i = 0; i < 40; ++i) {
      const auto t = logistic::LogisticLoss::Eval(data.y[i], m[i]);
      g += col[i] * t.d1;
      h += col[i] * col[i] * t.d2;
    }
    const double w = logistic::CoordinateUpdate(g, h, col.squaredNorm(), 0.0, lambda);
    m += col * w;
    expect.push_back(w);
  }
  REQUIRE(updated.size() == 3);
  for (size_t k = 0; k < 3; ++k) CHECK(updated[k] == Approx(expect[k]).epsilon(1e-12));
  CHECK(expect[0] != 0.0);

  proto::VectorDelta d;
  change.Take(d);
  // The coordinator's replica starts from the model's export and applies the same change.
  proto::SharedRows exported;
  model.ExportShared(exported);
  SharedReplica replica;
  REQUIRE(replica.Reset(exported, 40).ok());
  model.ApplyShared(d);
  replica.Apply(d);
  double loss = 0.0;
  for (int i = 0; i < 40; ++i) loss += logistic::LogisticLoss::Eval(data.y[i], m[i]).loss;
  CHECK(model.Loss() == loss_before);  // the loss is refreshed only by ExactLoss (at checks)
  CHECK(model.ExactLoss() == Approx(loss).epsilon(1e-12));
  CHECK(model.Loss() == Approx(loss).epsilon(1e-12));
  CHECK(replica.Loss(app) == Approx(loss).epsilon(1e-12));
}

// A logistic share on the quadratic model, by hand: margins m moved by t delta, values t w, and
// its line search, t = 1, 1/2, ... until F(t) - F(0) <= 0.01 t Delta with
// Delta = d1 . delta + lambda ||w||_1 (the share starts from values 0).
struct ShareByHand {
  const Dataset& data;
  Eigen::VectorXd m, delta;
  std::vector<double> w;
  double lambda;

  double Loss(double t) const {
    double f = 0.0;
    for (int i = 0; i < m.size(); ++i) {
      f += logistic::LogisticLoss::Eval(data.y[i], m[i] + t * delta[i]).loss;
    }
    return f;
  }
  double Penalty(double t) const {
    double f = 0.0;
    for (double v : w) f += lambda * std::abs(t * v);
    return f;
  }
  double Step(const Eigen::VectorXd& d1) const {
    const double decrease = d1.dot(delta) + Penalty(1.0);
    REQUIRE(decrease < 0.0);
    double t = 1.0;
    while (Loss(t) + Penalty(t) - Loss(0.0) > 0.01 * t * decrease) t *= 0.5;
    return t;
  }
};

// The model's passes over `ids` by hand, from the rows' loss slopes `d1` and curvatures `d2` at
// the replica (the model of the loss), three at most, by RunSharePasses' rule (a pass after the
// first visits what the pass before moved by more than margin::kModelRevisit of pass 1's largest
// move): the values `w` they reach, the change of the margins `delta`, and the passes' counts.
struct ModelPassesByHand {
  Eigen::VectorXd delta;
  std::vector<double> w;
  PassesByHand passes;
};
ModelPassesByHand LogisticModelPasses(const Dataset& data, const std::vector<uint64_t>& ids,
                                      const Eigen::VectorXd& d1, const Eigen::VectorXd& d2,
                                      double lambda) {
  ModelPassesByHand out{Eigen::VectorXd::Zero(data.x.rows()), std::vector<double>(ids.size()), {}};
  out.passes = RunPassesByHand(
      ids.size(), 3,
      [&](size_t k) {
        const Eigen::VectorXd col = data.x.col(static_cast<int64_t>(ids[k]));
        const double g = col.dot(d1 + d2.cwiseProduct(out.delta));
        const double h = col.cwiseAbs2().dot(d2);
        const double next = logistic::ModelUpdate(g, h, col.squaredNorm(), out.w[k], lambda);
        out.delta += col * (next - out.w[k]);
        const double move = std::abs(next - out.w[k]);
        out.w[k] = next;
        return move;
      },
      margin::kModelRevisit);
  return out;
}

TEST_CASE(
    "logistic's column share runs on the quadratic model, then backtracks on the true objective",
    "[columns]") {
  Dataset data = SmallProblem();
  for (int i = 0; i < 40; ++i) data.y[i] = data.y[i] > 0 ? 1.0 : -1.0;
  const double lambda = 0.5;
  proto::JobSpec spec;
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(lambda); });
  spec.mutable_dynamic()->set_inner_passes(3);
  const auto owned = ColumnModelOf(LinearModelApp(std::make_unique<LogisticLoss>()), data, spec);
  ColumnModel& model = *owned;
  const double loss_before = model.Loss();

  const std::vector<uint64_t> ids{3, 0, 7, 11, 5, 2};
  const std::vector<double> values(ids.size(), 0.0);
  std::vector<double> updated;
  DeltaAccumulator change(model.shared_size());
  model.Update(ids, values, updated, change);
  CHECK(model.Loss() == loss_before);  // the replica is untouched

  // By hand: at m = 0 every row has d1 = -y/2 and d2 = 1/4; passes on the model, then t = 1,
  // 1/2, ... until F(t) - F(0) <= 0.01 t Delta.
  const Eigen::VectorXd d1 = -0.5 * data.y;
  const auto [delta, w, made] =
      LogisticModelPasses(data, ids, d1, Eigen::VectorXd::Constant(40, 0.25), lambda);
  CHECK(made.skipped > 0);  // the case exercises a pass that skips a parameter
  const ShareByHand first{data, Eigen::VectorXd::Zero(40), delta, w, lambda};
  const double t = first.Step(d1);
  auto loss_at = [&](double u) { return first.Loss(u); };
  auto penalty_at = [&](double u) { return first.Penalty(u); };
  REQUIRE(updated.size() == ids.size());
  size_t nonzero = 0;
  for (size_t k = 0; k < ids.size(); ++k) {
    CHECK(updated[k] == Approx(t * w[k]).epsilon(1e-10).margin(1e-14));
    nonzero += updated[k] != 0.0;
  }
  CHECK(nonzero >= 3);                               // several steps interact through the model
  CHECK(loss_at(t) + penalty_at(t) < loss_at(0.0));  // a true descent step
  std::map<std::string, double> metrics;
  model.Metrics(metrics);
  CHECK(metrics["model_shares"] == 1.0);
  CHECK(metrics["exact_fallbacks"] == 0.0);

  // The change is t * delta: applied, the replica holds the true loss of the new point.
  proto::VectorDelta d;
  change.Take(d);
  model.ApplyShared(d);
  CHECK(model.ExactLoss() == Approx(loss_at(t)).epsilon(1e-10));

  // A second share, from margins moved to -8 y (every row misclassified): the terms differ row
  // by row, and the line search takes the loss's change from them (LogisticLoss::ChangeSum, no
  // exp at the start). There the model's curvature (d2 ~ 3e-4) is far below the true one on the
  // way back towards 0, so the model's step overshoots and the search must backtrack.
  Eigen::VectorXd m = -8.0 * data.y;
  DeltaAccumulator to_m(model.shared_size());
  for (int i = 0; i < 40; ++i) to_m.Add(static_cast<uint64_t>(i), m[i] - t * delta[i]);
  proto::VectorDelta moved_margins;
  to_m.Take(moved_margins);
  model.ApplyShared(moved_margins);
  Eigen::VectorXd d1m(40), d2m(40);
  for (int i = 0; i < 40; ++i) {
    const margin::RowTerms r = logistic::LogisticLoss::Derivatives(data.y[i], m[i]);
    d1m[i] = r.d1;
    d2m[i] = r.d2;
  }
  const std::vector<uint64_t> ids2{1, 4, 6, 8, 9, 10, 12, 14};
  const std::vector<double> values2(ids2.size(), 0.0);  // not in the first share
  const auto [delta2, w2, made2] = LogisticModelPasses(data, ids2, d1m, d2m, lambda);
  const double t2 = ShareByHand{data, m, delta2, w2, lambda}.Step(d1m);
  CHECK(t2 < 1.0);  // the case exercises the backtracking
  std::vector<double> updated2;
  DeltaAccumulator change2(model.shared_size());
  model.Update(ids2, values2, updated2, change2);
  REQUIRE(updated2.size() == ids2.size());
  size_t moved2 = 0;
  for (size_t k = 0; k < ids2.size(); ++k) {
    CHECK(updated2[k] == Approx(t2 * w2[k]).epsilon(1e-10).margin(1e-14));
    moved2 += updated2[k] != 0.0;
  }
  CHECK(moved2 >= 2);
  metrics.clear();
  model.Metrics(metrics);
  CHECK(metrics["model_shares"] == 2.0);
  CHECK(metrics["exact_fallbacks"] == 0.0);
}

}  // namespace
}  // namespace strads
