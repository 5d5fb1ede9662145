#include "common/partitioner.h"

#include <algorithm>
#include <cassert>

namespace strads {

std::vector<uint64_t> PartitionByWeight(std::span<const uint64_t> weights, uint32_t parts) {
  assert(parts >= 1);
  if (parts == 0) parts = 1;
  const uint64_t n = weights.size();
  std::vector<uint64_t> starts(parts + 1, 0);
  starts[parts] = n;
  if (n < parts) {
    for (uint32_t p = 0; p <= parts; ++p) starts[p] = std::min<uint64_t>(p, n);
    return starts;
  }
  // prefix[i] = weight of indices [0, i). 128-bit so that p * total cannot overflow below.
  std::vector<unsigned __int128> prefix(n + 1, 0);
  for (uint64_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + weights[i];
  const unsigned __int128 total = prefix[n];
  for (uint32_t p = 1; p < parts; ++p) {
    // Ideal boundary p * total / parts, kept as the exact fraction target / parts.
    const unsigned __int128 target = total * p;
    // First i with prefix[i] * parts >= target, then the closer of i - 1 and i.
    uint64_t i = std::partition_point(prefix.begin(), prefix.end(),
                                      [&](unsigned __int128 s) { return s * parts < target; }) -
                 prefix.begin();
    if (i > 0 && target - prefix[i - 1] * parts <= prefix[std::min(i, n)] * parts - target) --i;
    // Leave at least one index for this part and for each of the parts after it.
    const uint64_t lo = starts[p - 1] + 1;
    const uint64_t hi = n - (parts - p);
    starts[p] = std::clamp(i, lo, hi);
  }
  return starts;
}

std::vector<uint64_t> NestedPartitionByWeight(std::span<const uint64_t> weights, uint32_t outer,
                                              uint32_t inner) {
  assert(outer >= 1 && inner >= 1);
  outer = std::max<uint32_t>(outer, 1);
  inner = std::max<uint32_t>(inner, 1);
  const std::vector<uint64_t> outer_starts = PartitionByWeight(weights, outer);
  std::vector<uint64_t> starts;
  starts.reserve(static_cast<size_t>(outer) * inner + 1);
  for (uint32_t o = 0; o < outer; ++o) {
    const uint64_t first = outer_starts[o];
    const auto part = weights.subspan(first, outer_starts[o + 1] - first);
    const std::vector<uint64_t> inner_starts = PartitionByWeight(part, inner);
    for (uint32_t i = 0; i < inner; ++i) starts.push_back(first + inner_starts[i]);
  }
  starts.push_back(weights.size());
  return starts;
}

}  // namespace strads
