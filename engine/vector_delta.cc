#include "engine/vector_delta.h"

#include <algorithm>
#include <string>

namespace strads {

DeltaAccumulator::DeltaAccumulator(uint64_t size) : sum_(size, 0.0), touched_flag_(size, 0) {}

Status DeltaAccumulator::Add(const proto::VectorDelta& delta) {
  STRADS_RETURN_IF_ERROR(CheckDelta(delta, size()));
  if (delta.dense()) {
    // Every entry: no flags to set (the coordinator sums the workers' dense changes each round).
    all_touched_ = true;
    const double* values = delta.values().data();
    for (size_t i = 0; i < sum_.size(); ++i) sum_[i] += values[i];
    return Status::Ok();
  }
  ForEachEntry(delta, [&](uint64_t i, double v) { Add(i, v); });
  return Status::Ok();
}

void DeltaAccumulator::Take(proto::VectorDelta& out) {
  out.Clear();
  out.set_size(size());
  // A sparse entry costs an index and a value, a dense one a value.
  if (all_touched_ || 2 * touched_.size() >= sum_.size()) {
    out.set_dense(true);
    out.mutable_values()->Assign(sum_.begin(), sum_.end());
    std::fill(sum_.begin(), sum_.end(), 0.0);
  } else {
    if (16 * touched_.size() >= sum_.size()) {
      // Many entries: one pass over the flags puts them in order for less than a sort.
      touched_.clear();
      for (uint64_t i = 0; i < touched_flag_.size(); ++i) {
        if (touched_flag_[i]) touched_.push_back(i);
      }
    } else {
      std::sort(touched_.begin(), touched_.end());
    }
    out.mutable_indices()->Reserve(static_cast<int>(touched_.size()));
    out.mutable_values()->Reserve(static_cast<int>(touched_.size()));
    for (uint64_t i : touched_) {
      out.add_indices(i);
      out.add_values(sum_[i]);
      sum_[i] = 0.0;
    }
  }
  for (uint64_t i : touched_) touched_flag_[i] = 0;
  touched_.clear();
  all_touched_ = false;
}

Status CheckDelta(const proto::VectorDelta& delta, uint64_t size) {
  if (delta.size() != size) {
    return Status::InvalidArgument("a change of a vector of " + std::to_string(delta.size()) +
                                   " entries, expected " + std::to_string(size));
  }
  if (delta.dense()) {
    if (delta.indices_size() != 0 || static_cast<uint64_t>(delta.values_size()) != size) {
      return Status::InvalidArgument("a malformed dense vector change");
    }
    return Status::Ok();
  }
  if (delta.indices_size() != delta.values_size()) {
    return Status::InvalidArgument("a malformed sparse vector change");
  }
  for (uint64_t i : delta.indices()) {
    if (i >= size) {
      return Status::InvalidArgument("a vector change at index " + std::to_string(i) +
                                     " of a vector of " + std::to_string(size));
    }
  }
  return Status::Ok();
}

}  // namespace strads
