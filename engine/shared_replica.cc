#include "engine/shared_replica.h"

#include <string>

#include "engine/vector_delta.h"

namespace strads {

Status SharedReplica::Reset(const proto::SharedRows& rows, uint64_t size) {
  if (static_cast<uint64_t>(rows.values_size()) != size ||
      static_cast<uint64_t>(rows.labels_size()) != size) {
    return Status::InvalidArgument("the worker's shared vector has " +
                                   std::to_string(rows.values_size()) + " values and " +
                                   std::to_string(rows.labels_size()) + " labels, expected " +
                                   std::to_string(size) + " of each");
  }
  labels_.assign(rows.labels().begin(), rows.labels().end());
  values_.assign(rows.values().begin(), rows.values().end());
  return Status::Ok();
}

void SharedReplica::Apply(const proto::VectorDelta& change) {
  ForEachEntry(change, [&](uint64_t row, double d) { values_[row] += d; });
}

double SharedReplica::LossSlope(const proto::VectorDelta& change, double alpha,
                                const DynamicApp& app) const {
  double slope = 0.0;
  ForEachEntry(change, [&](uint64_t row, double d) {
    if (d != 0.0) slope += app.LossSlope(labels_[row], values_[row] + alpha * d) * d;
  });
  return slope;
}

double SharedReplica::Loss(const DynamicApp& app) const { return app.Loss(labels_, values_); }

}  // namespace strads
