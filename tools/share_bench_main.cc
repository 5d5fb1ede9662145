// strads-share-bench: times a column-layout worker's share of a chord (ColumnModel::Update, the
// largest item of a dynamic-engine round on a worker; engine/dynamic_app.h), without messages.
//
//   strads-share-bench APP JOB-FLAGS... [--columns C] [--share N] [--rounds R] [--warmup W]
//                      [--bench-seed S]
//
// The job flags are those of `strads run APP` (--data, --lambda, --inner-passes, --exact-shares,
// --workers: 2 or more for the several-worker rule of the passes, ...). The worker holds columns
// [0, C) of the data and every row, as one worker of a column layout does. Each round it takes a
// share of N of its columns, those its shares have moved first (in random order), then others at
// random, as a chord drawn by priority does once the active set is found; the ids go in index order
// (a chord's default). It updates them (timed), then adds its own change to its replica
// (ApplyShared), as if it were the only worker. Prints the mean and median microseconds of a share
// over the rounds after the first W, updates and non-zeros visited per second of the first pass,
// and the loss at the end (ExactLoss, so runs with other settings can be compared). A benchmark,
// not a test: it checks nothing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "apps/builtin_apps.h"
#include "common/column_selection.h"
#include "common/data_loader.h"
#include "common/memory_budget.h"
#include "engine/dynamic_app.h"
#include "engine/job_spec.h"
#include "engine/vector_delta.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  const char* const kName = "strads-share-bench";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout
        << "usage: " << kName
        << " APP JOB-FLAGS... [--columns C] [--share N] [--rounds R] [--warmup W] [--bench-seed S]"
           "\n(see the comment at the top of tools/share_bench_main.cc)\n";
    return argc < 2 ? 2 : 0;
  }
  uint64_t columns = 0, share = 2048, rounds = 40, warmup = 8, seed = 1;
  po::options_description extra("bench");
  extra.add_options()("columns", po::value(&columns)->default_value(0),
                      "columns [0, C) held (0 = half of the data's)")(
      "share", po::value(&share)->default_value(2048), "parameters a share")(
      "rounds", po::value(&rounds)->default_value(40), "shares timed, after --warmup")(
      "warmup", po::value(&warmup)->default_value(8), "shares before the timed ones")(
      "bench-seed", po::value(&seed)->default_value(1), "seed of the share's draw");
  const strads::AppRegistry apps = strads::BuiltinApps();
  const std::string app_name = argv[1];
  po::variables_map extra_values;
  auto spec = strads::ParseJobSpec(apps, app_name, std::vector<std::string>(argv + 2, argv + argc),
                                   extra, &extra_values);
  if (!spec.ok()) {
    std::cerr << kName << ": " << spec.status().message() << "\n";
    return 2;
  }
  auto app = apps.FindDynamic(app_name);
  if (!app.ok()) {
    std::cerr << kName << ": " << app.status().message() << "\n";
    return 2;
  }
  const strads::DataSource source{spec->data_path(), spec->dynamic().data_format(),
                                  spec->dynamic().labels_path()};
  uint64_t rows = 0;
  auto counts = strads::CountColumnEntries(source, strads::AvailableMemoryBytes(), nullptr, &rows);
  if (!counts.ok()) {
    std::cerr << kName << ": " << counts.status().message() << "\n";
    return 1;
  }
  if (columns == 0 || columns > counts->size()) columns = (counts->size() + 1) / 2;
  const strads::ColumnRange held{0, columns};
  auto data =
      strads::LoadColumns(source, std::span<const strads::ColumnRange>(&held, 1), *counts, rows);
  if (!data.ok()) {
    std::cerr << kName << ": " << data.status().message() << "\n";
    return 1;
  }
  auto model = (*app)->MakeColumnModel(std::move(*data), *spec);
  if (!model.ok()) {
    std::cerr << kName << ": " << model.status().message() << "\n";
    return 2;
  }
  strads::ColumnModel& m = **model;
  share = std::min<uint64_t>(share, columns);
  std::mt19937_64 rng(seed);
  std::vector<double> value(columns, 0.0);
  std::vector<uint64_t> order(columns);
  strads::DeltaAccumulator change(m.shared_size());
  std::vector<double> micros;
  uint64_t first_pass_nonzeros = 0;
  for (uint64_t round = 0; round < warmup + rounds; ++round) {
    std::iota(order.begin(), order.end(), uint64_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    std::stable_partition(order.begin(), order.end(), [&](uint64_t j) { return value[j] != 0.0; });
    std::vector<uint64_t> ids(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(share));
    std::sort(ids.begin(), ids.end());
    std::vector<double> values, updated;
    for (uint64_t j : ids) values.push_back(value[j]);
    const auto t0 = std::chrono::steady_clock::now();
    m.Update(ids, values, updated, change);
    const auto t1 = std::chrono::steady_clock::now();
    if (round >= warmup) {
      micros.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      for (uint64_t j : ids) first_pass_nonzeros += (*counts)[j];
    }
    for (size_t k = 0; k < ids.size(); ++k) value[ids[k]] = updated[k];
    strads::proto::VectorDelta delta;
    change.Take(delta);
    m.ApplyShared(delta);
  }
  std::vector<double> sorted = micros;
  std::sort(sorted.begin(), sorted.end());
  const double total = std::accumulate(micros.begin(), micros.end(), 0.0);
  const double mean = micros.empty() ? 0.0 : total / static_cast<double>(micros.size());
  const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
  std::map<std::string, double> metrics;
  m.Metrics(metrics);
  std::cout << fmt::format(
      "{} {}: {} rows x {} columns held, shares of {}: mean {:.1f} us, median {:.1f} us a share "
      "({} timed after {}); {:.3g} updates/s, {:.3g} first-pass non-zeros/s; loss at the end "
      "{:.10g}",
      kName, app_name, m.shared_size(), columns, share, mean, median, micros.size(), warmup,
      total > 0 ? 1e6 * static_cast<double>(share * micros.size()) / total : 0.0,
      total > 0 ? 1e6 * static_cast<double>(first_pass_nonzeros) / total : 0.0, m.ExactLoss());
  for (const char* key : {"model_shares", "exact_fallbacks"}) {
    if (metrics.count(key)) std::cout << fmt::format(", {} {}", key, metrics[key]);
  }
  std::cout << "\n";
  return 0;
}
