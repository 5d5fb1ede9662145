// ShareTree, ShareCombiner: --aggregation tree, the dynamic engine's shares of a round combined by
// the workers on their way to the coordinator, so that what reaches it a round does not grow with
// the number of workers P.
//
// The shape: the P workers by rank in a complete tree of fan-in k (a heap's layout): worker r's
// children are k r + 1 ... k r + k (those below P), its parent (r - 1) / k; worker 0 is the root.
// A worker sends its parent the share of its subtree once it has its own and each child's: a
// ColumnPartials whose ids and values are its workers' shares one after another, its own first,
// then each child's subtree's in rank order (`run_ranks`, `run_sizes` say whose is where), and
// whose change of the shared vector is the sum of theirs, added in that same order. The root's
// share goes to the coordinator, which merges its runs against the chord as it merges a star's P
// shares (coordinator/share_merge.h); the round's shared update goes down the same tree, each
// worker forwarding it to its children before applying it. So the coordinator receives one share
// and sends one shared update a round, whatever P.
//
// Sums: with k >= P - 1 (depth 1) the root adds the changes in rank order, as the star's
// coordinator does, and the result is the star's bit for bit. A deeper tree adds them in another
// order (fixed by the shape), so its sums may differ from the star's in the last bits; every
// replica still adds the one sum the root sent, and all stay identical.
// Thread-compatibility: ShareTree is a value; a ShareCombiner belongs to one worker's event loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/status.h"
#include "engine/vector_delta.h"
#include "strads.pb.h"

namespace strads {

class ShareTree {
 public:
  static constexpr uint32_t kRoot = 0;

  // REQUIRES: workers >= 1, fan_in >= 1.
  ShareTree(uint32_t workers, uint32_t fan_in);

  uint32_t workers() const { return workers_; }
  uint32_t fan_in() const { return fan_in_; }
  // The parent of `rank`; nullopt for the root.
  std::optional<uint32_t> Parent(uint32_t rank) const;
  // The children of `rank`, ascending (empty for a leaf).
  std::vector<uint32_t> Children(uint32_t rank) const;
  // Hops from the deepest worker to the root (0 for one worker).
  uint32_t Depth() const;

 private:
  uint32_t workers_;
  uint32_t fan_in_;
};

// Where one worker's share sits in a tree's share: ids [begin, begin + size).
struct ShareRun {
  uint32_t worker = 0;
  int begin = 0;
  int size = 0;
};

// The runs of the whole tree's share (the root's). Errors (InvalidArgument): runs that do not
// cover its ids exactly, or that are not one run for each of the `workers` workers.
Result<std::vector<ShareRun>> TreeShareRuns(const proto::ColumnPartials& share, uint32_t workers);

// One worker's part of the tree: collects its own share of each round and its children's subtree
// shares, and gives the share of its subtree once it has them all. Rounds complete in round order
// (each sender's shares come in round order), but any may wait while a later one collects.
class ShareCombiner {
 public:
  // For worker `rank` of `tree`, whose shared vector has `shared_size` entries.
  ShareCombiner(const ShareTree& tree, uint32_t rank, uint64_t shared_size);

  // This worker's own share of `round`, as a star sends it (ids, values, change, compute
  // seconds). Returns the subtree's share of the round if every child's is in, else nullopt.
  std::optional<proto::ColumnPartials> AddOwn(uint64_t round, proto::ColumnPartials own);

  // The subtree share of `round` from worker `child`. Returns the subtree's share if it completes
  // the round. Errors (InvalidArgument, naming the round): `child` is not a child of this worker,
  // a second share of the round from it, or a malformed share (ids and values of different sizes,
  // runs that do not cover its ids or do not start with `child`, a change of another size).
  Result<std::optional<proto::ColumnPartials>> AddChild(uint64_t round, uint32_t child,
                                                        proto::ColumnPartials share);

  const std::vector<uint32_t>& children() const { return children_; }
  // Rounds with some but not all of their shares.
  size_t waiting_rounds() const { return pending_.size(); }

 private:
  struct Pending {
    std::optional<proto::ColumnPartials> own;
    std::vector<std::optional<proto::ColumnPartials>> children;  // by position in children_
    size_t in = 0;                                               // shares in, own included
  };
  // The subtree's share of `round` if complete (and the round forgotten), else nullopt.
  std::optional<proto::ColumnPartials> Combine(uint64_t round);

  uint32_t rank_;
  std::vector<uint32_t> children_;
  uint64_t shared_size_;
  std::map<uint64_t, Pending> pending_;
  DeltaAccumulator sum_;  // scratch: a subtree's change
};

}  // namespace strads
