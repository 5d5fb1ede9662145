// Asking the kernel for transparent huge pages (2 MB) behind a large array.
//
// A column-layout share visits its columns in chord order, scattered over hundreds of MB of
// compressed columns: with 4 KB pages nearly every column costs a TLB miss and a page walk on
// top of its cache misses (the paper shape's 720 MB of columns span 180,000 pages, far beyond any
// TLB). Debian's kernels run THP in "madvise" mode: only memory marked MADV_HUGEPAGE gets huge
// pages. Both calls are hints: on a kernel without THP (or without MADV_COLLAPSE, before 6.1)
// they do nothing and say so in their result, and results never depend on them.
// Thread-safe (system calls only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace strads {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// The whole 2 MB pages inside [begin, begin + bytes), as {first byte, length}; {0, 0} when
// there is none. Pure.
struct HugePageSpan {
  std::uintptr_t start = 0;
  std::size_t length = 0;
};
HugePageSpan WholeHugePages(std::uintptr_t begin, std::size_t bytes);

// Marks the whole 2 MB pages inside [p, p + bytes) for huge pages when first touched: call it
// before the array is written. Returns the bytes marked (0 if none or the kernel refused).
std::size_t AdviseHugePages(void* p, std::size_t bytes);

// Marks them as above and moves pages already touched into huge pages now (MADV_COLLAPSE: the
// kernel copies them, ~0.1 s a GB). Returns the bytes collapsed (0 if none or it failed).
std::size_t CollapseHugePages(void* p, std::size_t bytes);

// An allocator for large arrays read scattered (per-parameter priorities, per-column norms, a
// sampling tree): cache-line aligned, and whatever 2 MB pages an allocation spans whole are
// marked for huge pages before the container writes them. Stateless.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kAlign = 64;  // a cache line
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(std::size_t n) {
    void* p = ::operator new (n * sizeof(T), std::align_val_t{kAlign});
    AdviseHugePages(p, n * sizeof(T));
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{kAlign}); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

// A vector on HugePageAllocator.
template <class T>
using HugePageVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace strads
