// Changes of the dynamic engine's shared vector (Lasso: the residual; logistic, SVM: the margins).
//
// Every worker holds a replica of one vector over all rows. A worker's share of a chord changes it
// on some rows; the coordinator sums the workers' changes and every worker adds the sum to its
// replica. DeltaAccumulator collects such a change (or a sum of them) and writes it as a
// proto::VectorDelta, sparse or dense, whichever is smaller; ForEachEntry reads one back.
// Thread-compatibility: a DeltaAccumulator is used by one thread.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

class DeltaAccumulator {
 public:
  explicit DeltaAccumulator(uint64_t size);

  uint64_t size() const { return sum_.size(); }

  // sum[index] += value. REQUIRES: index < size().
  void Add(uint64_t index, double value) {
    if (!all_touched_ && !touched_flag_[index]) {
      touched_flag_[index] = 1;
      touched_.push_back(index);
    }
    sum_[index] += value;
  }

  // Adds every entry of `delta`. Errors: InvalidArgument (nothing added) if `delta` is malformed
  // or of another size (see CheckDelta).
  [[nodiscard]] Status Add(const proto::VectorDelta& delta);

  // Writes the sum to `out`: sparse with ascending indices when that is smaller (fewer than half
  // the entries touched), else dense. Then the accumulator is zero again.
  void Take(proto::VectorDelta& out);

 private:
  std::vector<double> sum_;
  std::vector<uint64_t> touched_;
  std::vector<char> touched_flag_;
  // A dense change was added: every entry is touched (and taken dense), and touched_ holds only
  // the entries added before it.
  bool all_touched_ = false;
};

// OK iff `delta` has size `size`, and is dense with `size` values and no indices, or sparse with
// one value per index and every index < size.
[[nodiscard]] Status CheckDelta(const proto::VectorDelta& delta, uint64_t size);

// Calls f(index, value) for every stored entry. REQUIRES: CheckDelta(delta, delta.size()) is OK.
template <typename F>
void ForEachEntry(const proto::VectorDelta& delta, F&& f) {
  if (delta.dense()) {
    for (int i = 0; i < delta.values_size(); ++i) f(static_cast<uint64_t>(i), delta.values(i));
  } else {
    for (int k = 0; k < delta.indices_size(); ++k) f(delta.indices(k), delta.values(k));
  }
}

}  // namespace strads
