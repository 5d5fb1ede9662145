#include "engine/job_spec.h"

#include <cmath>

#include <fmt/format.h>

#include "common/data_loader.h"
#include "common/line_reader.h"
#include "engine/dynamic_app.h"
#include "engine/dynamic_spec.h"
#include "engine/static_spec.h"

namespace strads {

namespace po = boost::program_options;

namespace {

po::options_description EngineOptions(proto::Engine engine) {
  return engine == proto::ENGINE_DYNAMIC ? DynamicEngineOptions() : StaticEngineOptions();
}

// `group` without the options `into` already has (apps share names such as --lambda), under
// `caption`.
po::options_description Unlisted(const po::options_description& group,
                                 const po::options_description& into, const std::string& caption) {
  po::options_description rest(caption);
  for (const auto& option : group.options()) {
    if (!into.find_nothrow(option->long_name(), false)) rest.add(option);
  }
  return rest;
}

// The value of a parsed option as text, for summary.json's flags.
std::string OptionText(const boost::any& value) {
  if (auto* s = boost::any_cast<std::string>(&value)) return *s;
  if (auto* d = boost::any_cast<double>(&value)) return fmt::format("{}", *d);
  if (auto* u = boost::any_cast<uint32_t>(&value)) return std::to_string(*u);
  if (auto* b = boost::any_cast<bool>(&value)) return *b ? "true" : "false";
  if (auto* u64 = boost::any_cast<uint64_t>(&value)) return std::to_string(*u64);
  return "";
}

}  // namespace

po::options_description CommonJobOptions() {
  po::options_description d("job options (every app)");
  d.add_options()("data", po::value<std::string>(),
                  "data file: libsvm/svmlight or MatrixMarket (lasso, logistic, svm); UCI "
                  "docword.txt (lda); MatrixMarket coordinate ratings (mf)")(
      "max-seconds", po::value<double>()->default_value(0),
      "stop after this long (0 = no limit; static apps stop at the next iteration end)")(
      "schedulers", po::value<uint32_t>()->default_value(0), "schedulers to use (0 = all)")(
      "workers", po::value<uint32_t>()->default_value(0), "workers to use (0 = all)")(
      "seed", po::value<uint64_t>()->default_value(1), "random seed")(
      "checkpoint-every", po::value<double>()->default_value(30),
      "seconds between checkpoints of the model state, kept in the coordinator's work dir "
      "(0 = none: a lost member restarts the job from scratch)")(
      "recovery-wait", po::value<double>()->default_value(10),
      "after a member is lost, seconds to wait for as many members as the job had before "
      "re-planning over the ones left")(
      "max-recoveries", po::value<uint32_t>()->default_value(3),
      "member losses (or coordinator restarts) a job survives; one more fails it (0 = none)");
  return d;
}

po::options_description JobOptionsDescription(const AppRegistry& apps, const std::string& app) {
  po::options_description d;
  d.add(CommonJobOptions());
  if (auto found = apps.Find(app); found.ok()) {
    d.add(EngineOptions((*found)->engine())).add((*found)->Options());
    return d;
  }
  d.add(DynamicEngineOptions()).add(StaticEngineOptions());
  for (const auto& each : apps.apps()) d.add(Unlisted(each->Options(), d, each->name()));
  return d;
}

Result<proto::JobSpec> ParseJobSpec(const AppRegistry& apps, const std::string& app,
                                    const std::vector<std::string>& args,
                                    const po::options_description& extra,
                                    po::variables_map* extra_values) {
  STRADS_ASSIGN_OR_RETURN(auto found, apps.Find(app));
  const App& the_app = *found;
  const auto described = JobOptionsDescription(apps, app);
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
  spec.set_data_path(AbsolutePath(vm["data"].as<std::string>()));
  spec.set_max_seconds(vm["max-seconds"].as<double>());
  spec.set_schedulers(vm["schedulers"].as<uint32_t>());
  spec.set_workers(vm["workers"].as<uint32_t>());
  spec.set_seed(vm["seed"].as<uint64_t>());
  spec.mutable_recovery()->set_checkpoint_every_s(vm["checkpoint-every"].as<double>());
  spec.mutable_recovery()->set_recovery_wait_s(vm["recovery-wait"].as<double>());
  spec.mutable_recovery()->set_max_recoveries(vm["max-recoveries"].as<uint32_t>());
  STRADS_RETURN_IF_ERROR(the_app.engine() == proto::ENGINE_DYNAMIC
                             ? DynamicSpecFromOptions(vm, spec)
                             : StaticSpecFromOptions(vm, spec));
  STRADS_RETURN_IF_ERROR(the_app.FromOptions(vm, spec));
  for (const auto& option : described.options()) {
    const std::string& name = option->long_name();
    if (vm.count(name)) (*spec.mutable_flags())[name] = OptionText(vm[name].value());
  }
  STRADS_RETURN_IF_ERROR(ValidateJobSpec(apps, spec));
  return spec;
}

Status CheckJobSpecLimits(const AppRegistry& apps, const proto::JobSpec& spec) {
  auto too_long = [](const std::string& what, size_t size, size_t limit, const char* of) {
    return Status::InvalidArgument(
        fmt::format("{} is {} bytes long: at most {} (the limit on {})", what, size, limit, of));
  };
  if (spec.app().size() > kMaxJobNameBytes) {
    return too_long("the app name", spec.app().size(), kMaxJobNameBytes, "an app name");
  }
  // Before the paths: an oversized spec's app parameters are not even parsed.
  const size_t bytes = spec.ByteSizeLong();
  if (bytes > kMaxJobSpecBytes) {
    return too_long("the job spec", bytes, kMaxJobSpecBytes, "a job spec, serialized");
  }
  for (const std::string& path : JobSpecPaths(apps, spec)) {
    if (path.size() > kMaxJobPathBytes) {
      const std::string which =
          path == spec.data_path() ? std::string("--data") : "a file path (" + Excerpt(path) + ")";
      return too_long(which, path.size(), kMaxJobPathBytes, "a path in a job spec");
    }
  }
  if (static_cast<size_t>(spec.flags_size()) > kMaxJobFlags) {
    return Status::InvalidArgument(
        fmt::format("the job spec records {} flags: at most {} (the limit on flags in a job spec)",
                    spec.flags_size(), kMaxJobFlags));
  }
  for (const auto& [name, value] : spec.flags()) {
    if (name.size() + value.size() > kMaxJobFlagBytes) {
      return too_long("a recorded flag (" + Excerpt(name) + ")", name.size() + value.size(),
                      kMaxJobFlagBytes, "a flag in a job spec");
    }
  }
  for (const auto& [count, flag] :
       {std::pair{spec.schedulers(), "--schedulers"}, std::pair{spec.workers(), "--workers"}}) {
    if (count > kMaxJobMembers) {
      return Status::InvalidArgument(fmt::format("{} must be at most {}", flag, kMaxJobMembers));
    }
  }
  return Status::Ok();
}

Status ValidateJobSpec(const AppRegistry& apps, const proto::JobSpec& spec) {
  STRADS_RETURN_IF_ERROR(CheckJobSpecLimits(apps, spec));
  STRADS_ASSIGN_OR_RETURN(auto app, apps.Find(spec.app()));
  if (spec.data_path().empty()) return Status::InvalidArgument("--data is required");
  STRADS_RETURN_IF_ERROR(app->engine() == proto::ENGINE_DYNAMIC ? ValidateDynamicSpec(spec)
                                                                : ValidateStaticSpec(spec));
  STRADS_RETURN_IF_ERROR(app->Validate(spec));
  if (!(spec.max_seconds() >= 0)) return Status::InvalidArgument("--max-seconds must be >= 0");
  const auto& recovery = spec.recovery();
  if (!(recovery.checkpoint_every_s() >= 0) || !std::isfinite(recovery.checkpoint_every_s())) {
    return Status::InvalidArgument("--checkpoint-every must be a number of seconds >= 0");
  }
  if (!(recovery.recovery_wait_s() >= 0) || !std::isfinite(recovery.recovery_wait_s())) {
    return Status::InvalidArgument("--recovery-wait must be a number of seconds >= 0");
  }
  if (recovery.max_recoveries() > 1000) {
    return Status::InvalidArgument("--max-recoveries must be at most 1000");
  }
  return Status::Ok();
}

std::vector<std::string> JobSpecPaths(const AppRegistry& apps, const proto::JobSpec& spec) {
  std::vector<std::string> paths;
  auto add = [&](const std::string& p) {
    if (!p.empty()) paths.push_back(p);
  };
  add(spec.data_path());
  auto app = apps.Find(spec.app());
  if (!app.ok()) return paths;
  add(spec.dynamic().labels_path());  // "" in a static spec (dynamic is one of the engine oneof)
  for (const std::string& p : (*app)->InputFiles(spec)) add(p);
  return paths;
}

}  // namespace strads

namespace strads {

void MapJobSpecPaths(const AppRegistry& apps, proto::JobSpec& spec,
                     const std::function<std::string(const std::string&)>& map) {
  if (spec.has_dynamic()) {
    auto& dynamic = *spec.mutable_dynamic();
    if (dynamic.data_format().empty()) {
      auto format = ResolveFormat(DataSource{spec.data_path(), "", ""});
      dynamic.set_data_format(format.ok() && *format == DataFormat::kMatrixMarket ? "mm"
                                                                                  : "libsvm");
    }
    if (!dynamic.labels_path().empty()) dynamic.set_labels_path(map(dynamic.labels_path()));
  }
  if (!spec.data_path().empty()) spec.set_data_path(map(spec.data_path()));
  if (auto app = apps.Find(spec.app()); app.ok()) (*app)->MapInputFiles(spec, map);
}

}  // namespace strads
