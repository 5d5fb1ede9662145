#include "coordinator/share_merge.h"

#include <fmt/format.h>

#include "engine/share_tree.h"

namespace strads {
namespace {

// One worker's ids and new values, in chord order.
struct Run {
  const uint64_t* ids;
  const double* values;
  int size;
};

// The deltas of `chord`'s ids from the runs that hold them.
Result<std::vector<double>> MergeRuns(uint64_t round, const proto::Chord& chord,
                                      std::span<const Run> runs) {
  std::vector<double> deltas(static_cast<size_t>(chord.ids_size()));
  std::vector<int> cursor(runs.size(), 0);
  size_t last = 0;  // the run that held the previous id: a worker's ids come in runs
  for (int k = 0; k < chord.ids_size(); ++k) {
    const uint64_t j = chord.ids(k);
    bool found = false;
    for (size_t n = 0; n < runs.size() && !found; ++n) {
      const size_t w = (last + n) % runs.size();
      const Run& run = runs[w];
      if (cursor[w] < run.size && run.ids[cursor[w]] == j) {
        deltas[static_cast<size_t>(k)] = run.values[cursor[w]++] - chord.values(k);
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
  for (const Run& run : runs) answered += run.size;
  if (answered != chord.ids_size()) {
    return Status::FailedPrecondition(
        fmt::format("round {}: the workers updated {} parameters of a chord of {}", round, answered,
                    chord.ids_size()));
  }
  return deltas;
}

}  // namespace

Result<MergedShares> MergeShares(uint64_t round, const proto::Chord& chord,
                                 std::span<const proto::ColumnPartials> shares,
                                 DeltaAccumulator& sum) {
  std::vector<Run> runs;
  runs.reserve(shares.size());
  for (const proto::ColumnPartials& share : shares) {
    runs.push_back({share.ids().data(), share.values().data(), share.ids_size()});
  }
  MergedShares out;
  STRADS_ASSIGN_OR_RETURN(out.deltas, MergeRuns(round, chord, runs));
  for (const proto::ColumnPartials& share : shares) {
    (void)sum.Add(share.change());  // checked on arrival
    out.moved += share.change().values_size() > 0;
  }
  return out;
}

Result<MergedShares> MergeTreeShare(uint64_t round, const proto::Chord& chord,
                                    const proto::ColumnPartials& share, uint32_t workers,
                                    DeltaAccumulator& sum) {
  auto tree_runs = TreeShareRuns(share, workers);
  if (!tree_runs.ok()) {
    return Status::FailedPrecondition(
        fmt::format("round {}: {}", round, tree_runs.status().message()));
  }
  std::vector<Run> runs;
  runs.reserve(tree_runs->size());
  for (const ShareRun& r : *tree_runs) {
    runs.push_back({share.ids().data() + r.begin, share.values().data() + r.begin, r.size});
  }
  MergedShares out;
  STRADS_ASSIGN_OR_RETURN(out.deltas, MergeRuns(round, chord, runs));
  (void)sum.Add(share.change());  // checked on arrival
  out.moved = share.moved();
  return out;
}

}  // namespace strads
