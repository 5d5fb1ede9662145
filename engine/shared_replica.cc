#include "engine/shared_replica.h"

#include <string>

#include "engine/vector_delta.h"

namespace strads {

Status SharedReplica::Reset(const proto::SharedRows& rows, uint64_t size, bool centred) {
  if (static_cast<uint64_t>(rows.values_size()) != size ||
      static_cast<uint64_t>(rows.labels_size()) != size) {
    return Status::InvalidArgument("the worker's shared vector has " +
                                   std::to_string(rows.values_size()) + " values and " +
                                   std::to_string(rows.labels_size()) + " labels, expected " +
                                   std::to_string(size) + " of each");
  }
  labels_.assign(rows.labels().begin(), rows.labels().end());
  values_.assign(rows.values().begin(), rows.values().end());
  centred_ = centred;
  sum_ = 0;
  for (double v : values_) sum_ += v;
  return Status::Ok();
}

void SharedReplica::Apply(const proto::VectorDelta& change) {
  ForEachEntry(change, [&](uint64_t row, double d) {
    values_[row] += d;
    sum_ += d;
  });
}

double SharedReplica::Centring(double sum) const {
  return centred_ && !values_.empty() ? 0.5 * sum * sum / static_cast<double>(values_.size()) : 0;
}

double SharedReplica::LossSlope(const proto::VectorDelta& change, double alpha,
                                const DynamicApp& app) const {
  double slope = 0.0, change_sum = 0.0;
  ForEachEntry(change, [&](uint64_t row, double d) {
    if (d != 0.0) slope += app.LossSlope(labels_[row], values_[row] + alpha * d) * d;
    change_sum += d;
  });
  if (centred_) slope -= (sum_ + alpha * change_sum) * change_sum / double(values_.size());
  return slope;
}

double SharedReplica::Mean() const {
  double sum = 0;  // afresh: sum_ is kept only when centred, and drifts
  for (double v : values_) sum += v;
  return sum / static_cast<double>(values_.size());
}

double SharedReplica::Loss(const DynamicApp& app) const {
  if (!centred_) return app.Loss(labels_, values_);
  double sum = 0;  // afresh, without the drift of sum_
  for (double v : values_) sum += v;
  return app.Loss(labels_, values_) - Centring(sum);
}

}  // namespace strads
