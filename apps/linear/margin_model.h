// Shared machinery of the binary-classification apps (logistic, svm): label handling, the
// worker-side model that keeps the margins m_i = x_i^T w (a replica over every row beside the
// owned columns), and the summary.json fields.
//
// Concept. A margin loss is F(w) = sum_i l(y_i, m_i) + penalty(w) with y_i in {-1, +1}. A Loss
// policy provides `static RowTerms Eval(double y, double m)`: l, dl/dm and d2l/dm2 (a generalised
// second derivative where l is not twice differentiable); `Derivatives(y, m)`, the same without l
// (the column layout's sequential updates need only the derivatives; logistic's l costs a log1p);
// `Slope(y, m)`, dl/dm alone; and optionally a class `ChangeSum`, the sum over rows of the loss's
// change from m0 to m1 given the terms at m0 (the line search of a share on the quadratic model;
// without one, both ends by Eval: ChangeSumOf). MarginRows keeps, per row, the margin
// and those three numbers. MarginColumnModel computes g_j = sum_i x_ij dl_i and
// h_j = sum_i x_ij^2 d2l_i over a full column from its replica and runs the app's CoordinateStep,
// one owned parameter after another.
//
// Labels. +1/-1 are used as they are; 0/1 labels are mapped 0 -> -1. Anything else, or 0 and -1 in
// the same shard (an ambiguous file), is an InvalidArgument naming the file and the 1-based row
// of the whole file. The mapping is reported through Metrics ("label_zeros", "label_minus_ones")
// and appears in summary.json as "label_mapping": "0/1 -> -1/+1" or "±1".
//
// Thread-safety: the free functions are pure; a model is owned by one worker thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/huge_pages.h"
#include "engine/dynamic_app.h"
#include "engine/share_passes.h"

namespace strads::margin {

// Per-row loss and its first two derivatives with respect to the margin m.
struct RowTerms {
  double loss = 0;
  double d1 = 0;
  double d2 = 0;
};

// sum_i l(labels_i, margins_i): by RowLoss::Sum where the loss has one (logistic: an exp a row
// and a log per 512 rows, not a log1p a row), else by the rows' Eval. The coordinator's objective
// (the apps' DynamicApp::Loss, also each check's loss in the column layout) and a column model's
// ExactLoss both sum with it.
// REQUIRES: labels.size() >= margins.size().
template <class RowLoss>
double SumOfLosses(std::span<const double> labels, std::span<const double> margins) {
  if constexpr (requires { typename RowLoss::Sum; }) {
    typename RowLoss::Sum sum;
    for (size_t i = 0; i < margins.size(); ++i) sum.Add(labels[i], margins[i]);
    return sum.Total();
  } else {
    double sum = 0.0;
    for (size_t i = 0; i < margins.size(); ++i) sum += RowLoss::Eval(labels[i], margins[i]).loss;
    return sum;
  }
}

// The change sum_i l(y_i, m1_i) - l(y_i, m0_i) of rows added one at a time, both ends by Eval
// (for a loss as cheap as the squared hinge).
template <class RowLoss>
class EvalChangeSum {
 public:
  void Add(double y, double m0, const RowTerms&, double m1) {
    sum_ += RowLoss::Eval(y, m1).loss - RowLoss::Eval(y, m0).loss;
  }
  double Total() const { return sum_; }

 private:
  double sum_ = 0.0;
};

// RowLoss::ChangeSum where the loss has one (logistic: an exp a row and a log per 512 rows a
// try), else EvalChangeSum.
template <class RowLoss>
struct ChangeSumOf {
  using type = EvalChangeSum<RowLoss>;
};
template <class RowLoss>
requires requires { typename RowLoss::ChangeSum; }
struct ChangeSumOf<RowLoss> {
  using type = typename RowLoss::ChangeSum;
};

struct LabelCounts {
  uint64_t zeros = 0;       // rows labelled 0 (mapped to -1)
  uint64_t minus_ones = 0;  // rows labelled -1
};

// Maps y in place to +/-1 (0 -> -1). `first_row` is the 0-based index in the file of y[0].
// Errors: InvalidArgument "PATH: label V at row N is not binary (use ±1 or 0/1)", or naming two
// rows when both 0 and -1 occur.
inline Result<LabelCounts> ToSignedLabels(Eigen::VectorXd& y, uint64_t first_row,
                                          const std::string& path) {
  LabelCounts counts;
  int64_t first_zero = -1, first_minus = -1;
  for (int64_t i = 0; i < y.size(); ++i) {
    const double v = y[i];
    if (v == 1.0) continue;
    if (v == -1.0) {
      if (first_minus < 0) first_minus = i;
      ++counts.minus_ones;
    } else if (v == 0.0) {
      if (first_zero < 0) first_zero = i;
      ++counts.zeros;
      y[i] = -1.0;
    } else {
      std::ostringstream s;
      s << path << ": label " << v << " at row " << first_row + static_cast<uint64_t>(i) + 1
        << " is not binary (use ±1 or 0/1)";
      return Status::InvalidArgument(s.str());
    }
  }
  if (counts.zeros > 0 && counts.minus_ones > 0) {
    return Status::InvalidArgument(
        path + ": labels 0 (row " + std::to_string(first_row + first_zero + 1) + ") and -1 (row " +
        std::to_string(first_row + first_minus + 1) + ") both occur; use ±1 or 0/1, not a mix");
  }
  return counts;
}

// The margins of every row and each row's terms, and what a model answers from them: the loss,
// the gradient of the held columns and the metrics. `RowLoss` is a Loss policy (above).
template <class RowLoss>
class MarginRows : public ColumnModel {
 public:
  // REQUIRES: data.y holds +/-1 (see ToSignedLabels).
  MarginRows(Dataset data, LabelCounts labels)
      : data_(std::move(data)),
        labels_(labels),
        margin_(Eigen::VectorXd::Zero(data_.x.rows())),
        terms_(static_cast<size_t>(data_.x.rows())) {
    data_.x.makeCompressed();
    EvalAll();
  }

  double Loss() const override { return loss_; }

  void Gradient(uint64_t first, uint64_t end, std::span<double> out) const override {
    for (uint64_t j = first; j < end; ++j) {
      double g = 0.0;
      if (Holds(j)) {
        for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
          g += it.value() * terms_[static_cast<size_t>(it.index())].d1;
        }
      }
      out[j - first] = g;
    }
  }

  void Metrics(std::map<std::string, double>& out) const override {
    double correct = 0.0;
    for (int64_t i = 0; i < margin_.size(); ++i) correct += data_.y[i] * margin_[i] > 0.0;
    out["correct"] = correct;
    out["rows"] = static_cast<double>(margin_.size());
    out["label_zeros"] = static_cast<double>(labels_.zeros);
    out["label_minus_ones"] = static_cast<double>(labels_.minus_ones);
  }

 protected:
  bool Holds(uint64_t j) const { return j < static_cast<uint64_t>(data_.x.cols()); }

  // {g_j, h_j} over the held rows under the current terms (0 for a column not held).
  std::pair<double, double> Stats(uint64_t j) const {
    double g = 0.0, h = 0.0;
    if (!Holds(j)) return {g, h};
    for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
      const RowTerms& t = terms_[static_cast<size_t>(it.index())];
      g += it.value() * t.d1;
      h += it.value() * it.value() * t.d2;
    }
    return {g, h};
  }

  // Re-evaluates row i's terms at its current margin, keeping the loss current.
  void Eval(size_t i) {
    const double old = terms_[i].loss;
    terms_[i] = RowLoss::Eval(data_.y[static_cast<int64_t>(i)], margin_[static_cast<int64_t>(i)]);
    loss_ += terms_[i].loss - old;
  }

  // Re-evaluates row i's derivatives at its current margin; its loss term and the loss are left
  // stale (for changes that are undone).
  void EvalDerivatives(size_t i) {
    const RowTerms t =
        RowLoss::Derivatives(data_.y[static_cast<int64_t>(i)], margin_[static_cast<int64_t>(i)]);
    terms_[i].d1 = t.d1;
    terms_[i].d2 = t.d2;
  }

  // Re-evaluates every row's terms and the loss from the margins (removes the loss's drift).
  double EvalAll() {
    loss_ = 0.0;
    for (int64_t i = 0; i < margin_.size(); ++i) {
      terms_[static_cast<size_t>(i)] = RowLoss::Eval(data_.y[i], margin_[i]);
      loss_ += terms_[static_cast<size_t>(i)].loss;
    }
    return loss_;
  }

  Dataset data_;
  LabelCounts labels_;
  Eigen::VectorXd margin_;  // X w
  std::vector<RowTerms> terms_;
  double loss_ = 0.0;
};

// The app's coordinate update: new w_j from g_j, h_j, ||x_j||^2 and the current w_j.
using CoordinateStep = std::function<double(double g, double h, double sq_norm, double w)>;

// The revisit threshold (SharePasses::revisit) of a share on the loss's quadratic model
// (QuadraticShare: L1-LR, L1 SVM). A pass there costs two multiply-adds a non-zero; the round's
// line search and the next round's model take over what small moves leave, and revisiting every
// mover kept all 8 passes full. 0.01 halved a 2,048-column L1-LR share (1.34 -> 0.68 ms,
// strads-share-bench) and reached 1e-3 sooner as daemons: L1-LR 1 x 2 0.034 -> 0.029 s (32 jobs
// a side), 1 x 1 0.032 -> 0.029 s, Fashion-MNIST L1 SVM 1 x 2 0.088 -> 0.0755 s
// (docs/performance.md). Exact shares (Lasso) keep 0: there it was no faster (1000 x 100,000,
// 1 x 2: 0.029 against 0.027 s to 1e-3).
inline constexpr double kModelRevisit = 0.01;

// A share computed on the loss's quadratic model (proximal Newton, as liblinear's newGLMNET):
// for a loss whose derivatives are costly (logistic: an exp per row), the share's passes run on
//   L(m + delta) ~ L(m) + sum_i d1_i delta_i + 1/2 sum_i d2_i delta_i^2
// with d1, d2 as they are at the round's start, so a step costs two multiply-adds per non-zero
// and no exp; then an Armijo backtracking line search on the true objective along the share's
// direction (t = 1, 1/2, ...; F(t) - F(0) <= 1e-2 t Delta, Delta = sum_i d1_i delta_i + the
// penalty's change, as newGLMNET) makes the share a true descent step. Its passes revisit only
// the parameters that moved by more than kModelRevisit of pass 1's largest move
// (engine/share_passes.h). If no t passes (rounding
// near the optimum), the share is recomputed by exact coordinate descent, which always descends.
struct QuadraticShare {
  CoordinateStep step;                    // minimiser of the model along one coordinate
  std::function<double(double)> penalty;  // the regulariser's term of one parameter
};

// A worker's owned full columns and the margins over every row. A share of a chord is
// exact cyclic coordinate descent on the replica in up to --inner-passes passes (each step from g_j
// and h_j under the margins as moved by the steps before it); an undo log of the rows it touched
// then restores the replica bit for bit and gives the change of the margins.
template <class RowLoss>
class MarginColumnModel : public MarginRows<RowLoss> {
  using Base = MarginRows<RowLoss>;

 public:
  // REQUIRES: data.y holds +/-1 (see ToSignedLabels).
  MarginColumnModel(Dataset columns, LabelCounts labels, CoordinateStep step,
                    SharePasses passes = {}, std::optional<QuadraticShare> quadratic = {})
      : Base(std::move(columns), labels),
        step_(std::move(step)),
        passes_(passes),
        quadratic_(std::move(quadratic)),
        sq_norm_(static_cast<size_t>(this->data_.x.cols())),
        saved_(static_cast<size_t>(this->data_.x.rows()), 0) {
    for (int64_t j = 0; j < this->data_.x.cols(); ++j) {
      sq_norm_[static_cast<size_t>(j)] = this->data_.x.col(j).squaredNorm();
    }
  }

  void Update(std::span<const uint64_t> ids, std::span<const double> values,
              std::vector<double>& updated, DeltaAccumulator& change) override {
    if (quadratic_ && UpdateOnModel(ids, values, updated, change)) {
      ++model_shares_;
      return;
    }
    if (quadratic_) ++exact_fallbacks_;
    const double loss_before = this->loss_;
    const size_t first = updated.size();
    updated.insert(updated.end(), values.begin(), values.end());
    std::span<double> w(updated.data() + first, values.size());
    RunSharePasses(ids.size(), passes_, [&](size_t k, std::span<const size_t> ahead) {
      const uint64_t j = ids[k];
      if (!this->Holds(j)) return 0.0;
      PrefetchAhead(this->data_.x, ids, ahead, sq_norm_.data());
      const auto [g, h] = this->Stats(j);
      const double next = step_(g, h, sq_norm_[j], w[k]);
      const double d = next - w[k];
      w[k] = next;
      if (d == 0.0) return 0.0;
      for (SparseColMatrix::InnerIterator it(this->data_.x, static_cast<int64_t>(j)); it; ++it) {
        const auto i = static_cast<size_t>(it.index());
        if (!saved_[i]) {
          saved_[i] = 1;
          undo_.push_back({i, this->margin_[it.index()], this->terms_[i]});
        }
        this->margin_[it.index()] += it.value() * d;
        this->EvalDerivatives(i);  // undone below: the loss is not needed
      }
      return std::abs(d);
    });
    for (const Saved& s : undo_) {
      const auto row = static_cast<int64_t>(s.row);
      change.Add(s.row, this->margin_[row] - s.margin);
      this->margin_[row] = s.margin;
      this->terms_[s.row] = s.terms;
      saved_[s.row] = 0;
    }
    undo_.clear();
    this->loss_ = loss_before;
  }

  void Shift(std::span<const uint64_t> ids, std::span<const double> deltas,
             DeltaAccumulator& change) const override {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (!this->Holds(ids[k]) || deltas[k] == 0.0) continue;
      for (SparseColMatrix::InnerIterator it(this->data_.x, static_cast<int64_t>(ids[k])); it;
           ++it) {
        change.Add(static_cast<uint64_t>(it.index()), it.value() * deltas[k]);
      }
    }
  }

  // Only the derivatives follow the margins: the loss (a log1p a row for logistic) is brought
  // up to date only by ExactLoss; the engine's coordinator computes it from its own replica
  // (DynamicApp::Loss), at checks and between them.
  void ApplyShared(const proto::VectorDelta& change) override {
    ForEachEntry(change, [&](uint64_t row, double d) {
      this->margin_[static_cast<int64_t>(row)] += d;
      this->EvalDerivatives(static_cast<size_t>(row));
    });
  }

  // The loss of the replica's margins (the sum of every worker's changes, not X w over this
  // worker's columns). Their derivatives follow them already (ApplyShared; Update restores its
  // own), so this only sums the loss: where RowLoss has a Sum (logistic: an exp a row and a log
  // per 512 rows, not a log1p a row) by it, else by Eval (SumOfLosses).
  double ExactLoss() override {
    const auto& y = this->data_.y;
    const auto& m = this->margin_;
    this->loss_ = SumOfLosses<RowLoss>(std::span(y.data(), static_cast<size_t>(y.size())),
                                       std::span(m.data(), static_cast<size_t>(m.size())));
    return this->loss_;
  }

  void Metrics(std::map<std::string, double>& out) const override {
    Base::Metrics(out);
    if (quadratic_) {
      out["model_shares"] = static_cast<double>(model_shares_);
      out["exact_fallbacks"] = static_cast<double>(exact_fallbacks_);
    }
  }

  uint64_t shared_size() const override { return static_cast<uint64_t>(this->margin_.size()); }

  double SquaredNorm(uint64_t j) const override { return this->Holds(j) ? sq_norm_[j] : 0.0; }

  // The margins and the +/-1 labels (RowLoss::Eval(label, margin).d1 is the app's LossSlope).
  void ExportShared(proto::SharedRows& out) const override {
    const auto& y = this->data_.y;
    out.mutable_labels()->Assign(y.data(), y.data() + y.size());
    out.mutable_values()->Assign(this->margin_.data(), this->margin_.data() + this->margin_.size());
  }

 private:
  struct Saved {
    size_t row;
    double margin;  // before this share
    RowTerms terms;
  };

  // The share on the quadratic model (see QuadraticShare). Appends to `updated` and adds to
  // `change` only when the line search accepts a step; false leaves both and the replica as
  // they were.
  bool UpdateOnModel(std::span<const uint64_t> ids, std::span<const double> values,
                     std::vector<double>& updated, DeltaAccumulator& change) {
    if (delta_.empty()) delta_.assign(static_cast<size_t>(this->margin_.size()), 0.0);
    const auto& x = this->data_.x;
    w_.assign(values.begin(), values.end());
    // A column's curvature h = sum x^2 d2 depends on the round's frozen terms only: the first
    // pass over a parameter sums it, later passes reuse it (the same sum, bit for bit).
    h_.assign(ids.size(), std::numeric_limits<double>::quiet_NaN());
    RunSharePasses(ids.size(), ModelPasses(passes_), [&](size_t k, std::span<const size_t> ahead) {
      const uint64_t j = ids[k];
      if (!this->Holds(j)) return 0.0;
      PrefetchAhead(this->data_.x, ids, ahead, sq_norm_.data());
      const bool sum_h = std::isnan(h_[k]);
      const auto [g, h] = sum_h ? ModelSums<true>(j) : std::pair{ModelSums<false>(j).first, h_[k]};
      h_[k] = h;
      const double next = quadratic_->step(g, h, sq_norm_[j], w_[k]);
      const double d = next - w_[k];
      w_[k] = next;
      if (d == 0.0) return 0.0;
      if (!sum_h) {
        // A revisit: RunSharePasses revisits only a parameter that moved, so it moved at its
        // first visit too (sum_h), which recorded its rows in rows_ (the check per non-zero cost
        // 13 % of a 2,048-column share of 20,000 x 20,000 L1-LR, all passes full). A loop of its
        // own: one loop with the check under `sum_h` was not unswitched (0.67 -> 0.71 ms).
        for (SparseColMatrix::InnerIterator it(x, static_cast<int64_t>(j)); it; ++it) {
          delta_[static_cast<size_t>(it.index())] += it.value() * d;
        }
        return std::abs(d);
      }
      for (SparseColMatrix::InnerIterator it(x, static_cast<int64_t>(j)); it; ++it) {
        const auto i = static_cast<size_t>(it.index());
        if (!saved_[i]) {
          saved_[i] = 1;
          rows_.push_back(i);
        }
        delta_[i] += it.value() * d;
      }
      return std::abs(d);
    });
    if (rows_.empty() && std::equal(w_.begin(), w_.end(), values.begin())) {
      updated.insert(updated.end(), values.begin(), values.end());  // nothing moved
      return true;
    }
    // Armijo along the share's direction, on the true objective of the touched rows. Their loss
    // enters as its change, row by row (RowLoss::ChangeSum: for logistic an exp a row and a log
    // per 512 rows a try; the loss before and at each try cost an exp and a log1p a row each).
    double slope = 0.0, penalty0 = 0.0, penalty1 = 0.0;
    for (size_t i : rows_) slope += this->terms_[i].d1 * delta_[i];
    for (size_t k = 0; k < ids.size(); ++k) {
      penalty0 += quadratic_->penalty(values[k]);
      penalty1 += quadratic_->penalty(w_[k]);
    }
    const double decrease = slope + penalty1 - penalty0;
    // The share's value of parameter k at step t along its direction.
    auto at = [&](double t, size_t k) {
      return t == 1.0 ? w_[k] : values[k] + t * (w_[k] - values[k]);
    };
    constexpr double kSigma = 1e-2;
    constexpr int kHalvings = 20;
    double t = 1.0;
    bool accepted = false;
    for (int tries = 0; decrease < 0.0 && tries <= kHalvings && !accepted; ++tries) {
      typename ChangeSumOf<RowLoss>::type loss_change;
      for (size_t i : rows_) {
        const auto row = static_cast<int64_t>(i);
        const double m = this->margin_[row];
        loss_change.Add(this->data_.y[row], m, this->terms_[i], m + t * delta_[i]);
      }
      double f = loss_change.Total() - penalty0;
      for (size_t k = 0; k < ids.size(); ++k) {
        f += quadratic_->penalty(at(t, k));
      }
      accepted = f <= kSigma * t * decrease;
      if (!accepted) t *= 0.5;
    }
    for (size_t i : rows_) {
      if (accepted) change.Add(i, t * delta_[i]);
      delta_[i] = 0.0;
      saved_[i] = 0;
    }
    rows_.clear();
    if (!accepted) return false;
    for (size_t k = 0; k < ids.size(); ++k) {
      updated.push_back(at(t, k));
    }
    return true;
  }

  // Column j's sums on the model: g = sum x_ij (d1_i + d2_i delta_i) and, if SumH,
  // h = sum x_ij^2 d2_i (else 0). Four partial sums each, so consecutive non-zeros do not wait
  // on one another's add (with one running sum each waited out the latency of the one before:
  // a 200-column share of Fashion-MNIST took 5,190 us, 4,717 us now, strads-share-bench;
  // docs/performance.md). REQUIRES: the columns compressed (the constructor does it).
  template <bool SumH>
  std::pair<double, double> ModelSums(uint64_t j) const {
    const auto& x = this->data_.x;
    const auto begin = static_cast<size_t>(x.outerIndexPtr()[j]);
    const auto end = static_cast<size_t>(x.outerIndexPtr()[j + 1]);
    const auto* rows = x.innerIndexPtr();
    const double* values = x.valuePtr();
    const RowTerms* terms = this->terms_.data();
    const double* delta = delta_.data();
    double g[4] = {0, 0, 0, 0}, h[4] = {0, 0, 0, 0};
    auto add = [&](size_t lane, size_t n) {
      const auto i = static_cast<size_t>(rows[n]);
      const double v = values[n];
      g[lane] += v * (terms[i].d1 + terms[i].d2 * delta[i]);
      if constexpr (SumH) h[lane] += v * v * terms[i].d2;
    };
    size_t n = begin;
    for (; n + 4 <= end; n += 4) {
      add(0, n);
      add(1, n + 1);
      add(2, n + 2);
      add(3, n + 3);
    }
    for (size_t lane = 0; n < end; ++n, ++lane) add(lane, n);
    return {(g[0] + g[1]) + (g[2] + g[3]), (h[0] + h[1]) + (h[2] + h[3])};
  }

  // The passes of a share on the model: those of the job, revisiting only larger moves.
  static SharePasses ModelPasses(SharePasses passes) {
    passes.revisit = kModelRevisit;
    return passes;
  }

  CoordinateStep step_;
  SharePasses passes_;  // exact shares (and the fallback of a model share); see ModelPasses
  std::optional<QuadraticShare> quadratic_;
  std::vector<double> delta_;  // by row: the model share's change of the margins (0 between)
  std::vector<size_t> rows_;   // the rows delta_ holds, each once (flagged in saved_)
  std::vector<double> w_;      // the model share's values
  std::vector<double> h_;      // by share position: its column's curvature, NaN until summed
  uint64_t model_shares_ = 0;
  uint64_t exact_fallbacks_ = 0;
  HugePageVector<double> sq_norm_;  // by column
  std::vector<char> saved_;         // by row: in undo_
  std::vector<Saved> undo_;
};

// Converts the labels of every row and builds the MarginColumnModel of the owned columns.
template <class Loss>
Result<std::unique_ptr<ColumnModel>> MakeMarginColumnModel(
    Dataset columns, CoordinateStep step, SharePasses passes,
    std::optional<QuadraticShare> quadratic = {}) {
  auto labels = ToSignedLabels(columns.y, columns.first_row, columns.path);
  if (!labels.ok()) return labels.status();
  return std::unique_ptr<ColumnModel>(std::make_unique<MarginColumnModel<Loss>>(
      std::move(columns), *labels, std::move(step), passes, std::move(quadratic)));
}

// "training_accuracy" and "label_mapping" from the Metrics of MarginRows.
inline void SummarizeBinary(const std::map<std::string, double>& metrics,
                            nlohmann::ordered_json& summary) {
  auto get = [&](const char* key) {
    auto it = metrics.find(key);
    return it == metrics.end() ? 0.0 : it->second;
  };
  if (get("rows") > 0) summary["training_accuracy"] = get("correct") / get("rows");
  if (metrics.count("model_shares")) {  // with QuadraticShare
    summary["model_shares"] = get("model_shares");
    summary["exact_fallbacks"] = get("exact_fallbacks");
  }
  // One replica (rank 0's, every row) reports the labels, and ToSignedLabels refuses a mix of 0
  // and -1: the mapping is one or the other.
  summary["label_mapping"] = get("label_zeros") > 0 ? "0/1 -> -1/+1" : "±1";
}

}  // namespace strads::margin
