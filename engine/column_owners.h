// ColumnOwners: which worker owns each parameter in the dynamic engine (owner-computes).
//
// Scheduler s owns the s-th of S contiguous ranges of the parameters, balanced by the columns'
// non-zeros (PartitionByWeight). Within each range every one of the P workers owns a share, so a
// chord from any scheduler gives every worker work. A range's shares are either P contiguous
// blocks (NestedPartitionByWeight, the default) or, where the range was grouped
// (engine/feature_grouping.h), any set of ids per worker, correlated features together. Every
// member derives the blocks from the column counts; a range's grouping is found by its scheduler
// alone, and reaches the workers through the coordinator (Ready.owners, Begin.owners).
//
// Thread-compatibility: immutable after the Group calls; const methods are thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/column_selection.h"
#include "common/status.h"

namespace strads {

class ColumnOwners {
 public:
  ColumnOwners() = default;
  // Contiguous blocks: NestedPartitionByWeight(weights, schedulers, workers).
  // REQUIRES: schedulers >= 1, workers >= 1.
  ColumnOwners(std::span<const uint64_t> weights, uint32_t schedulers, uint32_t workers);

  // Range s is grouped: owners[k] is the worker of parameter RangeOf(s).begin + k.
  // Errors: InvalidArgument (nothing changed) unless s < schedulers(), owners.size() is the
  // range's size and every owner < workers().
  Status Group(uint32_t s, std::vector<uint32_t> owners);

  uint32_t schedulers() const { return static_cast<uint32_t>(owners_.size()); }
  uint32_t workers() const { return workers_; }
  uint64_t num_features() const { return blocks_.back(); }
  // Scheduler s's range (its workers' blocks end to end), and all S + 1 boundaries.
  ColumnRange RangeOf(uint32_t s) const {
    return {blocks_[size_t(s) * workers_], blocks_[size_t(s + 1) * workers_]};
  }
  std::vector<uint64_t> scheduler_starts() const;
  bool grouped(uint32_t s) const { return !owners_[s].empty(); }
  // A grouped range's owners, by local index (empty when the range is in blocks).
  const std::vector<uint32_t>& GroupOf(uint32_t s) const { return owners_[s]; }

  // The worker of parameter j of scheduler s's range. REQUIRES: j in RangeOf(s).
  uint32_t WorkerIn(uint32_t s, uint64_t j) const;
  // The worker of parameter j, or workers() when j >= num_features().
  uint32_t Worker(uint64_t j) const;
  // The least contiguous span of range s holding every parameter `worker` owns there: its block,
  // or the whole range when grouped (what its gradient slice of a check covers).
  ColumnRange SpanOf(uint32_t s, uint32_t worker) const;
  // Per parameter (num_features() entries), 1 where `worker` owns it: the columns it keeps.
  std::vector<char> Mask(uint32_t worker) const;

 private:
  uint32_t workers_ = 1;
  std::vector<uint64_t> blocks_{0, 0};             // S * P + 1 block boundaries
  std::vector<std::vector<uint32_t>> owners_{{}};  // by range: empty = contiguous blocks
};

}  // namespace strads
