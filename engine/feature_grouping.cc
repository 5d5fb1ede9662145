#include "engine/feature_grouping.h"

#include <chrono>

#include <fmt/format.h>

#include "common/partitioner.h"
#include "engine/dynamic_spec.h"

namespace strads {

NeighbourLists::Budget GroupingBudget() {
  NeighbourLists::Budget budget;
  budget.max_work /= 4;
  budget.max_entries /= 4;
  budget.allow_dense = false;
  return budget;
}

bool GroupingMayFit(uint64_t rows, uint64_t nonzeros, NeighbourLists::Budget budget) {
  if (rows == 0) return true;
  const double nnz = static_cast<double>(nonzeros);
  const double least_work = (nnz * nnz / static_cast<double>(rows) - nnz) / 2;
  return least_work <= static_cast<double>(budget.max_work);
}

bool MayGroupRange(const proto::DynamicEngineSpec& spec, uint32_t workers, uint64_t rows,
                   std::span<const uint64_t> counts, ColumnRange range) {
  if (!GroupsFeatures(spec, workers)) return false;
  uint64_t nonzeros = 0;
  for (uint64_t j = range.begin; j < range.end; ++j) nonzeros += counts[j];
  return GroupingMayFit(rows, nonzeros, GroupingBudget());
}

Result<FeatureGroups> GroupFeatures(const ColumnStore& store, std::span<const uint64_t> weights,
                                    uint32_t workers, double rho, NeighbourLists::Budget budget) {
  STRADS_ASSIGN_OR_RETURN(auto lists, NeighbourLists::Build(store, rho, budget));
  const uint64_t n = store.end() - store.first();
  FeatureGroups out;
  out.owners.assign(n, 0);
  out.pairs = lists.entries() / 2;
  if (workers <= 1 || n == 0) return out;

  // Each connected component in turn, from its least id, breadth first (neighbours in ascending
  // order): a component is one contiguous stretch of the order, and neighbours are near each
  // other within it.
  std::vector<uint32_t> order;
  order.reserve(n);
  std::vector<char> seen(n, 0);
  for (uint64_t start = 0; start < n; ++start) {
    if (seen[start]) continue;
    seen[start] = 1;
    size_t head = order.size();
    order.push_back(static_cast<uint32_t>(start));
    while (head < order.size()) {
      const uint32_t a = order[head++];
      for (const uint32_t b : lists.Of(store.first() + a)) {
        if (!seen[b]) {
          seen[b] = 1;
          order.push_back(b);
        }
      }
    }
  }
  std::vector<uint64_t> ordered_weights(n);
  for (uint64_t k = 0; k < n; ++k) ordered_weights[k] = weights[order[k]];
  const std::vector<uint64_t> cut = PartitionByWeight(ordered_weights, workers);
  for (uint32_t w = 0; w < workers; ++w) {
    for (uint64_t k = cut[w]; k < cut[w + 1]; ++k) out.owners[order[k]] = w;
  }
  for (uint64_t a = 0; a < n; ++a) {
    for (const uint32_t b : lists.Of(store.first() + a)) {
      if (b > a && out.owners[a] != out.owners[b]) ++out.cut_pairs;
    }
  }
  return out;
}

std::string GroupRange(const SparseColMatrix& x, std::span<const uint64_t> weights, double rho,
                       uint32_t s, ColumnOwners& owners) {
  const ColumnRange range = owners.RangeOf(s);
  const auto start = std::chrono::steady_clock::now();
  const ColumnStore store(x, range.begin, range.end);
  auto groups = GroupFeatures(store, weights.subspan(range.begin, range.end - range.begin),
                              owners.workers(), rho, GroupingBudget());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!groups.ok()) {
    return fmt::format("parameters [{}, {}): contiguous blocks, no grouping ({})", range.begin,
                       range.end, groups.status().message());
  }
  if (groups->pairs == 0) {
    return fmt::format("parameters [{}, {}): contiguous blocks, no pair with |corr| > {}",
                       range.begin, range.end, rho);
  }
  if (Status st = owners.Group(s, std::move(groups->owners)); !st.ok()) return st.message();
  return fmt::format(
      "parameters [{}, {}) grouped over {} workers: {} pairs with |corr| > {}, {} of them split "
      "({:.2f} s)",
      range.begin, range.end, owners.workers(), groups->pairs, rho, groups->cut_pairs, seconds);
}

}  // namespace strads
