#include "engine/share_tree.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace strads {

ShareTree::ShareTree(uint32_t workers, uint32_t fan_in)
    : workers_(std::max<uint32_t>(1, workers)), fan_in_(std::max<uint32_t>(1, fan_in)) {}

std::optional<uint32_t> ShareTree::Parent(uint32_t rank) const {
  if (rank == kRoot || rank >= workers_) return std::nullopt;
  return (rank - 1) / fan_in_;
}

std::vector<uint32_t> ShareTree::Children(uint32_t rank) const {
  std::vector<uint32_t> out;
  const uint64_t first = uint64_t{fan_in_} * rank + 1;
  for (uint64_t c = first; c < first + fan_in_ && c < workers_; ++c) {
    out.push_back(static_cast<uint32_t>(c));
  }
  return out;
}

uint32_t ShareTree::Depth() const {
  uint32_t depth = 0;
  for (uint32_t r = workers_ - 1; r != kRoot; r = *Parent(r)) ++depth;
  return depth;
}

namespace {

// Ok iff the runs of `share` are well formed and cover its ids exactly.
Status CheckRuns(const proto::ColumnPartials& share) {
  if (share.ids_size() != share.values_size()) {
    return Status::InvalidArgument(
        fmt::format("{} ids with {} values", share.ids_size(), share.values_size()));
  }
  if (share.run_ranks_size() == 0 || share.run_ranks_size() != share.run_sizes_size()) {
    return Status::InvalidArgument(fmt::format("{} run ranks with {} run sizes",
                                               share.run_ranks_size(), share.run_sizes_size()));
  }
  uint64_t covered = 0;
  for (uint32_t size : share.run_sizes()) covered += size;
  if (covered != static_cast<uint64_t>(share.ids_size())) {
    return Status::InvalidArgument(
        fmt::format("runs of {} ids for a share of {}", covered, share.ids_size()));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<ShareRun>> TreeShareRuns(const proto::ColumnPartials& share, uint32_t workers) {
  STRADS_RETURN_IF_ERROR(CheckRuns(share));
  std::vector<char> seen(workers, 0);
  std::vector<ShareRun> runs;
  runs.reserve(static_cast<size_t>(share.run_ranks_size()));
  int begin = 0;
  for (int k = 0; k < share.run_ranks_size(); ++k) {
    const uint32_t w = share.run_ranks(k);
    if (w >= workers || seen[w]) {
      return Status::InvalidArgument(
          fmt::format("the tree's share holds worker {}'s run {} (of {} workers)", w,
                      w < workers ? "twice" : "but there is no such worker", workers));
    }
    seen[w] = 1;
    const int size = static_cast<int>(share.run_sizes(k));
    runs.push_back({w, begin, size});
    begin += size;
  }
  if (runs.size() != workers) {
    return Status::InvalidArgument(
        fmt::format("the tree's share holds the runs of {} of {} workers", runs.size(), workers));
  }
  return runs;
}

ShareCombiner::ShareCombiner(const ShareTree& tree, uint32_t rank, uint64_t shared_size)
    : rank_(rank), children_(tree.Children(rank)), shared_size_(shared_size), sum_(shared_size) {}

std::optional<proto::ColumnPartials> ShareCombiner::AddOwn(uint64_t round,
                                                           proto::ColumnPartials own) {
  Pending& p = pending_[round];
  if (p.children.empty()) p.children.resize(children_.size());
  p.own = std::move(own);
  ++p.in;
  return Combine(round);
}

Result<std::optional<proto::ColumnPartials>> ShareCombiner::AddChild(uint64_t round, uint32_t child,
                                                                     proto::ColumnPartials share) {
  const auto it = std::find(children_.begin(), children_.end(), child);
  if (it == children_.end()) {
    return Status::InvalidArgument(
        fmt::format("round {}: a share from worker {}, which is not a child of worker {}", round,
                    child, rank_));
  }
  Status st = CheckRuns(share);
  if (st.ok() && share.run_ranks(0) != child) {
    st = Status::InvalidArgument(fmt::format("its first run is worker {}'s", share.run_ranks(0)));
  }
  if (st.ok()) st = CheckDelta(share.change(), shared_size_);
  if (!st.ok()) {
    return Status::InvalidArgument(
        fmt::format("round {}: a malformed share from worker {}: {}", round, child, st.message()));
  }
  Pending& p = pending_[round];
  if (p.children.empty()) p.children.resize(children_.size());
  auto& slot = p.children[static_cast<size_t>(it - children_.begin())];
  if (slot) {
    return Status::InvalidArgument(
        fmt::format("round {}: a second share from worker {}", round, child));
  }
  slot = std::move(share);
  ++p.in;
  return Combine(round);
}

std::optional<proto::ColumnPartials> ShareCombiner::Combine(uint64_t round) {
  const auto it = pending_.find(round);
  if (it->second.in < children_.size() + 1) return std::nullopt;
  Pending p = std::move(it->second);
  pending_.erase(it);
  proto::ColumnPartials out = std::move(*p.own);
  const bool moved = out.change().values_size() > 0;
  out.clear_run_ranks();
  out.clear_run_sizes();
  out.add_run_ranks(rank_);
  out.add_run_sizes(static_cast<uint32_t>(out.ids_size()));
  out.set_moved(moved ? 1 : 0);
  // A leaf's change goes up as it is: the one summand of its subtree.
  if (children_.empty()) return out;
  size_t ids = static_cast<size_t>(out.ids_size());
  for (const auto& c : p.children) ids += static_cast<size_t>(c->ids_size());
  out.mutable_ids()->Reserve(static_cast<int>(ids));
  out.mutable_values()->Reserve(static_cast<int>(ids));
  (void)sum_.Add(out.change());  // the worker's own: of its replica's size
  for (const auto& c : p.children) {
    out.mutable_ids()->Add(c->ids().begin(), c->ids().end());
    out.mutable_values()->Add(c->values().begin(), c->values().end());
    out.mutable_run_ranks()->Add(c->run_ranks().begin(), c->run_ranks().end());
    out.mutable_run_sizes()->Add(c->run_sizes().begin(), c->run_sizes().end());
    out.set_moved(out.moved() + c->moved());
    out.set_compute_seconds(std::max(out.compute_seconds(), c->compute_seconds()));
    (void)sum_.Add(c->change());  // checked on arrival (AddChild)
  }
  sum_.Take(*out.mutable_change());
  return out;
}

}  // namespace strads
