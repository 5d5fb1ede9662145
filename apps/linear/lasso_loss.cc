#include "apps/linear/lasso_loss.h"

#include <algorithm>
#include <cmath>

#include "apps/linear.pb.h"
#include "apps/linear/lasso_update.h"
#include "common/huge_pages.h"
#include "engine/app_params.h"
#include "engine/dynamic_spec.h"
#include "engine/share_passes.h"

namespace strads {
namespace {

// The residual r = y - X beta over the rows of `data`, its loss 1/2 ||r||^2 and the gradient.
//
// Centred (--intercept): the loss is that of the residual centred, min over b of
// 1/2 ||r - b 1||^2 = 1/2 ||r||^2 - (sum_i r_i)^2 / (2 n), which is the loss of X and y with
// their column means subtracted: the intercept b = mean(r) is fitted exactly at every point and
// never penalised, yet X stays as loaded (sparse stays sparse), and so does every change of r.
// Column j then enters as x_j - m_j 1 (m_j its mean): its gradient is -(x_j^T r - m_j sum(r))
// and its curvature ||x_j||^2 - n m_j^2.
class LassoResidualModel : public ColumnModel {
 public:
  LassoResidualModel(Dataset data, bool centred)
      : data_(std::move(data)), residual_(data_.y), centred_(centred) {
    if (centred_) {
      col_sum_.resize(static_cast<size_t>(data_.x.cols()));
      for (int64_t j = 0; j < data_.x.cols(); ++j) col_sum_[j] = data_.x.col(j).sum();
    }
    ExactLoss();
  }

  double Loss() const override { return loss_ - Centring(sum_); }

  double ExactLoss() override {
    loss_ = 0.5 * residual_.squaredNorm();
    sum_ = residual_.sum();
    return Loss();
  }

  void Gradient(uint64_t first, uint64_t end, std::span<double> out) const override {
    for (uint64_t j = first; j < end; ++j) out[j - first] = Holds(j) ? -Dot(j, sum_) : 0.0;
  }

 protected:
  bool Holds(uint64_t j) const { return j < static_cast<uint64_t>(data_.x.cols()); }

  // x_j^T r, centred: (x_j - m_j 1)^T r, where sum(r) = `sum`.
  double Dot(uint64_t j, double sum) const {
    double s = 0.0;
    for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
      s += it.value() * residual_[it.index()];
    }
    return centred_ ? s - col_sum_[j] * sum / static_cast<double>(residual_.size()) : s;
  }

  // ||x_j||^2, centred ||x_j - m_j 1||^2 (0 for a constant column, not a rounding residue).
  double CurvatureOf(int64_t j) const {
    const double sq = data_.x.col(j).squaredNorm();
    if (!centred_) return sq;
    const double centred = sq - col_sum_[j] * col_sum_[j] / static_cast<double>(data_.x.rows());
    return centred > 1e-12 * sq ? centred : 0.0;
  }

  // (sum r)^2 / (2 n) when centred: what the intercept takes off the loss.
  double Centring(double sum) const {
    return centred_ ? 0.5 * sum * sum / static_cast<double>(residual_.size()) : 0.0;
  }

  // r[row] = value, keeping the loss current.
  void SetResidual(int64_t row, double value) {
    double& r = residual_[row];
    loss_ += 0.5 * (value * value - r * r);
    sum_ += value - r;
    r = value;
  }

  Dataset data_;
  Eigen::VectorXd residual_;
  const bool centred_;
  std::vector<double> col_sum_;  // centred: each column's sum (n m_j)
  double loss_ = 0.0;            // 1/2 ||r||^2
  double sum_ = 0.0;             // sum_i r_i
};

// A worker's full owned columns and the residual over every row. A share of a chord is exact
// cyclic coordinate descent on the replica, in up to --inner-passes passes; an undo log of the rows
// it touched then restores the replica bit for bit and gives the change.
class LassoColumnModel : public LassoResidualModel {
 public:
  LassoColumnModel(Dataset columns, double lambda, bool positive, SharePasses passes, bool centred)
      : LassoResidualModel(std::move(columns), centred),
        lambda_(lambda),
        positive_(positive),
        passes_(passes),
        sq_norm_(static_cast<size_t>(data_.x.cols())),
        saved_(static_cast<size_t>(data_.x.rows()), 0) {
    for (int64_t j = 0; j < data_.x.cols(); ++j) sq_norm_[j] = CurvatureOf(j);
  }

  void Update(std::span<const uint64_t> ids, std::span<const double> values,
              std::vector<double>& updated, DeltaAccumulator& change) override {
    const size_t first = updated.size();
    updated.insert(updated.end(), values.begin(), values.end());
    std::span<double> beta(updated.data() + first, values.size());
    recorded_.assign(ids.size(), 0);  // by share position: its rows are in undo_
    double sum = sum_;                // sum(r) as the share moves r (centred only)
    RunSharePasses(ids.size(), passes_, [&](size_t k, std::span<const size_t> ahead) {
      const uint64_t j = ids[k];
      if (!Holds(j)) return 0.0;
      PrefetchAhead(data_.x, ids, ahead, sq_norm_.data());
      double next = lasso::CoordinateUpdate(Dot(j, sum), sq_norm_[j], beta[k], lambda_);
      if (positive_) next = std::max(0.0, next);  // the constrained minimiser (LinearPenalty)
      const double d = next - beta[k];
      beta[k] = next;
      if (d == 0.0) return 0.0;
      if (centred_) sum -= d * col_sum_[j];
      // Moved before in this share: no check per non-zero, in a loop of its own (one loop with the
      // check under a flag was not unswitched: shares of 1,024 of 1000 x 100,000 86 -> 104 us).
      if (recorded_[k]) {
        for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
          residual_[it.index()] -= it.value() * d;
        }
        return std::abs(d);
      }
      recorded_[k] = 1;
      for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
        const int64_t row = it.index();
        if (!saved_[row]) {
          saved_[row] = 1;
          undo_.emplace_back(row, residual_[row]);
        }
        residual_[row] -= it.value() * d;
      }
      return std::abs(d);
    });
    for (const auto& [row, old] : undo_) {
      change.Add(static_cast<uint64_t>(row), residual_[row] - old);
      residual_[row] = old;
      saved_[row] = 0;
    }
    undo_.clear();
  }

  void Shift(std::span<const uint64_t> ids, std::span<const double> deltas,
             DeltaAccumulator& change) const override {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (!Holds(ids[k]) || deltas[k] == 0.0) continue;
      for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(ids[k])); it; ++it) {
        change.Add(static_cast<uint64_t>(it.index()), -it.value() * deltas[k]);
      }
    }
  }

  void ApplyShared(const proto::VectorDelta& change) override {
    ForEachEntry(change, [&](uint64_t row, double d) {
      const auto r = static_cast<int64_t>(row);
      SetResidual(r, residual_[r] + d);
    });
  }

  uint64_t shared_size() const override { return static_cast<uint64_t>(residual_.size()); }

  double SquaredNorm(uint64_t j) const override { return Holds(j) ? sq_norm_[j] : 0.0; }

  // The residual; the labels are y (LassoLoss::LossSlope does not need them).
  void ExportShared(proto::SharedRows& out) const override {
    out.mutable_labels()->Assign(data_.y.data(), data_.y.data() + data_.y.size());
    out.mutable_values()->Assign(residual_.data(), residual_.data() + residual_.size());
  }

 private:
  double lambda_;
  bool positive_;
  SharePasses passes_;
  HugePageVector<double> sq_norm_;                // by column
  std::vector<char> saved_;                       // by row: in undo_
  std::vector<std::pair<int64_t, double>> undo_;  // (row, residual before this share)
  std::vector<char> recorded_;  // by share position: moved in this share, its rows in undo_
};

}  // namespace

// Chords requested a round ahead: with shares of several passes, depth 2 reached 1e-3 and 1e-6
// of F* 10-25 % sooner than depth 1, embedded and as daemons, 1 and 2 workers (logistic's
// 1e-6 came later; docs/performance.md).
std::optional<AppDefaults> LassoLoss::EngineDefaults(const proto::JobSpec&) const {
  return AppDefaults{.pipeline_depth = 2};
}

Result<std::unique_ptr<ColumnModel>> LassoLoss::MakeColumnModel(Dataset columns,
                                                                const LinearPenalty& penalty,
                                                                const proto::JobSpec& spec) const {
  Result<proto::LinearModelSpec> linear = AppParams<proto::LinearModelSpec>(spec);
  const bool centred = linear.ok() && linear->intercept();
  return std::unique_ptr<ColumnModel>(
      std::make_unique<LassoColumnModel>(std::move(columns), penalty.lambda, penalty.positive,
                                         SharePassesOf(spec.dynamic(), spec.workers()), centred));
}

// The loss term of a row is r^2 / 2 in its residual r.
double LassoLoss::LossSlope(double, double residual) const { return residual; }

double LassoLoss::Loss(std::span<const double>, std::span<const double> residual) const {
  double loss = 0.0;
  for (double r : residual) loss += 0.5 * r * r;
  return loss;
}

}  // namespace strads
