// MergeShares, MergeTreeShare: one round's commit from its chord and the workers' shares
// (ColumnPartials).
//
// Every chord id is owned by exactly one worker, which sends its new value in its share. A share
// holds its ids in chord order (the order its part of the chord came in), so the chord is the
// merge of the shares: one cursor per share, where a map of the chord's ids cost an allocation an
// id. In a star each worker's share comes alone; with --aggregation tree the root's share holds
// every worker's as a run (engine/share_tree.h), and the runs are merged the same way. The
// shares' changes of the shared vector are summed in rank order (a tree's root sums them in the
// tree's order), so every worker adds the same sum to its replica, bit for bit.
// Thread-safety: pure functions of their arguments (`sum` is the caller's scratch).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "engine/vector_delta.h"
#include "strads.pb.h"

namespace strads {

struct MergedShares {
  std::vector<double> deltas;  // by chord position: the new value less the chord's value
  uint32_t moved = 0;          // workers whose change of the shared vector is not empty
};

// Merges `shares` (by worker rank) into the deltas of `chord`'s ids and adds every share's change
// to `sum`. Errors (FailedPrecondition, naming `round`): a chord id no share updated in chord
// order, or shares that update ids outside the chord.
// REQUIRES: each share's ids and values have the same size and its change is CheckDelta-valid
// for sum.size() (checked on arrival).
Result<MergedShares> MergeShares(uint64_t round, const proto::Chord& chord,
                                 std::span<const proto::ColumnPartials> shares,
                                 DeltaAccumulator& sum);

// The same for the root's share of a tree of `workers` workers: its runs (one per worker) merged
// into the deltas, its change (the tree's sum) added to `sum`, its `moved` taken. Errors
// (FailedPrecondition, naming `round`): runs that are not one per worker or do not cover the
// share, and the errors of MergeShares.
// REQUIRES: the share's change is CheckDelta-valid for sum.size() (checked on arrival).
Result<MergedShares> MergeTreeShare(uint64_t round, const proto::Chord& chord,
                                    const proto::ColumnPartials& share, uint32_t workers,
                                    DeltaAccumulator& sum);

}  // namespace strads
