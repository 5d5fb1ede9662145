// SharedReplica: the coordinator's copy of the dynamic engine's shared vector (Lasso: the
// residual; logistic, SVM: the margins), kept to choose each round's step length
// (engine/step_length.h) and to sum the loss (at checks and between them) without a round trip
// to the workers.
//
// It starts from the replica worker rank 0 exports in its Ready (ColumnModel::ExportShared) and
// then adds every change the coordinator broadcasts, the same numbers in the same order as every
// worker's ColumnModel::ApplyShared, so all replicas stay bit for bit the same. O(rows) memory.
// Thread-compatibility: owned by the coordinator's event loop.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "engine/dynamic_app.h"
#include "strads.pb.h"

namespace strads {

class SharedReplica {
 public:
  // Starts from a worker's export; `centred`: the loss less (sum of the values)^2 / (2 size)
  // (DynamicApp::CentresShared). Errors: InvalidArgument unless it holds `rows` labels and
  // `rows` values.
  [[nodiscard]] Status Reset(const proto::SharedRows& rows, uint64_t size, bool centred = false);

  bool empty() const { return values_.empty(); }
  uint64_t size() const { return values_.size(); }

  // values += change. REQUIRES: CheckDelta(change, size()) is OK.
  void Apply(const proto::VectorDelta& change);

  // d/dalpha of the loss sum_i l(label_i, value_i + alpha change_i) (the loss is differentiable,
  // so both sides agree). REQUIRES: CheckDelta(change, size()) is OK.
  double LossSlope(const proto::VectorDelta& change, double alpha, const DynamicApp& app) const;

  // The loss, app.Loss of the labels and values (less the centring's term). O(rows).
  double Loss(const DynamicApp& app) const;

  // The mean of the values (centred: the intercept). REQUIRES: !empty().
  double Mean() const;

 private:
  // sum^2 / (2 size) when centred (else 0): what the centring takes off the loss.
  double Centring(double sum) const;

  std::vector<double> labels_;
  std::vector<double> values_;
  bool centred_ = false;
  double sum_ = 0;  // of values_, kept when centred
};

}  // namespace strads
