#include "coordinator/share_merge.h"

#include <fmt/format.h>

namespace strads {

Result<MergedShares> MergeShares(uint64_t round, const proto::Chord& chord,
                                 std::span<const proto::ColumnPartials> shares,
                                 DeltaAccumulator& sum) {
  MergedShares out;
  out.deltas.resize(static_cast<size_t>(chord.ids_size()));
  std::vector<int> cursor(shares.size(), 0);
  size_t last = 0;  // the share that held the previous id: a worker's ids come in runs
  for (int k = 0; k < chord.ids_size(); ++k) {
    const uint64_t j = chord.ids(k);
    bool found = false;
    for (size_t n = 0; n < shares.size() && !found; ++n) {
      const size_t w = (last + n) % shares.size();
      const proto::ColumnPartials& share = shares[w];
      if (cursor[w] < share.ids_size() && share.ids(cursor[w]) == j) {
        out.deltas[static_cast<size_t>(k)] = share.values(cursor[w]++) - chord.values(k);
        found = true;
        last = w;
      }
    }
    if (!found) {
      return Status::FailedPrecondition(
          fmt::format("round {}: no worker updated parameter {} (in chord order)", round, j));
    }
  }
  int answered = 0;
  for (const proto::ColumnPartials& share : shares) answered += share.ids_size();
  if (answered != chord.ids_size()) {
    return Status::FailedPrecondition(
        fmt::format("round {}: the workers updated {} parameters of a chord of {}", round, answered,
                    chord.ids_size()));
  }
  for (const proto::ColumnPartials& share : shares) {
    (void)sum.Add(share.change());  // checked on arrival
    out.moved += share.change().values_size() > 0;
  }
  return out;
}

}  // namespace strads
