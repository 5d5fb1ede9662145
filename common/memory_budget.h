// How much memory a load may take, checked before it allocates.
//
// A member estimates what a shard will need from what it knows before the big allocations (the
// header's sizes, or the counts of a first pass) and asks CheckMemory; a shard that would not fit
// fails its job with "FILE: needs 25.8 GB for 2147483647 features; 22.8 GB available" instead of
// allocating until the kernel kills the process. The figure available is the host's
// MemAvailable (/proc/meminfo), read when the load starts; tests pass their own.
//
// Pure functions apart from AvailableMemoryBytes (which reads /proc): safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace strads {

// Stands for "unknown": no limit is applied.
inline constexpr uint64_t kUnknownMemory = UINT64_MAX;

// MemAvailable of /proc/meminfo in bytes, or kUnknownMemory when it cannot be read.
uint64_t AvailableMemoryBytes();

// "17.2 GB", "512.0 MB", "12 bytes" (decimal units).
std::string FormatBytes(uint64_t bytes);

// Ok when `needed` <= `available` (or `available` is unknown); otherwise InvalidArgument
// "WHERE: needs N GB for WHAT; M GB available".
Status CheckMemory(std::string_view where, uint64_t needed, std::string_view what,
                   uint64_t available);

// a * b + c, saturating at UINT64_MAX (estimates from hostile headers must not wrap).
uint64_t SaturatingMulAdd(uint64_t a, uint64_t b, uint64_t c = 0);

}  // namespace strads
