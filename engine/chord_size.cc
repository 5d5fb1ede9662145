#include "engine/chord_size.h"

#include <algorithm>
#include <cmath>

namespace strads {

uint32_t AdaptedChordSize(uint32_t cap, const ChordWork& work) {
  cap = std::max<uint32_t>(cap, 1);
  if (work.nonzeros == 0 || work.columns == 0) return cap;
  const double per_update =
      double(std::max<uint32_t>(work.passes, 1)) * double(work.nonzeros) / double(work.columns);
  const double size = std::ceil(double(std::max<uint32_t>(work.workers, 1)) *
                                kRoundFixedNonzeroPasses / per_update);
  const uint32_t at_least = std::min(cap, std::max<uint32_t>(work.workers, 1));
  if (!(size < double(cap))) return cap;  // also a NaN, which cannot arise from the sizes above
  return std::max(at_least, static_cast<uint32_t>(size));
}

uint32_t AdaptedCandidates(uint32_t spec_candidates, uint32_t spec_chord_size, uint32_t adapted) {
  if (spec_chord_size == 0) return std::max(spec_candidates, adapted);
  const double ratio = double(spec_candidates) / double(spec_chord_size);
  // adapted <= spec_chord_size, so the figure is at most spec_candidates: no overflow.
  const auto scaled = static_cast<uint32_t>(std::round(ratio * double(adapted)));
  return std::max(adapted, scaled);
}

}  // namespace strads
