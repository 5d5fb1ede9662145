// Feature grouping: which of P workers owns each parameter of one scheduler's range in the
// dynamic engine's column layout, chosen so that strongly correlated features land on the same
// worker (issue 9: "group correlated features on the same worker where that is cheap to find,
// since same-worker updates are exact").
//
// Why: a worker updates its share of a chord sequentially, exactly; two workers' shares are
// computed against the same replica and summed, so two correlated features on different workers
// overshoot together and the coordinator's line search damps the whole round. Contiguous blocks
// of ids keep correlated features together only when the file happens to list them side by side:
// the synthetic 20,000 x 20,000 L1-LR problem (groups of 10 adjacent features) with its columns
// shuffled took 2.2x the time to 1e-3 and 4.5x to 1e-6 with 2 workers (docs/performance.md).
//
// How: the range's dependent pairs (|cos| > rho, engine/neighbour_lists.h, by the sparse row walk)
// form a graph; a breadth-first order over it, component by component, lays it out so that each
// connected component is contiguous and neighbours are near each other; the order is cut into P
// pieces of about equal weight (non-zeros, common/partitioner.h), piece w going to worker w. At
// most P - 1 components are cut. (The breadth-first pass is hand-written over the lists already
// held: Boost's cuthill_mckee_ordering, tried first, built its own graph and took 0.21 s on a
// 50,000-parameter range of 2,000 groups, the whole grouping's time being 0.34 s.) Where the walk
// would cost more than its budget (dense or large data) there is no grouping and the range keeps
// contiguous blocks: "where that is cheap to find".
//
// Who: the range's scheduler, while it loads (it then holds the range's columns); its Ready
// carries the owners, and the coordinator's Begin gives them to the workers. Meanwhile each worker
// loaded the whole of every range for which GroupingMayFit holds, the same test from the same
// column counts, and keeps its own columns at Begin (worker/dynamic_worker_job.cc).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/dataset.h"
#include "common/status.h"
#include "engine/column_owners.h"
#include "engine/dependency_filter.h"
#include "engine/neighbour_lists.h"
#include "strads.pb.h"

namespace strads {

// The grouping's own budget: a quarter of the filter's work, the sparse walk only (the dense
// way's Gram matrix costs ~0.4 s on Fashion-MNIST, whose pixel order already keeps neighbours
// together; and the workers decide what to load from the sparse bound alone).
NeighbourLists::Budget GroupingBudget();

// Whether a range of `nonzeros` entries over `rows` rows may fit `budget` at all, from the counts
// alone (before its columns are loaded): the sparse walk costs at least nonzeros^2 / rows / 2
// (rows of equal length). Pure.
bool GroupingMayFit(uint64_t rows, uint64_t nonzeros, NeighbourLists::Budget budget);

// Whether scheduler range `range` of a job may be grouped: the spec asks for grouping
// (GroupsFeatures) and the range's non-zeros (from `counts`, one per column) may fit the budget.
// The scheduler tries exactly these ranges, and the workers keep exactly these whole until Begin:
// both decide here, from the same counts.
bool MayGroupRange(const proto::DynamicEngineSpec& spec, uint32_t workers, uint64_t rows,
                   std::span<const uint64_t> counts, ColumnRange range);

struct FeatureGroups {
  std::vector<uint32_t> owners;  // the worker of each column, by local index
  uint64_t pairs = 0;            // dependent pairs (|cos| > rho) in the range
  uint64_t cut_pairs = 0;        // of them, pairs whose columns have different owners
};

// The worker (0 .. workers - 1) of each column of `store` (by local index), balanced by
// `weights` (one per column of the store, e.g. non-zeros), correlated columns (|cos| > rho)
// together. Deterministic: the same store, weights and arguments give the same owners.
// Errors: FailedPrecondition when the neighbour lists exceed `budget` (the caller then keeps
// contiguous blocks).
// REQUIRES: the store holds columns, weights.size() == store size, workers >= 1,
// 0 <= rho < 1.
Result<FeatureGroups> GroupFeatures(const ColumnStore& store, std::span<const uint64_t> weights,
                                    uint32_t workers, double rho, NeighbourLists::Budget budget);

// What a scheduler does while it loads: groups range s of `owners` from the range's columns in
// `x` (x may hold others too) by GroupFeatures at `rho` with GroupingBudget(), `weights` being
// every column's (all of them, by global id). Where the lists exceed the budget, or the range
// has no dependent pair, it keeps its contiguous blocks: not an error, the job runs either way.
// Returns a line for the log saying which, with the figures.
std::string GroupRange(const SparseColMatrix& x, std::span<const uint64_t> weights, double rho,
                       uint32_t s, ColumnOwners& owners);

}  // namespace strads
