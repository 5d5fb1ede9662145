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
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "engine/priority_sampler.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

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
      "seed", po::value(&seed)->default_value(seed), "random seed");
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

  using Clock = std::chrono::steady_clock;
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
    ids.assign(drawn.begin() + static_cast<std::ptrdiff_t>(std::min(chord, drawn.size())),
               drawn.end());
    new_weights.assign(weights.begin() + static_cast<std::ptrdiff_t>(std::min(chord, drawn.size())),
                       weights.end());
    for (size_t k = 0; k < std::min(chord, drawn.size()); ++k) {
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
