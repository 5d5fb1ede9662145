#include "cli/job_options.h"

#include <filesystem>

#include <fmt/format.h>

#include "coordinator/coordinator.h"

namespace strads {

namespace po = boost::program_options;

namespace {

enum class Engine { kDynamic, kLda, kMf, kAll };

Engine EngineOf(const std::string& app) {
  if (app == "lasso" || app == "logistic" || app == "svm") return Engine::kDynamic;
  if (app == "lda") return Engine::kLda;
  if (app == "mf") return Engine::kMf;
  return Engine::kAll;
}

po::options_description CommonOptions() {
  po::options_description d("job options (every app)");
  d.add_options()("data", po::value<std::string>(),
                  "data file: libsvm/svmlight or MatrixMarket (lasso, logistic, svm); UCI "
                  "docword.txt (lda); MatrixMarket coordinate ratings (mf)")(
      "max-seconds", po::value<double>()->default_value(0),
      "stop after this long (0 = no limit; static apps stop at the next iteration end)")(
      "schedulers", po::value<uint32_t>()->default_value(0), "schedulers to use (0 = all)")(
      "workers", po::value<uint32_t>()->default_value(0), "workers to use (0 = all)")(
      "seed", po::value<uint64_t>()->default_value(1), "random seed");
  return d;
}

po::options_description DynamicOptions() {
  po::options_description d("dynamic engine (lasso, logistic, svm)");
  d.add_options()("format", po::value<std::string>()->default_value(""),
                  "libsvm or mm (default: .mtx/.mm is mm, else libsvm)")(
      "labels", po::value<std::string>()->default_value(""),
      "MatrixMarket only: label file, one label per line")(
      "lambda", po::value<double>(), "regularisation strength lambda >= 0 (required)")(
      "chord-size", po::value<uint32_t>()->default_value(32),
      "B: at most this many parameters updated in parallel per round")(
      "candidates", po::value<uint32_t>()->default_value(0),
      "P': candidates drawn per round (0 = 2 x chord-size)")(
      "rho", po::value<double>()->default_value(0.1),
      "dependency threshold: chord members have |corr| <= rho")(
      "eta", po::value<double>()->default_value(1e-6), "priority floor in p(j) ∝ |dbeta_j| + eta")(
      "schedule", po::value<std::string>()->default_value("dynamic"),
      "dynamic (SAP) | random (Shotgun) | cyclic | static")(
      "tolerance", po::value<double>()->default_value(1e-6),
      "converged when max_j KKT violation <= tolerance * lambda_max")(
      "max-updates", po::value<uint64_t>()->default_value(0),
      "stop after this many updates (0 = none)")("pipeline-depth",
                                                 po::value<uint32_t>()->default_value(2),
                                                 "D: rounds in flight; 1 = fully synchronous")(
      "check-every", po::value<uint64_t>()->default_value(0),
      "updates between full optimality checks (0 = number of features)")(
      "loss", po::value<std::string>(), "svm: squared-hinge (the default; hinge is not supported)")(
      "penalty", po::value<std::string>(), "svm: l1 (default) | l2; lasso, logistic: l1 only")(
      "dual-pipeline", po::bool_switch(),
      "dynamic schedule with D > 1: the more impactful half of every chord waits for fresh "
      "values, the rest is computed ahead");
  return d;
}

po::options_description StaticOptions() {
  po::options_description d("static engine (lda, mf)");
  d.add_options()("iterations", po::value<uint32_t>()->default_value(30),
                  "iterations: Gibbs sweeps (lda), outer iterations or epochs (mf)")(
      "balance", po::value<std::string>()->default_value("work"),
      "work: blocks and shards of equal work (tokens, ratings); uniform: of equal size")(
      "blocks-per-worker", po::value<uint32_t>()->default_value(1),
      "K: the plan rotates P x K blocks over P workers")(
      "eval-every", po::value<uint32_t>()->default_value(1),
      "measure (a trace row) every this many iterations; always after the last");
  return d;
}

po::options_description LdaOptions() {
  po::options_description d("lda");
  d.add_options()("vocab", po::value<std::string>()->default_value(""),
                  "vocabulary, one word per line (for topics.txt; default: word ids)")(
      "topics", po::value<uint32_t>()->default_value(100), "K: number of topics (at most 1000000)")(
      "alpha", po::value<double>()->default_value(0.1), "document-topic prior (per topic)")(
      "beta", po::value<double>()->default_value(0.01), "topic-word prior (per word)")(
      "sampler", po::value<std::string>()->default_value("sparse"),
      "sparse (SparseLDA Gibbs) | mh (LightLDA Metropolis-Hastings, alias tables)");
  return d;
}

po::options_description MfOptions() {
  po::options_description d("mf");
  d.add_options()("algorithm", po::value<std::string>()->default_value("ccd"),
                  "ccd (CCD++) | sgd (stratified SGD)")(
      "test", po::value<std::string>()->default_value(""),
      "held-out ratings (MatrixMarket coordinate) for test_rmse")(
      "rank", po::value<uint32_t>()->default_value(10), "k: rank of the factors")(
      "lambda", po::value<double>()->default_value(0.1), "regularisation lambda >= 0")(
      "learning-rate", po::value<double>()->default_value(0.01),
      "sgd: eta_0; epoch t uses eta_0 / (1 + decay * t)")(
      "decay", po::value<double>()->default_value(0.1), "sgd: learning-rate decay >= 0")(
      "inner-iterations", po::value<uint32_t>()->default_value(1),
      "ccd: inner alternations per rank-one subproblem");
  return d;
}

std::string Absolute(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.string();
}

}  // namespace

po::options_description JobOptionsDescription(const std::string& app) {
  po::options_description d;
  d.add(CommonOptions());
  switch (EngineOf(app)) {
    case Engine::kDynamic:
      d.add(DynamicOptions());
      break;
    case Engine::kLda:
      d.add(StaticOptions()).add(LdaOptions());
      break;
    case Engine::kMf:
      d.add(StaticOptions()).add(MfOptions());
      break;
    case Engine::kAll: {
      // --lambda is in two groups; list the dynamic engine's once and mf's without it.
      po::options_description mf("mf");
      for (const auto& opt : MfOptions().options()) {
        if (opt->long_name() != "lambda") mf.add(opt);
      }
      d.add(DynamicOptions()).add(StaticOptions()).add(LdaOptions()).add(mf);
      break;
    }
  }
  return d;
}

Result<proto::JobSpec> ParseJobSpec(const std::string& app, const std::vector<std::string>& args,
                                    const po::options_description& extra,
                                    po::variables_map* extra_values) {
  const Engine engine = EngineOf(app);
  if (engine == Engine::kAll) {
    return Status::InvalidArgument("unknown app '" + app +
                                   "' (known apps: lasso, logistic, svm, lda, mf)");
  }
  const auto described = JobOptionsDescription(app);
  po::options_description all;
  all.add(described).add(extra);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Status::InvalidArgument(std::string(e.what()) + " (for app " + app + ")");
  }
  if (extra_values) *extra_values = vm;
  if (!vm.count("data")) return Status::InvalidArgument("--data FILE is required");
  proto::JobSpec spec;
  spec.set_app(app);
  spec.set_data_path(Absolute(vm["data"].as<std::string>()));
  spec.set_max_seconds(vm["max-seconds"].as<double>());
  spec.set_schedulers(vm["schedulers"].as<uint32_t>());
  spec.set_workers(vm["workers"].as<uint32_t>());
  spec.set_seed(vm["seed"].as<uint64_t>());

  if (engine == Engine::kDynamic) {
    if (!vm.count("lambda")) return Status::InvalidArgument("--lambda is required");
    spec.set_data_format(vm["format"].as<std::string>());
    spec.set_labels_path(Absolute(vm["labels"].as<std::string>()));
    spec.set_lambda(vm["lambda"].as<double>());
    spec.set_chord_size(vm["chord-size"].as<uint32_t>());
    const uint32_t candidates = vm["candidates"].as<uint32_t>();
    spec.set_candidates(candidates ? candidates : 2 * spec.chord_size());
    spec.set_rho(vm["rho"].as<double>());
    spec.set_eta(vm["eta"].as<double>());
    const std::string schedule = vm["schedule"].as<std::string>();
    if (schedule == "dynamic")
      spec.set_schedule(proto::SCHEDULE_DYNAMIC);
    else if (schedule == "random")
      spec.set_schedule(proto::SCHEDULE_RANDOM);
    else if (schedule == "cyclic")
      spec.set_schedule(proto::SCHEDULE_CYCLIC);
    else if (schedule == "static")
      spec.set_schedule(proto::SCHEDULE_STATIC);
    else
      return Status::InvalidArgument("--schedule must be dynamic, random, cyclic or static");
    spec.set_tolerance(vm["tolerance"].as<double>());
    spec.set_max_updates(vm["max-updates"].as<uint64_t>());
    spec.set_pipeline_depth(vm["pipeline-depth"].as<uint32_t>());
    spec.set_check_every(vm["check-every"].as<uint64_t>());
    spec.set_dual_pipeline(vm["dual-pipeline"].as<bool>());
    if (vm.count("loss")) spec.set_loss(vm["loss"].as<std::string>());
    if (vm.count("penalty")) spec.set_penalty(vm["penalty"].as<std::string>());
  } else {
    spec.set_iterations(vm["iterations"].as<uint32_t>());
    spec.set_balance(vm["balance"].as<std::string>());
    spec.set_blocks_per_worker(vm["blocks-per-worker"].as<uint32_t>());
    spec.set_eval_every(vm["eval-every"].as<uint32_t>());
    if (spec.blocks_per_worker() < 1) {
      return Status::InvalidArgument("--blocks-per-worker must be >= 1");
    }
  }
  if (engine == Engine::kLda) {
    spec.set_vocab_path(Absolute(vm["vocab"].as<std::string>()));
    spec.set_topics(vm["topics"].as<uint32_t>());
    spec.set_alpha(vm["alpha"].as<double>());
    spec.set_beta(vm["beta"].as<double>());
    spec.set_sampler(vm["sampler"].as<std::string>());
  }
  if (engine == Engine::kMf) {
    spec.set_algorithm(vm["algorithm"].as<std::string>());
    spec.set_test_path(Absolute(vm["test"].as<std::string>()));
    spec.set_rank(vm["rank"].as<uint32_t>());
    spec.set_lambda(vm["lambda"].as<double>());
    spec.set_learning_rate(vm["learning-rate"].as<double>());
    spec.set_decay(vm["decay"].as<double>());
    spec.set_inner_iterations(vm["inner-iterations"].as<uint32_t>());
  }

  for (const auto& opt : described.options()) {
    const std::string& name = opt->long_name();
    if (!vm.count(name)) continue;
    const auto& v = vm[name].value();
    std::string text;
    if (auto* s = boost::any_cast<std::string>(&v))
      text = *s;
    else if (auto* d = boost::any_cast<double>(&v))
      text = fmt::format("{}", *d);
    else if (auto* u = boost::any_cast<uint32_t>(&v))
      text = std::to_string(*u);
    else if (auto* b = boost::any_cast<bool>(&v))
      text = *b ? "true" : "false";
    else if (auto* u64 = boost::any_cast<uint64_t>(&v))
      text = std::to_string(*u64);
    (*spec.mutable_flags())[name] = text;
  }
  STRADS_RETURN_IF_ERROR(ValidateJobSpec(spec));
  return spec;
}

}  // namespace strads
