// LinearLoss: what one linear model on the dynamic engine is besides its penalty — the loss of
// LinearModelApp (apps/linear/linear_model_app.h), which does everything else once (flags, spec,
// validation, penalties, check evaluation, result files, predict).
//
// Adding a loss: a class deriving from LinearLoss (a margin loss of labels ±1 derives from
// margin::MarginLoss, apps/linear/margin_loss.h, and gives only its row loss and coordinate step),
// and one line in apps/builtin_apps.cc: Register(apps, LinearModel<YourLoss>()).
// Implementations are immutable; every method is const and reentrant.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/linear/linear_model_predictor.h"
#include "apps/linear/linear_penalty.h"
#include "common/dataset.h"
#include "common/status.h"
#include "engine/dynamic_app.h"
#include "engine/dynamic_spec.h"
#include "strads.pb.h"

namespace strads {

class LinearLoss {
 public:
  virtual ~LinearLoss() = default;

  // The app's name (`strads run NAME`) and its line for `strads --help`.
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // What `strads predict` makes of the coefficients.
  virtual LinearModelKind predictor_kind() const = 0;

  // Whether --penalty l2 is accepted (l1 always is).
  virtual bool accepts_l2() const { return false; }
  // Whether --intercept is (DynamicApp::CentresShared: the squared loss only).
  virtual bool accepts_intercept() const { return false; }
  // The help of --loss; empty: the app has no --loss flag (its loss is fixed).
  virtual std::string loss_help() const { return ""; }
  // Checks a non-empty LinearModelSpec.loss. Default: refused (no --loss).
  virtual Status CheckLoss(const std::string& loss) const {
    return Status::InvalidArgument(name() + ": the loss is fixed (no --loss), got '" + loss + "'");
  }

  // The engine settings the loss runs best with where the user gave none (SetAppDefaults);
  // none: the engine's. `spec` has its engine parameters set.
  virtual std::optional<AppDefaults> EngineDefaults(const proto::JobSpec& spec) const = 0;

  // DynamicApp::MakeColumnModel, under `penalty` (Validate has accepted the spec).
  virtual Result<std::unique_ptr<ColumnModel>> MakeColumnModel(
      Dataset columns, const LinearPenalty& penalty, const proto::JobSpec& spec) const = 0;
  // DynamicApp::LossSlope, Loss and Summarize.
  virtual double LossSlope(double label, double shared) const = 0;
  virtual double Loss(std::span<const double> labels, std::span<const double> shared) const = 0;
  virtual void Summarize(const std::map<std::string, double>& metrics,
                         nlohmann::ordered_json& summary) const {}
};

}  // namespace strads
