#include "common/memory_budget.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace strads {

uint64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t value = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (fields >> key >> value >> unit && key == "MemAvailable:") {
      return unit == "kB" ? SaturatingMulAdd(value, 1024) : value;
    }
  }
  return kUnknownMemory;
}

std::string FormatBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{} bytes", bytes);
}

Status CheckMemory(std::string_view where, uint64_t needed, std::string_view what,
                   uint64_t available) {
  if (available == kUnknownMemory || needed <= available) return Status::Ok();
  return Status::InvalidArgument(fmt::format("{}: needs {} for {}; {} available", where,
                                             FormatBytes(needed), what, FormatBytes(available)));
}

uint64_t SaturatingMulAdd(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return UINT64_MAX;
  uint64_t sum;
  if (__builtin_add_overflow(product, c, &sum)) return UINT64_MAX;
  return sum;
}

}  // namespace strads
