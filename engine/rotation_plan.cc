#include "engine/rotation_plan.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <string>

#include "common/partitioner.h"

namespace strads {

Result<Balance> ParseBalance(std::string_view text) {
  if (text == "work") return Balance::kWork;
  if (text == "uniform") return Balance::kUniform;
  return Status::InvalidArgument("--balance must be 'work' or 'uniform', got '" +
                                 std::string(text) + "'");
}

std::vector<uint64_t> BlockBoundaries(std::span<const uint64_t> work_per_item, uint32_t blocks,
                                      Balance balance) {
  assert(blocks >= 1);
  if (balance == Balance::kWork) return PartitionByWeight(work_per_item, blocks);
  const uint64_t n = work_per_item.size();
  std::vector<uint64_t> b(blocks + 1);
  // 128-bit: k * n can exceed 64 bits for huge n.
  for (uint32_t k = 0; k <= blocks; ++k) {
    b[k] = static_cast<uint64_t>(static_cast<unsigned __int128>(k) * n / blocks);
  }
  return b;
}

std::vector<uint64_t> BlockWork(std::span<const uint64_t> work_per_item,
                                std::span<const uint64_t> boundaries) {
  std::vector<uint64_t> out;
  if (boundaries.size() < 2) return out;
  out.reserve(boundaries.size() - 1);
  for (size_t k = 0; k + 1 < boundaries.size(); ++k) {
    assert(boundaries[k] <= boundaries[k + 1] && boundaries[k + 1] <= work_per_item.size());
    out.push_back(std::accumulate(work_per_item.begin() + boundaries[k],
                                  work_per_item.begin() + boundaries[k + 1], uint64_t{0}));
  }
  return out;
}

double Imbalance(std::span<const uint64_t> block_work) {
  if (block_work.empty()) return 1.0;
  // Sum in double: the ratio is all that matters, and it cannot overflow.
  double total = 0;
  for (uint64_t w : block_work) total += static_cast<double>(w);
  if (total == 0) return 1.0;
  const double mean = total / static_cast<double>(block_work.size());
  return static_cast<double>(*std::max_element(block_work.begin(), block_work.end())) / mean;
}

RotationPlan::RotationPlan(uint32_t workers, uint32_t blocks_per_worker)
    : workers_(workers),
      blocks_per_worker_(blocks_per_worker),
      blocks_(workers * blocks_per_worker) {
  assert(workers >= 1 && blocks_per_worker >= 1);
  assert(uint64_t{workers} * blocks_per_worker <= UINT32_MAX);
}

uint32_t RotationPlan::Block(uint32_t sub_round, uint32_t worker) const {
  assert(sub_round < blocks_ && worker < workers_);
  // worker * K and sub_round are both < B; summed in 64 bits so 2B may exceed 2^32.
  return static_cast<uint32_t>((uint64_t{worker} * blocks_per_worker_ + sub_round) % blocks_);
}

std::optional<uint32_t> RotationPlan::Holder(uint32_t sub_round, uint32_t block) const {
  assert(sub_round < blocks_ && block < blocks_);
  // Inverse of Block(): w * K == (block - sub_round) mod B.
  const uint32_t offset = static_cast<uint32_t>((uint64_t{block} + blocks_ - sub_round) % blocks_);
  if (offset % blocks_per_worker_ != 0) return std::nullopt;
  return offset / blocks_per_worker_;
}

RotationPlan::Visit RotationPlan::NextVisit(uint32_t sub_round, uint32_t block) const {
  assert(sub_round < blocks_ && block < blocks_);
  // A block is held in sub-round s iff (block - s) mod K == 0 (B is a multiple of K), so the next
  // one is t in [1, K] sub-rounds ahead with t == (block - sub_round) mod K.
  const uint64_t K = blocks_per_worker_;
  uint64_t t = (uint64_t{block} + blocks_ - sub_round) % K;
  if (t == 0) t = K;
  const auto next = static_cast<uint32_t>((sub_round + t) % blocks_);
  const std::optional<uint32_t> worker = Holder(next, block);
  assert(worker.has_value());
  return {next, *worker};
}

RotationPlan::Visit RotationPlan::FirstVisit(uint32_t block) const {
  assert(block < blocks_);
  // Held in sub-round s iff (block - s) mod K == 0; the least such s is block mod K, and there
  // Block(s, w) == block gives w = block / K.
  return {block % blocks_per_worker_, block / blocks_per_worker_};
}

uint32_t RotationPlan::NextWorker(uint32_t sub_round, uint32_t block) const {
  return NextVisit(sub_round, block).worker;
}

}  // namespace strads
