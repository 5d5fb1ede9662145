#include "common/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace strads {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

#ifndef MADV_COLLAPSE
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; glibc 2.36's headers do not name it
#endif

// The whole huge pages inside [p, p + bytes): {start, length}, length 0 when there is none.
struct Span {
  uintptr_t start = 0;
  size_t length = 0;
};

Span WholePages(void* p, size_t bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t start = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (begin + bytes) & ~(kHugePage - 1);
  if (p == nullptr || end <= start) return {};
  return {start, static_cast<size_t>(end - start)};
}

}  // namespace

size_t AdviseHugePages(void* p, size_t bytes) {
  const Span s = WholePages(p, bytes);
  if (s.length == 0) return 0;
  return madvise(reinterpret_cast<void*>(s.start), s.length, MADV_HUGEPAGE) == 0 ? s.length : 0;
}

size_t CollapseHugePages(void* p, size_t bytes) {
  if (AdviseHugePages(p, bytes) == 0) return 0;
  const Span s = WholePages(p, bytes);
  return madvise(reinterpret_cast<void*>(s.start), s.length, MADV_COLLAPSE) == 0 ? s.length : 0;
}

}  // namespace strads
