// strads-filter-bench: times the dependency filter (engine/dependency_filter.h) on a data set's
// columns, the row index against the dense one, without messages.
//
//   strads-filter-bench --data FILE [--candidates C] [--keep B] [--running R] [--rho RHO]
//                       [--groups G] [--rounds N] [--seed S]
//
// Each round draws C distinct candidates and R running parameters uniformly from every column
// (a dynamic schedule draws by priority; uniform draws have the same cost per candidate), splits
// the columns into G contiguous groups (the workers' blocks), and runs Filter(candidates, RHO, B,
// running) with each index. Prints the mean microseconds a call and the mean kept size for each
// (the kept sets are compared: each index stops at its own work bound, so the shorter must begin
// the longer). A benchmark: it checks only that.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "common/data_loader.h"
#include "engine/dependency_filter.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  std::string path;
  uint64_t candidates = 64, keep = 32, running = 32, groups = 2, rounds = 200, seed = 1;
  double rho = 0.5;
  po::options_description desc("strads-filter-bench options");
  desc.add_options()("help", "show this help")("data", po::value(&path), "libsvm or .mtx file")(
      "candidates", po::value(&candidates)->default_value(candidates), "candidates a call")(
      "keep", po::value(&keep)->default_value(keep), "at most this many kept (the chord size)")(
      "running", po::value(&running)->default_value(running), "parameters in flight")(
      "rho", po::value(&rho)->default_value(rho), "the filter's threshold")(
      "groups", po::value(&groups)->default_value(groups), "contiguous groups (workers)")(
      "rounds", po::value(&rounds)->default_value(rounds), "calls timed")(
      "seed", po::value(&seed)->default_value(seed), "random seed");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "strads-filter-bench: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (vm.count("help") || path.empty()) {
    std::cout << desc << "\n";
    return vm.count("help") ? 0 : 2;
  }
  auto data = strads::LoadDataset(strads::DataSource{path, "", ""}, strads::RowRange{});
  if (!data.ok()) {
    std::cerr << "strads-filter-bench: " << data.status().message() << "\n";
    return 1;
  }
  const auto cols = static_cast<uint64_t>(data->x.cols());
  if (candidates + running > cols || groups < 1) {
    std::cerr << "strads-filter-bench: candidates + running exceed the " << cols
              << " columns, or no groups\n";
    return 2;
  }
  const strads::ColumnStore store(data->x, 0, cols);
  std::vector<uint32_t> group(cols);
  for (uint64_t j = 0; j < cols; ++j) group[j] = static_cast<uint32_t>(j * groups / cols);
  using Kind = strads::DependencyFilter::IndexKind;
  struct Side {
    const char* name;
    Kind kind;
    double micros = 0;
    uint64_t kept = 0;
  };
  std::vector<Side> sides = {{"rows", Kind::kRows}, {"dense", Kind::kDense}};
  std::vector<strads::DependencyFilter> filters;
  for (const Side& side : sides) {
    filters.emplace_back(store);
    filters.back().SetIndexKind(side.kind);
    if (groups > 1) filters.back().SetGroups(group);
  }
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> ids(cols);
  for (uint64_t round = 0; round < rounds; ++round) {
    std::iota(ids.begin(), ids.end(), uint64_t{0});
    for (uint64_t k = 0; k < candidates + running; ++k) {
      std::swap(ids[k], ids[k + rng() % (cols - k)]);
    }
    const std::span<const uint64_t> run(ids.data(), running);
    const std::span<const uint64_t> cand(ids.data() + running, candidates);
    std::vector<uint64_t> first;
    for (size_t s = 0; s < sides.size(); ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto kept = filters[s].Filter(cand, rho, keep, run);
      sides[s].micros +=
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      sides[s].kept += kept.size();
      if (s == 0) {
        first = kept;
      } else {
        // Each stops at its own work bound: the shorter set must begin the longer one.
        const size_t common = std::min(kept.size(), first.size());
        if (!std::equal(kept.begin(), kept.begin() + common, first.begin())) {
          std::cerr << "strads-filter-bench: the indexes kept different sets in round " << round
                    << "\n";
          return 1;
        }
      }
    }
  }
  std::cout << fmt::format(
      "{} x {} ({:.0f}% non-zero); {} candidates, keep <= {}, {} running, "
      "rho {}, {} groups, {} calls\n",
      data->x.rows(), cols, 100 * store.density(), candidates, keep, running, rho, groups, rounds);
  for (const Side& side : sides) {
    std::cout << fmt::format("  {:5}: {:9.1f} us a call, {:.1f} kept\n", side.name,
                             side.micros / double(rounds), double(side.kept) / double(rounds));
  }
  return 0;
}
