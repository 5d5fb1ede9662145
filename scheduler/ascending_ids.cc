#include "scheduler/ascending_ids.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace strads {

AscendingIds::AscendingIds(uint64_t first, uint64_t end) : first_(first), size_(end - first) {
  assert(end >= first);
}

bool AscendingIds::UsesBitmap(size_t count) const {
  if (count < 2) return false;
  const uint64_t words = (size_ + 63) / 64;
  return words < count * static_cast<uint64_t>(std::bit_width(count) - 1);  // B floor(log2 B)
}

void AscendingIds::Sort(std::vector<uint64_t>& ids) {
  if (!UsesBitmap(ids.size())) {
    std::sort(ids.begin(), ids.end());
    return;
  }
  if (bits_.empty()) bits_.assign((size_ + 63) / 64, 0);
  for (uint64_t j : ids) {
    assert(j >= first_ && j - first_ < size_);
    const uint64_t local = j - first_;
    bits_[local / 64] |= uint64_t{1} << (local % 64);
  }
  size_t out = 0;
  for (size_t w = 0; w < bits_.size() && out < ids.size(); ++w) {
    uint64_t word = bits_[w];
    bits_[w] = 0;
    while (word != 0) {
      ids[out++] = first_ + 64 * w + static_cast<uint64_t>(std::countr_zero(word));
      word &= word - 1;
    }
  }
  assert(out == ids.size());  // fails on a repeated id
}

}  // namespace strads
