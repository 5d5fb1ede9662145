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

}  // namespace strads
