// Lasso as a dynamic-engine app: F(beta) = 1/2 ||y - X beta||^2 + lambda ||beta||_1.
//
// A worker holds the residual r = y - X beta over every row and runs the exact coordinate
// minimiser (lasso_update.h) on the columns it owns. No hidden scaling or intercept: the data is
// used as loaded.
#pragma once

#include "apps/linear/linear_model_predictor.h"
#include "engine/dynamic_app.h"

namespace strads {

class LassoApp : public DynamicApp {
 public:
  std::string name() const override { return "lasso"; }
  std::string summary() const override;
  boost::program_options::options_description Options() const override;
  Status FromOptions(const boost::program_options::variables_map& options,
                     proto::JobSpec& spec) const override;
  std::vector<std::string> OutputFiles() const override;
  const ModelPredictor* predictor() const override { return &predictor_; }
  Status Validate(const proto::JobSpec& spec) const override;
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const proto::JobSpec& spec) const override;
  double Violation(double gradient, double value, const proto::JobSpec& spec) const override;
  double Penalty(double value, const proto::JobSpec& spec) const override;
  CheckSums EvaluateCheck(std::span<double> gradients, std::span<const double> values,
                          const proto::JobSpec& spec) const override;
  double PenaltySlope(double value, double direction, const proto::JobSpec& spec) const override;
  double LossSlope(double label, double shared) const override;
  double Loss(std::span<const double> labels, std::span<const double> shared) const override;

 private:
  LinearModelPredictor predictor_{LinearModelKind::kRegression};
};

}  // namespace strads
