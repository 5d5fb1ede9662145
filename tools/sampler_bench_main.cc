// strads-sampler-bench: times the SAP priority sampler (engine/priority_sampler.h) on the work of
// one scheduler round, without messages or data:
//   1. draw `--draw` candidates by priority (TakeSystematic: they leave the tree at weight 0),
//   2. give the `--draw - --chord` of them that a chord would not take their weight back,
//   3. commit the chord: its members get new weights (|delta| + eta), as ChordBuilder::OnCommit
//      does a round later.
// The weights mimic a Lasso run: `--heavy` distinct indices carry `--heavy-mass` of the total
// weight at the start, the others share the rest (eta); a committed parameter gets the heavy
// weight with probability 0.05, so the heavy share drifts over the rounds to what that rate keeps.
// Prints microseconds per round for the draw and for the two weight updates, and draws per
// second. The paper's shape (1,000,000 features, a chord of 2048 from 4096 candidates) is the
// default. A benchmark, not a test: it checks nothing.
//
// With --builder it times the scheduler's whole round instead (scheduler/chord_builder.h): the
// chord (ChordBuilder::Next: pending weights, the draw, the selection by priority, the ids in
// index order, the in-flight marks) and the commit of each of its parameters (OnCommit), over a
// partition of `--size` parameters as the scheduler builds them by default (no dependency filter,
// rho = 1; index order). With
// --after-check as well, every round follows an optimality check, as where the coordinator checks
// after each round (small problems): every parameter gets a new priority (OnCheckAll, which also
// rebuilds the sum tree, timed inside Next before f9b6b8c: compare the two figures' sum across
// versions; `--heavy` of them a violation drawn from a wide range, the others none), then the
// chord is built from them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "engine/dependency_filter.h"
#include "engine/priority_sampler.h"
#include "scheduler/chord_builder.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

namespace {

using Clock = std::chrono::steady_clock;

// The scheduler's round: Next() builds a chord of `chord` from `draw` candidates, then every
// member is committed, 5 % of them with a large change (they stay likely to be drawn again).
int BenchBuilder(size_t size, size_t draw, size_t chord, size_t heavy, size_t rounds, uint64_t seed,
                 bool after_check) {
  const strads::ColumnStore store(0, size, 450, std::vector<double>(size, 1.0));
  strads::ChordPolicy policy;
  policy.chord_size = static_cast<uint32_t>(chord);
  policy.candidates = static_cast<uint32_t>(draw);
  policy.rho = 1.0;
  policy.index_order = true;
  policy.eta = 1e-6;
  policy.seed = seed;
  strads::ChordBuilder builder(store, policy);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, size - 1);
  for (size_t h = 0; h < heavy; ++h) builder.OnCheck(pick(rng), 1.0);  // violators of a check
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::chrono::duration<double> check_time{0}, next_time{0}, commit_time{0};
  uint64_t members = 0;
  // A check's violations: `heavy` parameters (a fresh random set each check) violate by 10^u,
  // u uniform in [-4, 0]; the others not at all.
  std::vector<double> violation(size, 0.0);
  std::uniform_real_distribution<double> exponent(-4.0, 0.0);
  for (size_t r = 0; r < rounds; ++r) {
    if (after_check) {
      std::fill(violation.begin(), violation.end(), 0.0);
      for (size_t h = 0; h < heavy; ++h) violation[pick(rng)] = std::pow(10.0, exponent(rng));
      const auto c0 = Clock::now();
      builder.OnCheckAll(violation);  // as DynamicSchedulerJob::MaybeFinishCheck
      check_time += Clock::now() - c0;
    }
    const auto t0 = Clock::now();
    const std::vector<uint64_t> ids = builder.Next();
    const auto t1 = Clock::now();
    // As DynamicSchedulerJob::HandleCommit, without its write of the value.
    for (size_t k = 0; k < ids.size(); ++k) {
      const size_t ahead = k + strads::ChordBuilder::kCommitsAhead;
      if (ahead < ids.size()) builder.PrefetchCommit(ids[ahead]);
      builder.OnCommit(ids[k], unit(rng) < 0.05 ? 0.1 : 0.0);
    }
    const auto t2 = Clock::now();
    next_time += t1 - t0;
    commit_time += t2 - t1;
    members += ids.size();
  }
  const double per_round = 1e6 / static_cast<double>(rounds);
  std::cout << fmt::format(
      "builder: size {} draw {} chord {} (mean {:.0f} members), {} rounds\n"
      "{}Next (the chord): {:.1f} us a round\nOnCommit of its members: {:.1f} us a round\n",
      size, draw, chord, static_cast<double>(members) / static_cast<double>(rounds), rounds,
      after_check ? fmt::format("OnCheckAll (every parameter): {:.1f} us a round\n",
                                check_time.count() * per_round)
                  : std::string(),
      next_time.count() * per_round, commit_time.count() * per_round);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  size_t size = 1'000'000, draw = 4096, chord = 2048, heavy = 400, rounds = 2000;
  double heavy_mass = 0.5;
  uint64_t seed = 1;
  po::options_description desc("strads-sampler-bench options");
  desc.add_options()("help", "show this help")("size", po::value(&size)->default_value(size),
                                               "indices in the sampler (features)")(
      "draw", po::value(&draw)->default_value(draw), "candidates drawn a round")(
      "chord", po::value(&chord)->default_value(chord), "of those, committed a round")(
      "heavy", po::value(&heavy)->default_value(heavy), "indices of large weight")(
      "heavy-mass", po::value(&heavy_mass)->default_value(heavy_mass),
      "their share of the total weight, in (0, 1)")(
      "rounds", po::value(&rounds)->default_value(rounds), "rounds timed")(
      "seed", po::value(&seed)->default_value(seed), "random seed")(
      "builder", "time the scheduler's round (ChordBuilder::Next and OnCommit) instead")(
      "after-check", "with --builder: every round follows an optimality check (OnCheck of all)");
  po::variables_map vm;
  if (auto code = strads::tools::ParseToolFlags(argc, argv, desc, "strads-sampler-bench",
                                                "strads-sampler-bench --help", &vm)) {
    return *code;
  }
  if (size == 0 || draw == 0 || chord == 0 || chord > draw || heavy >= size || rounds == 0 ||
      !(heavy_mass > 0) || !(heavy_mass < 1)) {
    std::cerr << "strads-sampler-bench: need size > heavy, 0 < chord <= draw, rounds > 0, "
                 "0 < heavy-mass < 1\n";
    return 2;
  }
  if (vm.count("after-check") && !vm.count("builder")) {
    std::cerr << "strads-sampler-bench: --after-check needs --builder\n";
    return 2;
  }
  if (vm.count("builder")) {
    return BenchBuilder(size, draw, chord, heavy, rounds, seed, vm.count("after-check") > 0);
  }
  std::mt19937_64 rng(seed);
  const double eta = 1.0;
  const double heavy_weight = heavy > 0 ? heavy_mass / (1 - heavy_mass) *
                                              static_cast<double>(size - heavy) * eta /
                                              static_cast<double>(heavy)
                                        : eta;
  strads::PrioritySampler sampler(size, eta);
  std::uniform_int_distribution<size_t> pick(0, size - 1);
  for (size_t placed = 0; placed < heavy;) {  // distinct indices
    const size_t i = pick(rng);
    if (sampler.Get(i) == eta) {
      sampler.Set(i, heavy_weight);
      ++placed;
    }
  }

  std::chrono::duration<double> draw_time{0}, set_time{0};
  std::vector<double> weights;
  std::vector<size_t> ids;
  std::vector<double> new_weights;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  uint64_t drawn_total = 0;
  for (size_t r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    std::vector<size_t> drawn = sampler.TakeSystematic(draw, rng, weights);
    const auto t1 = Clock::now();
    drawn_total += drawn.size();
    // The candidates past the chord get their weight back; the chord's get new ones.
    const size_t kept = std::min(chord, drawn.size());
    ids.assign(drawn.begin() + static_cast<std::ptrdiff_t>(kept), drawn.end());
    new_weights.assign(weights.begin() + static_cast<std::ptrdiff_t>(kept), weights.end());
    for (size_t k = 0; k < kept; ++k) {
      ids.push_back(drawn[k]);
      new_weights.push_back(unit(rng) < 0.05 ? heavy_weight : eta);
    }
    const auto t2 = Clock::now();
    sampler.SetMany(ids, new_weights);
    const auto t3 = Clock::now();
    draw_time += t1 - t0;
    set_time += t3 - t2;
  }
  const double per_round = 1e6 / static_cast<double>(rounds);
  std::cout << fmt::format(
      "size {} draw {} chord {} heavy {} ({:.0f} % of the weight at the start), {} rounds\n"
      "draw (TakeSystematic): {:.1f} us a round, {:.2f} M draws/s\n"
      "weights back and commit (SetMany of {}): {:.1f} us a round\n",
      size, draw, chord, heavy, 100 * heavy_mass, rounds, draw_time.count() * per_round,
      static_cast<double>(drawn_total) / draw_time.count() / 1e6, draw,
      set_time.count() * per_round);
  return 0;
}
