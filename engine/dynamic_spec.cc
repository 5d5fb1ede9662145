#include "engine/dynamic_spec.h"

#include <algorithm>
#include <cmath>

#include "engine/app.h"
#include "engine/dynamic_app.h"

namespace strads {

namespace po = boost::program_options;

namespace {
// Measured (docs/performance.md): with 4 passes and chords of 2048 a 1-worker Lasso
// job reaches 1e-6 of F* in 0.7x the time of 1 pass and chords of 1024 (daemons 0.6x), L1-LR
// 1e-3 in 0.5x; the second to fourth passes cost cache-warm arithmetic only.
constexpr uint32_t kDefaultInnerPasses = 4;
}  // namespace

po::options_description DynamicEngineOptions() {
  po::options_description d("dynamic engine (SAP)");
  d.add_options()("format", po::value<std::string>()->default_value(""),
                  "libsvm or mm (default: .mtx/.mm is mm, else libsvm)")(
      "labels", po::value<std::string>()->default_value(""),
      "MatrixMarket only: label file, one label per line")(
      "chord-size", po::value<uint32_t>()->default_value(0),
      "B: at most this many parameters updated in parallel per round (0 = by app: 2048; "
      "logistic and svm up to 4096, fewer on long columns: a worker's "
      "share about one round's fixed cost, e.g. 86 on Fashion-MNIST's ~7,300 non-zeros a "
      "column with 2 workers)")(
      "candidates", po::value<uint32_t>()->default_value(0),
      "P': candidates drawn per round (0 = 2 x chord-size; given, it keeps logistic's and "
      "svm's chords at their cap)")(
      "rho", po::value<double>(),
      "dependency threshold: chord members on different workers have |corr| <= rho (default 0.8 "
      "on dense data, at least ~30% non-zero, else 1: no filter; every round's combined step "
      "is line-searched either way)")(
      "group-rho", po::value<double>()->default_value(kDefaultGroupRho, "0.5"),
      "2+ workers: features with |corr| > this go to the same worker (updated exactly, "
      "in order) where finding them is cheap (each scheduler walks its range's shared rows at "
      "load time within a budget: sparse or small data); elsewhere, and at 1, each worker owns "
      "contiguous blocks of ids")("eta", po::value<double>()->default_value(1e-6, "1e-6"),
                                  "priority floor in p(j) ∝ |dbeta_j| + eta")(
      "schedule", po::value<std::string>()->default_value("dynamic"),
      "dynamic (SAP) | random (Shotgun) | cyclic | static")(
      "tolerance", po::value<double>()->default_value(1e-6, "1e-6"),
      "converged when max_j KKT violation <= tolerance * lambda_max")(
      "max-updates", po::value<uint64_t>()->default_value(0),
      "stop after this many updates (0 = none)")(
      "pipeline-depth", po::value<uint32_t>()->default_value(0),
      "D: rounds whose chords are out at once; a worker computes round t only after every "
      "round before it (0 = by app: 1, lasso 2)")(
      "dual-pipeline", po::bool_switch(),
      "two lanes a draw: the fresh lane (the highest-priority parameters) waits for the round "
      "before it, the stale lane (the next ones) may be computed before that round is applied "
      "(its step is always line-searched); needs --pipeline-depth 2 or more")(
      "active-worker", po::bool_switch(),
      "a chord's non-zero parameters go to one worker (for scheduler s's range worker s mod P, "
      "which holds that range's columns whole), updated there in sequence, the zero ones to "
      "their owners: correlated active features stop interfering across workers; costs that "
      "worker the range's memory")(
      "check-every", po::value<uint64_t>()->default_value(0),
      "updates between full optimality checks (0 = auto: after as many updates as there are "
      "features, or, with the dynamic schedule, sooner once the rounds since the last check "
      "took as long as it did)")(
      "trace-every", po::value<double>()->default_value(1.0, "1"),
      "seconds between trace.csv rows between checks (the exact objective, from the "
      "coordinator's replica of the shared vector)")(
      "inner-passes", po::value<uint32_t>()->default_value(0),
      "at most this many passes a worker makes over its share of a chord in one round "
      "(more exact descent, no more messages; a pass is repeated only while the one before "
      "moved a parameter by more than 1/10 of the first pass's largest move, and goes over the "
      "parameters that one moved; 0 = by app: 4, logistic and svm 8, 4 with --exact-shares)")(
      "exact-shares", po::bool_switch(),
      "exact coordinate steps in every share (logistic and svm otherwise run their "
      "shares on the loss's quadratic model with a line search, as newGLMNET: no exp per "
      "non-zero; and default to chords of 4096)")(
      "aggregation", po::value<std::string>()->default_value("star"),
      "star: every worker sends its share of a round to the coordinator and gets the shared "
      "update from it; tree: the workers combine their shares up a tree by rank and pass the "
      "shared update down it, so the coordinator handles one share and one update a round "
      "whatever the number of workers")(
      "fan-in", po::value<uint32_t>()->default_value(kDefaultFanIn),
      "--aggregation tree: children a worker at most (2-64; at least workers - 1: one level, "
      "the star's sums bit for bit)");
  return d;
}

Status DynamicSpecFromOptions(const po::variables_map& vm, proto::JobSpec& spec) {
  proto::DynamicEngineSpec& d = *spec.mutable_dynamic();
  d.set_data_format(vm["format"].as<std::string>());
  d.set_labels_path(AbsolutePath(vm["labels"].as<std::string>()));
  const uint32_t chord_size = vm["chord-size"].as<uint32_t>();
  d.set_chord_size(chord_size ? chord_size : kDefaultChordSize);
  const uint32_t candidates = vm["candidates"].as<uint32_t>();
  d.set_candidates(candidates ? candidates : 2 * d.chord_size());
  d.set_rho(vm.count("rho") ? vm["rho"].as<double>() : kDefaultDenseRho);
  d.set_rho_if_dense(!vm.count("rho"));
  d.set_group_rho(vm["group-rho"].as<double>());
  if (!(d.group_rho() > 0 && d.group_rho() <= 1)) {
    return Status::InvalidArgument("--group-rho must be in (0, 1] (1: no grouping)");
  }
  d.set_eta(vm["eta"].as<double>());
  const std::string schedule = vm["schedule"].as<std::string>();
  if (schedule == "dynamic") {
    d.set_schedule(proto::SCHEDULE_DYNAMIC);
  } else if (schedule == "random") {
    d.set_schedule(proto::SCHEDULE_RANDOM);
  } else if (schedule == "cyclic") {
    d.set_schedule(proto::SCHEDULE_CYCLIC);
  } else if (schedule == "static") {
    d.set_schedule(proto::SCHEDULE_STATIC);
  } else {
    return Status::InvalidArgument("--schedule must be dynamic, random, cyclic or static");
  }
  d.set_tolerance(vm["tolerance"].as<double>());
  d.set_max_updates(vm["max-updates"].as<uint64_t>());
  const uint32_t depth = vm["pipeline-depth"].as<uint32_t>();
  d.set_pipeline_depth(depth ? depth : 1);
  d.set_check_every(vm["check-every"].as<uint64_t>());
  const double trace_every = vm["trace-every"].as<double>();
  if (!(trace_every > 0.0) || !std::isfinite(trace_every)) {
    return Status::InvalidArgument("--trace-every must be a positive number of seconds");
  }
  d.set_trace_every_s(trace_every);
  const uint32_t passes = vm["inner-passes"].as<uint32_t>();
  d.set_inner_passes(passes ? passes : kDefaultInnerPasses);
  d.set_exact_shares(vm["exact-shares"].as<bool>());
  d.set_dual_pipeline(vm["dual-pipeline"].as<bool>());
  d.set_active_worker(vm["active-worker"].as<bool>());
  const std::string aggregation = vm["aggregation"].as<std::string>();
  if (aggregation == "star") {
    d.set_aggregation(proto::AGGREGATION_STAR);
  } else if (aggregation == "tree") {
    d.set_aggregation(proto::AGGREGATION_TREE);
  } else {
    return Status::InvalidArgument("--aggregation must be star or tree, got '" + aggregation + "'");
  }
  d.set_fan_in(vm["fan-in"].as<uint32_t>());
  return Status::Ok();
}

SharePasses SharePassesOf(const proto::DynamicEngineSpec& d, uint32_t workers) {
  SharePasses rule;
  rule.max_passes = std::max<uint32_t>(d.inner_passes(), 1);
  rule.settle = workers == 1 ? kLoneSettle : kSettle;
  return rule;
}

void SetAppDefaults(const po::variables_map& vm, const AppDefaults& defaults,
                    proto::JobSpec& spec) {
  proto::DynamicEngineSpec& d = *spec.mutable_dynamic();
  auto given = [&](const char* name) { return vm.count(name) && vm[name].as<uint32_t>() != 0; };
  if (defaults.chord_size && !given("chord-size")) {
    d.set_chord_size(defaults.chord_size);
    if (!given("candidates")) d.set_candidates(2 * defaults.chord_size);
  }
  // A given size or draw is used as given.
  d.set_chord_size_adapts(defaults.chord_size_adapts && !given("chord-size") &&
                          !given("candidates"));
  if (defaults.pipeline_depth && !given("pipeline-depth")) {
    d.set_pipeline_depth(defaults.pipeline_depth);
  }
  if (defaults.inner_passes && !given("inner-passes")) d.set_inner_passes(defaults.inner_passes);
}

bool GroupsFeatures(const proto::DynamicEngineSpec& d, uint32_t workers) {
  // With --active-worker every worker holds every column: nothing to group.
  return workers > 1 && d.group_rho() > 0 && d.group_rho() < 1 && !d.active_worker();
}

Status ValidateDynamicSpec(const proto::JobSpec& spec) {
  if (!spec.has_dynamic()) {
    return Status::InvalidArgument(spec.app() + ": the spec has no dynamic-engine parameters");
  }
  const proto::DynamicEngineSpec& d = spec.dynamic();
  const std::string& f = d.data_format();
  if (!f.empty() && f != "libsvm" && f != "mm") {
    return Status::InvalidArgument("--format must be libsvm or mm, got '" + f + "'");
  }
  if (d.chord_size() < 1 || d.chord_size() > 100000) {
    return Status::InvalidArgument("--chord-size must be in [1, 100000]");
  }
  if (d.inner_passes() > 100) {
    return Status::InvalidArgument("--inner-passes must be in [0, 100] (0 = by app)");
  }
  if (d.candidates() < 1 || d.candidates() > 1000000) {
    return Status::InvalidArgument("--candidates must be in [1, 1000000]");
  }
  if (!(d.rho() >= 0) || !std::isfinite(d.rho())) {
    return Status::InvalidArgument("--rho must be a finite number >= 0");
  }
  if (!(d.group_rho() >= 0 && d.group_rho() <= 1)) {
    return Status::InvalidArgument(
        "--group-rho must be in (0, 1] (1: no grouping; 0 in a spec: "
        "unset, none)");
  }
  if (!(d.eta() >= 0) || !std::isfinite(d.eta())) {
    return Status::InvalidArgument("--eta must be a finite number >= 0");
  }
  if (!(d.tolerance() > 0) || !std::isfinite(d.tolerance())) {
    return Status::InvalidArgument("--tolerance must be a finite number > 0");
  }
  if (d.pipeline_depth() < 1 || d.pipeline_depth() > 64) {
    return Status::InvalidArgument("--pipeline-depth must be in [1, 64]");
  }
  if (d.aggregation() == proto::AGGREGATION_TREE && (d.fan_in() < 2 || d.fan_in() > 64)) {
    return Status::InvalidArgument("--fan-in must be in [2, 64]");
  }
  if (d.dual_pipeline() && d.pipeline_depth() < 2) {
    return Status::InvalidArgument(
        "--dual-pipeline needs --pipeline-depth 2 or more (the stale lane is the round after a "
        "fresh one, out at the same time)");
  }
  return Status::Ok();
}

}  // namespace strads
