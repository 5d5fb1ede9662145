// MarginLoss<RowLoss>: the LinearLoss of a binary classifier on the margins m = X w (labels ±1 or
// 0/1; apps/linear/margin_model.h), for a RowLoss policy as margin_model.h describes. The
// coordinator's loss and slope, summary.json's "training_accuracy" and "label_mapping" and the
// engine defaults come from here; a loss gives its name, summary and column model (its coordinate
// steps, through MakeModel).
// Immutable; thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "apps/linear/linear_loss.h"
#include "apps/linear/margin_model.h"
#include "engine/dynamic_spec.h"

namespace strads::margin {

template <class RowLoss>
class MarginLoss : public LinearLoss {
 public:
  LinearModelKind predictor_kind() const override { return LinearModelKind::kClassifier; }

  // A share on the quadratic model costs two multiply-adds per non-zero, no exp: chords of 4096
  // reached 1e-3 and 1e-6 of F* in half the time of 2048 on the L1-LR benchmark, 1 and 2
  // workers, and sooner than 2048 for the L1 SVM on a sparse 20,000 x 20,000 problem
  // (docs/performance.md). Up to 8 passes a share: with the passes after the first going over the
  // parameters that moved, 8 reached 1e-6 sooner than 4 on dense Fashion-MNIST (0.66 s against
  // 1.03) and as soon on the sparse L1-LR problem, where 1e-3 came a little later
  // (docs/performance.md, "Active passes"). 4096 is a cap: on long columns the schedulers size
  // chords to the data (engine/chord_size.h). --exact-shares: the engine's.
  std::optional<AppDefaults> EngineDefaults(const proto::JobSpec& spec) const override {
    if (spec.dynamic().exact_shares()) return std::nullopt;
    return AppDefaults{.chord_size = 4096, .chord_size_adapts = true, .inner_passes = 8};
  }

  double LossSlope(double label, double margin) const override {
    return RowLoss::Slope(label, margin);
  }

  double Loss(std::span<const double> labels, std::span<const double> margins) const override {
    return SumOfLosses<RowLoss>(labels, margins);
  }

  void Summarize(const std::map<std::string, double>& metrics,
                 nlohmann::ordered_json& summary) const override {
    SummarizeBinary(metrics, summary);
  }

 protected:
  // The MarginColumnModel of the owned columns: exact shares by `step`, and unless --exact-shares
  // shares on the loss's quadratic model by `model_step` (QuadraticShare, under `penalty`).
  static Result<std::unique_ptr<ColumnModel>> MakeModel(Dataset columns,
                                                        const LinearPenalty& penalty,
                                                        const proto::JobSpec& spec,
                                                        CoordinateStep step,
                                                        CoordinateStep model_step) {
    std::optional<QuadraticShare> quadratic;
    if (!spec.dynamic().exact_shares()) {
      quadratic =
          QuadraticShare{std::move(model_step), [penalty](double w) { return penalty.Term(w); }};
    }
    return MakeMarginColumnModel<RowLoss>(std::move(columns), std::move(step),
                                          SharePassesOf(spec.dynamic(), spec.workers()),
                                          std::move(quadratic));
  }
};

}  // namespace strads::margin
