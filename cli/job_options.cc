#include "cli/job_options.h"

#include <filesystem>

#include <fmt/format.h>

#include "coordinator/coordinator.h"

namespace strads {

namespace po = boost::program_options;

po::options_description JobOptionsDescription() {
  po::options_description d("job options");
  d.add_options()("data", po::value<std::string>(), "data file (libsvm/svmlight or MatrixMarket)")(
      "format", po::value<std::string>()->default_value(""),
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
      "stop after this many updates (0 = none)")(
      "max-seconds", po::value<double>()->default_value(0), "stop after this long (0 = no limit)")(
      "pipeline-depth", po::value<uint32_t>()->default_value(2),
      "D: rounds in flight; 1 = fully synchronous")(
      "check-every", po::value<uint64_t>()->default_value(0),
      "updates between full optimality checks (0 = number of features)")(
      "schedulers", po::value<uint32_t>()->default_value(0), "schedulers to use (0 = all)")(
      "workers", po::value<uint32_t>()->default_value(0), "workers to use (0 = all)")(
      "seed", po::value<uint64_t>()->default_value(1), "random seed")(
      "loss", po::value<std::string>(), "svm: squared-hinge (the default; hinge is not supported)")(
      "penalty", po::value<std::string>(), "svm: l1 (default) | l2; lasso, logistic: l1 only")(
      "dual-pipeline", po::bool_switch(),
      "dynamic schedule with D > 1: the more impactful half of every chord waits for fresh "
      "values, the rest is computed ahead");
  return d;
}

Result<proto::JobSpec> ParseJobSpec(const std::string& app, const std::vector<std::string>& args,
                                    const po::options_description& extra,
                                    po::variables_map* extra_values) {
  po::options_description all;
  all.add(JobOptionsDescription()).add(extra);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Status::InvalidArgument(e.what());
  }
  if (extra_values) *extra_values = vm;
  if (!vm.count("data")) return Status::InvalidArgument("--data FILE is required");
  if (!vm.count("lambda")) return Status::InvalidArgument("--lambda is required");
  proto::JobSpec spec;
  spec.set_app(app);
  std::error_code ec;
  auto data = std::filesystem::absolute(vm["data"].as<std::string>(), ec);
  spec.set_data_path(ec ? vm["data"].as<std::string>() : data.string());
  spec.set_data_format(vm["format"].as<std::string>());
  if (const auto& labels = vm["labels"].as<std::string>(); !labels.empty()) {
    spec.set_labels_path(std::filesystem::absolute(labels, ec).string());
  }
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
  spec.set_max_seconds(vm["max-seconds"].as<double>());
  spec.set_pipeline_depth(vm["pipeline-depth"].as<uint32_t>());
  spec.set_check_every(vm["check-every"].as<uint64_t>());
  spec.set_schedulers(vm["schedulers"].as<uint32_t>());
  spec.set_workers(vm["workers"].as<uint32_t>());
  spec.set_seed(vm["seed"].as<uint64_t>());
  spec.set_dual_pipeline(vm["dual-pipeline"].as<bool>());
  if (vm.count("loss")) spec.set_loss(vm["loss"].as<std::string>());
  if (vm.count("penalty")) spec.set_penalty(vm["penalty"].as<std::string>());
  const auto described = JobOptionsDescription();
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
