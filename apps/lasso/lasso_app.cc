#include "apps/lasso/lasso_app.h"

#include <cmath>

#include "apps/lasso/lasso_update.h"
#include "apps/linear_model_options.h"

namespace strads {
namespace {

class LassoShard : public ShardModel {
 public:
  explicit LassoShard(Dataset shard) : data_(std::move(shard)), residual_(data_.y) {
    loss_ = 0.5 * residual_.squaredNorm();
  }

  void Push(std::span<const uint64_t> ids, std::vector<double>& out) const override {
    const auto cols = static_cast<uint64_t>(data_.x.cols());
    for (uint64_t j : ids) out.push_back(j < cols ? Dot(j) : 0.0);
  }

  void Apply(std::span<const uint64_t> ids, std::span<const double> deltas) override {
    const auto cols = static_cast<uint64_t>(data_.x.cols());
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= cols || deltas[k] == 0.0) continue;
      const double d = deltas[k];
      for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(ids[k])); it; ++it) {
        double& r = residual_[it.index()];
        const double updated = r - it.value() * d;
        loss_ += 0.5 * (updated * updated - r * r);
        r = updated;
      }
    }
  }

  double Loss() const override { return loss_; }

  double ExactLoss() override {
    loss_ = 0.5 * residual_.squaredNorm();
    return loss_;
  }

  void Gradient(uint64_t first, uint64_t end, std::span<double> out) const override {
    const auto cols = static_cast<uint64_t>(data_.x.cols());
    for (uint64_t j = first; j < end; ++j) out[j - first] = j < cols ? -Dot(j) : 0.0;
  }

 private:
  double Dot(uint64_t j) const {
    double s = 0.0;
    for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
      s += it.value() * residual_[it.index()];
    }
    return s;
  }

  Dataset data_;
  Eigen::VectorXd residual_;
  double loss_ = 0.0;
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

Result<std::unique_ptr<ShardModel>> LassoApp::MakeShard(Dataset shard,
                                                        const proto::JobSpec& spec) const {
  return std::unique_ptr<ShardModel>(std::make_unique<LassoShard>(std::move(shard)));
}

double LassoApp::Pull(std::span<const double> stats, double sq_norm, double value,
                      const proto::JobSpec& spec) const {
  return lasso::CoordinateUpdate(stats[0], sq_norm, value, spec.lasso().lambda());
}

double LassoApp::Violation(double gradient, double value, const proto::JobSpec& spec) const {
  // lasso::Violation takes g = x_j^T r, which is minus the loss gradient.
  return lasso::Violation(-gradient, value, spec.lasso().lambda());
}

double LassoApp::Penalty(double value, const proto::JobSpec& spec) const {
  return spec.lasso().lambda() * std::abs(value);
}

}  // namespace strads
