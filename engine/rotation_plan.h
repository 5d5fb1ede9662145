// The static engine's plan: which model block each worker works on in each sub-round.
//
// The static engine (paper Sections 2.2 and 5.2: LDA, MF) splits the model into B contiguous
// blocks — vocabulary words for LDA, columns for MF — and runs each iteration as B sub-rounds.
// In a sub-round every one of the P workers updates one block against its own data shard; no two
// workers ever hold the same block at once, so their updates never conflict and need no locking.
// Between sub-rounds a block travels directly from its holder to its next holder.
//
// Two pieces:
//  - BlockBoundaries() cuts the items into B contiguous blocks, balanced by work (tokens per word,
//    nonzeros per column) or by item count. `--balance work|uniform` selects between them, so the
//    paper's load-balancing comparison (Section 5.2, "no load balancing" = uniform) is one flag.
//  - RotationPlan assigns blocks to (sub-round, worker) as a Latin square:
//
//        Block(r, w) = (w * K + r) mod B,  with K = blocks_per_worker and B = P * K.
//
//    For P = 3, K = 1 (B = 3), rows are sub-rounds, columns are workers:
//
//              w0  w1  w2
//        r0    b0  b1  b2
//        r1    b1  b2  b0       block b moves from worker w to worker w - 1 (mod P)
//        r2    b2  b0  b1       after every sub-round: a ring w0 <- w1 <- w2 <- w0.
//
//    For P = 2, K = 2 (B = 4), each sub-round leaves B - P blocks idle:
//
//              w0  w1
//        r0    b0  b2
//        r1    b1  b3
//        r2    b2  b0       block b is worked on every K-th sub-round; in between it travels
//        r3    b3  b1       from worker w to worker w - 1 (mod P), which gives the transfer
//                           K - 1 sub-rounds of slack to overlap with compute.
//
//    Within a sub-round the P blocks w * K + r are pairwise distinct (the offsets w * K are
//    distinct and < B), and over the B sub-rounds of one iteration each worker sees every block
//    exactly once (r runs over all residues mod B).
//
// Thread-safety: everything here is a pure function or an immutable value; all methods are const
// and may be called concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace strads {

enum class Balance {
  kWork,     // blocks of about equal total work (the default)
  kUniform,  // blocks of about equal item count (the paper's "no load balancing" baseline)
};

// "work" -> kWork, "uniform" -> kUniform; anything else is InvalidArgument naming the value.
Result<Balance> ParseBalance(std::string_view text);

// Cuts items 0..n-1 (n = work_per_item.size()) into `blocks` contiguous blocks and returns
// blocks + 1 boundaries 0 = b[0] <= b[1] <= ... <= b[blocks] = n; block k is [b[k], b[k + 1]).
//  - kWork: PartitionByWeight (common/partitioner.h): each block's work is within about one
//    item's work of total / blocks; every block is non-empty when n >= blocks. Callers whose items
//    may have zero work but still cost something (an empty column) should pass work + 1.
//  - kUniform: b[k] = floor(k * n / blocks), so block sizes differ by at most one; work is ignored.
// Deterministic. REQUIRES: blocks >= 1.
std::vector<uint64_t> BlockBoundaries(std::span<const uint64_t> work_per_item, uint32_t blocks,
                                      Balance balance);

// Sums work_per_item over each block of `boundaries` (as returned by BlockBoundaries).
// REQUIRES: boundaries non-decreasing, boundaries.back() <= work_per_item.size().
std::vector<uint64_t> BlockWork(std::span<const uint64_t> work_per_item,
                                std::span<const uint64_t> boundaries);

// Load imbalance of a set of blocks: max / mean of block_work. 1.0 is perfect balance; the
// slowest worker of a sub-round takes Imbalance() times the average. Returns 1.0 for an empty span
// or all-zero work (nothing to be imbalanced).
double Imbalance(std::span<const uint64_t> block_work);

// The (sub-round, worker) -> block rotation described above. An immutable value.
class RotationPlan {
 public:
  // Where and when a block is next worked on.
  struct Visit {
    uint32_t sub_round;  // in [0, sub_rounds()); <= the queried sub-round means next iteration
    uint32_t worker;
  };

  // P = workers, K = blocks_per_worker, B = P * K blocks.
  // REQUIRES: workers >= 1, blocks_per_worker >= 1, workers * blocks_per_worker < 2^32.
  explicit RotationPlan(uint32_t workers, uint32_t blocks_per_worker = 1);

  uint32_t workers() const { return workers_; }
  uint32_t blocks_per_worker() const { return blocks_per_worker_; }
  uint32_t blocks() const { return blocks_; }
  // Sub-rounds per iteration: B, one per block each worker must visit.
  uint32_t sub_rounds() const { return blocks_; }

  // The block `worker` updates in `sub_round`: (worker * K + sub_round) mod B.
  // REQUIRES: sub_round < sub_rounds(), worker < workers().
  uint32_t Block(uint32_t sub_round, uint32_t worker) const;

  // The worker holding `block` in `sub_round`, or nullopt if the block is idle then (only
  // possible when K > 1). REQUIRES: sub_round < sub_rounds(), block < blocks().
  std::optional<uint32_t> Holder(uint32_t sub_round, uint32_t block) const;

  // The first visit of `block` strictly after `sub_round`, wrapping into the next iteration: the
  // worker its current holder (or, if idle, whoever has it) sends it to. For a held block this is
  // K sub-rounds later, at worker (holder - 1) mod P; with P = 1, K = 1 it is the same worker in
  // the next iteration. REQUIRES: sub_round < sub_rounds(), block < blocks().
  Visit NextVisit(uint32_t sub_round, uint32_t block) const;

  // The first visit of `block` in an iteration: sub-round block mod K, at worker block / K (the
  // worker its home sends it to). REQUIRES: block < blocks().
  Visit FirstVisit(uint32_t block) const;

  // NextVisit(sub_round, block).worker: the worker to send `block` to after `sub_round`.
  uint32_t NextWorker(uint32_t sub_round, uint32_t block) const;

  // The ring: every block a worker finishes goes to (worker - 1) mod P, and every block it
  // receives comes from (worker + 1) mod P. REQUIRES: worker < workers().
  uint32_t SendsTo(uint32_t worker) const { return (worker + workers_ - 1) % workers_; }
  uint32_t ReceivesFrom(uint32_t worker) const { return (worker + 1) % workers_; }

 private:
  uint32_t workers_;
  uint32_t blocks_per_worker_;
  uint32_t blocks_;
};

}  // namespace strads
