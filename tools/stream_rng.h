// StreamRng: independent random streams of one seed, for the synthetic generators
// (synthetic_lasso.cc, synthetic_ratings.cc). Each part of a problem draws from a stream of its
// own, so that it does not change when another part draws more (e.g. beta_true with the number
// of rows).
#pragma once

#include <cstdint>
#include <random>

namespace strads {

// The generator of stream `stream` of `seed`.
inline std::mt19937_64 StreamRng(uint64_t seed, uint64_t stream) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(stream)};
  return std::mt19937_64(seq);
}

}  // namespace strads
