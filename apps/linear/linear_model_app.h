// LinearModelApp: a linear model on the dynamic engine, F(w) = sum_i l(y_i, x_i^T w) + P(w), with
// the loss l a LinearLoss (apps/linear/linear_loss.h: lasso's squared loss, logistic, svm's
// squared hinge, huber) and the penalty P lambda ||w||_1 or, where the loss accepts it,
// lambda/2 ||w||^2 (apps/linear/linear_penalty.h). No hidden scaling or intercept: the data is
// used as loaded, unless the job asks for an intercept (--intercept, where the loss accepts it:
// CentresShared).
//
// The app does once what every linear model shares: the flags --lambda (required), --penalty
// and, where the loss has them, --loss and --intercept (apps/linear/linear_model_options.h) into
// its LinearModelSpec (proto/apps/linear.proto, packed into JobSpec.params); their validation; the
// optimality violation, penalty and slope at the coordinator and the schedulers; coefficients.tsv;
// `strads predict`. The loss gives the rest: the app's name, the workers' column model (its
// coordinate steps), the coordinator's loss and its slope, the engine defaults and summary.json's
// fields. Immutable once built; thread-safe.
#pragma once

#include <memory>

#include "apps/linear.pb.h"
#include "apps/linear/linear_loss.h"
#include "apps/linear/linear_model_predictor.h"
#include "engine/dynamic_app.h"

namespace strads {

class LinearModelApp final : public DynamicApp {
 public:
  // REQUIRES: loss is not null.
  explicit LinearModelApp(std::unique_ptr<const LinearLoss> loss);

  std::string name() const override { return loss_->name(); }
  std::string summary() const override { return loss_->summary(); }
  boost::program_options::options_description Options() const override;
  Status FromOptions(const boost::program_options::variables_map& options,
                     proto::JobSpec& spec) const override;
  std::vector<std::string> OutputFiles() const override { return {"coefficients.tsv"}; }
  const ModelPredictor* predictor() const override { return &predictor_; }
  Status Validate(const proto::JobSpec& spec) const override;
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const proto::JobSpec& spec) const override;
  bool CentresShared(const proto::JobSpec& spec) const override;
  double Violation(double gradient, double value, const proto::JobSpec& spec) const override;
  double Penalty(double value, const proto::JobSpec& spec) const override;
  CheckSums EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                          const proto::JobSpec& spec) const override;
  double PenaltySlope(double value, double direction, const proto::JobSpec& spec) const override;
  double PenaltySum(std::span<const double> values, const proto::JobSpec& spec) const override;
  double PenaltySlopeAlong(std::span<const double> base, std::span<const double> direction,
                           double alpha, int side, const proto::JobSpec& spec) const override;
  double LossSlope(double label, double shared) const override;
  double Loss(std::span<const double> labels, std::span<const double> shared) const override;
  void Summarize(const std::map<std::string, double>& metrics,
                 nlohmann::ordered_json& summary) const override;

 private:
  std::unique_ptr<const LinearLoss> loss_;
  LinearModelPredictor predictor_;
};

// The app of the loss `Loss` (default-constructed), for AppRegistry::Add.
template <class Loss>
std::unique_ptr<LinearModelApp> LinearModel() {
  return std::make_unique<LinearModelApp>(std::make_unique<Loss>());
}

// The penalty of parameters Validate has accepted (empty --penalty: l1).
LinearPenalty PenaltyOf(const proto::LinearModelSpec& spec);
// The penalty of a spec Validate has accepted; for a spec without a LinearModelSpec, which Validate
// refuses, the default one (lambda 0, l1). Unpacks the parameters: call it once a batch (the
// engine's per-round and per-check methods), not once a parameter.
LinearPenalty PenaltyOf(const proto::JobSpec& spec);

}  // namespace strads
