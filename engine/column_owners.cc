#include "engine/column_owners.h"

#include <algorithm>
#include <string>

#include "common/partitioner.h"

namespace strads {

ColumnOwners::ColumnOwners(std::span<const uint64_t> weights, uint32_t schedulers, uint32_t workers)
    : workers_(workers),
      blocks_(NestedPartitionByWeight(weights, schedulers, workers)),
      owners_(schedulers) {}

std::vector<uint64_t> ColumnOwners::scheduler_starts() const {
  std::vector<uint64_t> starts;
  for (uint32_t s = 0; s < schedulers(); ++s) starts.push_back(RangeOf(s).begin);
  starts.push_back(num_features());
  return starts;
}

Status ColumnOwners::Group(uint32_t s, std::vector<uint32_t> owners) {
  if (s >= schedulers()) {
    return Status::InvalidArgument("owners of range " + std::to_string(s) + " of " +
                                   std::to_string(schedulers()));
  }
  const ColumnRange range = RangeOf(s);
  if (owners.size() != range.end - range.begin) {
    return Status::InvalidArgument("owners of " + std::to_string(owners.size()) +
                                   " parameters for range [" + std::to_string(range.begin) + ", " +
                                   std::to_string(range.end) + ")");
  }
  for (const uint32_t w : owners) {
    if (w >= workers_) {
      return Status::InvalidArgument("owner " + std::to_string(w) + " of " +
                                     std::to_string(workers_) + " workers");
    }
  }
  owners_[s] = std::move(owners);
  return Status::Ok();
}

uint32_t ColumnOwners::WorkerIn(uint32_t s, uint64_t j) const {
  if (!owners_[s].empty()) return owners_[s][j - RangeOf(s).begin];
  const auto first = blocks_.begin() + static_cast<std::ptrdiff_t>(size_t(s) * workers_);
  return static_cast<uint32_t>(std::upper_bound(first + 1, first + workers_, j) - (first + 1));
}

uint32_t ColumnOwners::Worker(uint64_t j) const {
  if (j >= num_features()) return workers_;
  // The block holding j (empty blocks skipped): its range, and its worker unless grouped.
  const auto b = static_cast<size_t>(std::upper_bound(blocks_.begin() + 1, blocks_.end() - 1, j) -
                                     (blocks_.begin() + 1));
  const auto s = static_cast<uint32_t>(b / workers_);
  return owners_[s].empty() ? static_cast<uint32_t>(b % workers_) : WorkerIn(s, j);
}

ColumnRange ColumnOwners::SpanOf(uint32_t s, uint32_t worker) const {
  if (!owners_[s].empty()) return RangeOf(s);
  const size_t b = size_t(s) * workers_ + worker;
  return {blocks_[b], blocks_[b + 1]};
}

std::vector<char> ColumnOwners::Mask(uint32_t worker) const {
  std::vector<char> mask(num_features(), 0);
  for (uint32_t s = 0; s < schedulers(); ++s) {
    if (owners_[s].empty()) {
      const ColumnRange block = SpanOf(s, worker);
      std::fill(mask.begin() + static_cast<std::ptrdiff_t>(block.begin),
                mask.begin() + static_cast<std::ptrdiff_t>(block.end), 1);
      continue;
    }
    for (size_t k = 0; k < owners_[s].size(); ++k) {
      if (owners_[s][k] == worker) mask[RangeOf(s).begin + k] = 1;
    }
  }
  return mask;
}

}  // namespace strads
