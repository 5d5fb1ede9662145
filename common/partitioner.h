// Splitting an index range into contiguous, weight-balanced parts.
//
// Used to give each scheduler (or worker) a contiguous block of features whose total work is
// about the same: pass a weight per index, typically the column's non-zero count plus 1 so that
// empty columns still cost something.
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace strads {

// Returns parts + 1 boundaries, starts[0] = 0 <= starts[1] <= ... <= starts[parts] = n, n =
// weights.size(); part p is the index range [starts[p], starts[p + 1]). Each interior boundary is
// placed at the prefix sum closest to p * total / parts (ties go to the lower index), so each
// part's weight is within about one element's weight of total / parts. Every part is non-empty
// when n >= parts; when n < parts, parts 0..n-1 hold one index each and the rest are empty.
// Deterministic: the same input always gives the same output.
// REQUIRES: parts >= 1.
std::vector<uint64_t> PartitionByWeight(std::span<const uint64_t> weights, uint32_t parts);

// Two-level partition: the outer parts are exactly PartitionByWeight(weights, outer), and each is
// split again by PartitionByWeight of its own weights into `inner` parts. Returns
// outer * inner + 1 boundaries; block o * inner + i is [starts[o * inner + i], starts[o * inner +
// i + 1]), and outer part o is [starts[o * inner], starts[(o + 1) * inner]). The dynamic engine's
// column layout uses it with outer = schedulers and inner = workers: scheduler s owns outer part
// s, worker w owns block w of every outer part, so every chord gives every worker work.
// Deterministic. REQUIRES: outer >= 1, inner >= 1.
std::vector<uint64_t> NestedPartitionByWeight(std::span<const uint64_t> weights, uint32_t outer,
                                              uint32_t inner);

}  // namespace strads
