#include "apps/linear/lasso_app.h"

#include <cmath>

#include "apps/linear/l1_check.h"
#include "apps/linear/lasso_update.h"
#include "apps/linear/linear_model_options.h"
#include "common/huge_pages.h"
#include "engine/dynamic_spec.h"
#include "engine/share_passes.h"

namespace strads {
namespace {

// The residual r = y - X beta over the rows of `data`, its loss 1/2 ||r||^2 and the gradient.
class LassoResidualModel : public ColumnModel {
 public:
  explicit LassoResidualModel(Dataset data) : data_(std::move(data)), residual_(data_.y) {
    loss_ = 0.5 * residual_.squaredNorm();
  }

  double Loss() const override { return loss_; }

  double ExactLoss() override {
    loss_ = 0.5 * residual_.squaredNorm();
    return loss_;
  }

  void Gradient(uint64_t first, uint64_t end, std::span<double> out) const override {
    for (uint64_t j = first; j < end; ++j) out[j - first] = Holds(j) ? -Dot(j) : 0.0;
  }

 protected:
  bool Holds(uint64_t j) const { return j < static_cast<uint64_t>(data_.x.cols()); }

  // x_j^T r.
  double Dot(uint64_t j) const {
    double s = 0.0;
    for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
      s += it.value() * residual_[it.index()];
    }
    return s;
  }

  // r[row] = value, keeping the loss current.
  void SetResidual(int64_t row, double value) {
    double& r = residual_[row];
    loss_ += 0.5 * (value * value - r * r);
    r = value;
  }

  Dataset data_;
  Eigen::VectorXd residual_;
  double loss_ = 0.0;
};

// A worker's full owned columns and the residual over every row. A share of a chord is exact
// cyclic coordinate descent on the replica, in up to --inner-passes passes; an undo log of the rows
// it touched then restores the replica bit for bit and gives the change.
class LassoColumnModel : public LassoResidualModel {
 public:
  LassoColumnModel(Dataset columns, double lambda, SharePasses passes)
      : LassoResidualModel(std::move(columns)),
        lambda_(lambda),
        passes_(passes),
        sq_norm_(static_cast<size_t>(data_.x.cols())),
        saved_(static_cast<size_t>(data_.x.rows()), 0) {
    for (int64_t j = 0; j < data_.x.cols(); ++j) sq_norm_[j] = data_.x.col(j).squaredNorm();
  }

  void Update(std::span<const uint64_t> ids, std::span<const double> values,
              std::vector<double>& updated, DeltaAccumulator& change) override {
    const size_t first = updated.size();
    updated.insert(updated.end(), values.begin(), values.end());
    std::span<double> beta(updated.data() + first, values.size());
    recorded_.assign(ids.size(), 0);  // by share position: its rows are in undo_
    RunSharePasses(ids.size(), passes_, [&](size_t k, std::span<const size_t> ahead) {
      const uint64_t j = ids[k];
      if (!Holds(j)) return 0.0;
      PrefetchAhead(data_.x, ids, ahead, sq_norm_.data());
      const double next = lasso::CoordinateUpdate(Dot(j), sq_norm_[j], beta[k], lambda_);
      const double d = next - beta[k];
      beta[k] = next;
      if (d == 0.0) return 0.0;
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

  // The residual; the labels are y (LassoApp::LossSlope does not need them).
  void ExportShared(proto::SharedRows& out) const override {
    out.mutable_labels()->Assign(data_.y.data(), data_.y.data() + data_.y.size());
    out.mutable_values()->Assign(residual_.data(), residual_.data() + residual_.size());
  }

 private:
  double lambda_;
  SharePasses passes_;
  HugePageVector<double> sq_norm_;                // by column
  std::vector<char> saved_;                       // by row: in undo_
  std::vector<std::pair<int64_t, double>> undo_;  // (row, residual before this share)
  std::vector<char> recorded_;  // by share position: moved in this share, its rows in undo_
};

}  // namespace

std::string LassoApp::summary() const { return "least squares + lambda ||beta||_1 (Lasso)"; }

boost::program_options::options_description LassoApp::Options() const {
  return LinearModelOptions("lasso", "l1 only");
}

Status LassoApp::FromOptions(const boost::program_options::variables_map& options,
                             proto::JobSpec& spec) const {
  auto flags = LinearModelFromOptions(options);
  if (!flags.ok()) return flags.status();
  spec.mutable_lasso()->set_lambda(flags->lambda);
  spec.mutable_lasso()->set_penalty(flags->penalty);
  // Chords requested a round ahead: with shares of several passes, depth 2 reached 1e-3 and 1e-6
  // of F* 10-25 % sooner than depth 1, embedded and as daemons, 1 and 2 workers (logistic's
  // 1e-6 came later; docs/performance.md).
  SetAppDefaults(options, {.pipeline_depth = 2}, spec);
  return Status::Ok();
}

std::vector<std::string> LassoApp::OutputFiles() const { return {"coefficients.tsv"}; }

Status LassoApp::Validate(const proto::JobSpec& spec) const {
  if (!spec.has_lasso()) return Status::InvalidArgument("lasso: the spec has no lasso parameters");
  if (!(spec.lasso().lambda() >= 0.0) || !std::isfinite(spec.lasso().lambda())) {
    return Status::InvalidArgument("lasso: --lambda must be a finite number >= 0, got " +
                                   std::to_string(spec.lasso().lambda()));
  }
  if (!spec.lasso().penalty().empty() && spec.lasso().penalty() != "l1") {
    return Status::InvalidArgument("lasso: only --penalty l1 is supported, got '" +
                                   spec.lasso().penalty() + "'");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ColumnModel>> LassoApp::MakeColumnModel(Dataset columns,
                                                               const proto::JobSpec& spec) const {
  return std::unique_ptr<ColumnModel>(std::make_unique<LassoColumnModel>(
      std::move(columns), spec.lasso().lambda(), SharePassesOf(spec.dynamic(), spec.workers())));
}

double LassoApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  // lasso::Violation takes g = x_j^T r, which is minus the loss gradient.
  return lasso::Violation(-gradient, value, spec.lasso().lambda());
}

double LassoApp::Penalty(double value, const proto::JobSpec& spec) const {
  return spec.lasso().lambda() * std::abs(value);
}

CheckSums LassoApp::EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                                  const proto::JobSpec& spec) const {
  return EvaluateL1Check(gradients, values, spec.lasso().lambda());
}

double LassoApp::PenaltySlope(double value, double direction, const proto::JobSpec& spec) const {
  return lasso::L1Slope(value, direction, spec.lasso().lambda());
}

// The loss term of a row is r^2 / 2 in its residual r.
double LassoApp::LossSlope(double, double residual) const { return residual; }

double LassoApp::Loss(std::span<const double>, std::span<const double> residual) const {
  double loss = 0.0;
  for (double r : residual) loss += 0.5 * r * r;
  return loss;
}

}  // namespace strads
