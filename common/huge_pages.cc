#include "common/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace strads {
namespace {

#ifndef MADV_COLLAPSE
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; glibc 2.36's headers do not name it
#endif

}  // namespace

HugePageSpan WholeHugePages(std::uintptr_t begin, std::size_t bytes) {
  const std::uintptr_t start = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t end = (begin + bytes) & ~(kHugePageBytes - 1);
  if (begin == 0 || end <= start) return {};
  return {start, static_cast<std::size_t>(end - start)};
}

std::size_t AdviseHugePages(void* p, std::size_t bytes) {
  const HugePageSpan s = WholeHugePages(reinterpret_cast<std::uintptr_t>(p), bytes);
  if (s.length == 0) return 0;
  return madvise(reinterpret_cast<void*>(s.start), s.length, MADV_HUGEPAGE) == 0 ? s.length : 0;
}

std::size_t CollapseHugePages(void* p, std::size_t bytes) {
  if (AdviseHugePages(p, bytes) == 0) return 0;
  const HugePageSpan s = WholeHugePages(reinterpret_cast<std::uintptr_t>(p), bytes);
  return madvise(reinterpret_cast<void*>(s.start), s.length, MADV_COLLAPSE) == 0 ? s.length : 0;
}

}  // namespace strads
