// SplitMix64: the mf app's reproducible source of randomness (initial factors, SGD visiting
// orders). Unlike std:: distributions its output is the same on every platform, so a worker that
// owns part of the model draws exactly the values the sequential reference draws for that part.
// Pure functions and a plain value type: thread-compatible.
#pragma once

#include <cstdint>

namespace strads::mf {

// SplitMix64's finaliser: a bijective 64-bit mix.
inline uint64_t Mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A SplitMix64 stream.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t Next() { return Mix(state_++ * 0x9e3779b97f4a7c15ULL); }
  // In [0, n), by multiply-shift (bias below 2^-32 for n < 2^32).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

// The seed of the SGD visiting order of `worker`'s ratings of column block `block` in iteration
// (epoch) `iteration` >= 1. The sequential reference draws epoch t's order of its rows with
// SgdOrderSeed(seed, t + 1, 0, 0), so one worker with one block visits the rows in its order.
inline uint64_t SgdOrderSeed(uint64_t seed, uint64_t iteration, uint32_t worker, uint32_t block) {
  return Mix(Mix(Mix(Mix(Mix(seed) ^ 0x5347440000000000ULL) ^ iteration) ^ worker) ^ block);
}

// The key that orders a row's ratings for SGD (SgdRowOrder): a fixed hash of (seed, column).
inline uint64_t ColumnOrderKey(uint64_t seed, uint64_t col) {
  return Mix(Mix(Mix(seed) ^ 0x436f6c756d6e0000ULL) ^ col);
}

}  // namespace strads::mf
