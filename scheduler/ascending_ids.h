// AscendingIds: puts a chord's distinct ids, all in one scheduler's partition [first, end), in
// ascending order.
//
// The column layout sends a chord without a filter in index order (a worker then passes over its
// columns in memory order). A comparison sort of B ids costs O(B log B): ~60 µs for 4,096 ids, a
// seventh of the chord a scheduler builds after a check on 20,000 x 20,000 L1-LR, while the
// workers wait. A bitmap over the partition orders them in O(B + n / 64) for n = end - first, so
// it is used where n / 64 is below B log2 B (e.g. up to ~1.4 million parameters for a chord of
// 2,048) and the sort elsewhere.
// Thread-compatible: the bitmap is scratch kept between calls, so a caller holds one object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strads {

class AscendingIds {
 public:
  AscendingIds(uint64_t first, uint64_t end);

  // Sorts `ids` ascending.
  // REQUIRES: every id in [first, end); no id twice.
  void Sort(std::vector<uint64_t>& ids);

  // Whether Sort uses the bitmap for `count` ids (for tests and benchmarks).
  bool UsesBitmap(size_t count) const;

 private:
  uint64_t first_;
  uint64_t size_;
  std::vector<uint64_t> bits_;  // all zero between calls
};

}  // namespace strads
