// strads: the command-line client. See `strads --help` and the README for the commands and exit
// codes.
#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "apps/builtin_apps.h"
#include "cli/client.h"
#include "cli/client_keys.h"
#include "cli/cluster_command.h"
#include "cli/embedded_cluster.h"
#include "cli/predict_command.h"
#include "cli/remote_coordinator.h"
#include "cli/status_view.h"
#include "cli/terminal_width.h"
#include "common/daemon.h"
#include "common/protocol.h"
#include "engine/job_spec.h"

namespace po = boost::program_options;
using namespace strads;

namespace {

constexpr const char* kUsage = R"(usage: strads COMMAND [options]

commands:
  run APP [job options] [--output DIR] [--schedulers S] [--workers P]
                     run a job on an embedded cluster (all roles in this process)
  submit APP [job options] [--wait] [--output DIR]
                     submit a job to the coordinator; --wait shows progress until it ends
  status [--json] [--watch]
                     members and jobs of the cluster (a table per engine, fitted to the
                     terminal; --json: README "Progress and status" lists the fields)
  jobs               the job tables of `status`
  cancel JOB_ID      cancel a queued or running job (exit 4 if it had already ended)
  result JOB_ID --output DIR
                     fetch a finished job's result files (a cancelled job's partial ones,
                     summary.json: "partial": true)
  shutdown           stop the coordinator and every member
  predict --model DIR --data FILE [--format libsvm|mm] [--labels FILE] [--output FILE]
                     apply a job's model to a data set and print its metric (RMSE or
                     accuracy); `strads predict --help` says what each app's model takes
  cluster start|stop|status|restart|keygen [options]
                     the cluster launcher (deploy/strads-cluster runs it; see
                     strads cluster --help)

global options:
  --coordinator ENDPOINT   control endpoint (default: $STRADS_COORDINATOR or tcp://127.0.0.1:7700)
  --timeout SECONDS        how long to wait for the coordinator to answer (default 5)
  --client-key FILE        this client's CURVE key pair (default ~/.config/strads/client.key,
                           used if it exists; README "Security")
  --cluster-key FILE       the cluster's public key (default ~/.config/strads/cluster.pub)

exit codes: 0 ok, 1 job failed, 2 usage error (or an unreadable key file), 3 coordinator
            unreachable (or it refused this client's key), 4 nothing to cancel (the job had
            already ended), 5 job cancelled, 6 a disk error (the coordinator cannot write its
            work dir, or strads its --output)
)";

// kUsage, then the apps with their engines and one line each.
std::string UsageText(const AppRegistry& apps) {
  std::string text = kUsage;
  text += "\napps (`strads run APP --help` lists the job options of APP):\n";
  for (const auto& app : apps.apps()) {
    text += fmt::format("  {:<9} {} engine: {}\n", app->name(), EngineName(app->engine()),
                        app->summary());
  }
  return text;
}

// "results in out/ (coefficients.tsv, trace.csv, summary.json)", or "partial results ..." for a
// job that did not succeed; nothing when no file was written.
void ReportResults(const proto::JobInfo& info, const std::string& dir,
                   const std::vector<std::string>& files) {
  if (files.empty()) return;
  std::string list;
  for (const auto& name : files) list += (list.empty() ? "" : ", ") + name;
  const std::string shown = (std::filesystem::path(dir) / "").string();  // one trailing slash
  if (info.state() == proto::JOB_SUCCEEDED) {
    std::cout << "results in " << shown << " (" << list << ")\n";
  } else {
    std::cout << "partial results in " << shown << " (" << list
              << "; summary.json: \"partial\": true)\n";
  }
}

std::atomic<bool> g_interrupt{false};

int Usage(const std::string& message) {
  std::cerr << "strads: " << message << "\n(see strads --help)\n";
  return kExitUsage;
}

// A disk error, the coordinator's (its work dir) or ours (--output): not the user's mistake.
int StorageError(const Status& st) {
  std::cerr << "strads: " << st.message() << "\n";
  return kExitStorage;
}

int Unreachable(const Status& st, const std::string& endpoint) {
  std::cerr << "strads: "
            << UnreachableMessage(
                   st, endpoint,
                   "--coordinator tcp://HOST:PORT or STRADS_COORDINATOR=tcp://HOST:PORT")
            << "\n";
  return kExitUnreachable;
}

int Finish(Client& client, const proto::JobInfo& info, const std::string& output) {
  std::cout << DescribeJob(info) << "\n";
  if (!output.empty()) {
    std::vector<std::string> files;
    auto fetched = client.FetchResults(info.job_id(), output, &files);
    if (!fetched.ok()) {
      std::cerr << "strads: " << fetched.status().message() << "\n";
      return fetched.status().code() == StatusCode::kIoError ? kExitStorage : kExitJobFailed;
    }
    ReportResults(info, output, files);
  }
  return ExitCodeFor(info);
}

po::options_description SubmitExtras(bool embedded) {
  po::options_description d("command options");
  d.add_options()("output", po::value<std::string>()->default_value(embedded ? "out" : ""),
                  "directory for the result files")("quiet", "no progress line")(
      "help,h", "show the options");
  if (!embedded) d.add_options()("wait", "wait for the job, showing progress");
  if (embedded) {
    d.add_options()("log-level", po::value<std::string>()->default_value("off"),
                    "log lines of the embedded cluster's members on stderr (trace..off; by "
                    "default none: strads prints the job's progress and its error itself)");
  }
  return d;
}

int RunOrSubmit(const AppRegistry& apps, bool embedded, const std::vector<std::string>& args,
                const std::string& endpoint, double timeout_s,
                const std::optional<CurveIdentity>& curve) {
  if (args.empty()) return Usage("which app? (" + apps.Names() + ")");
  const std::string app = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  po::variables_map extra;
  const auto extras = SubmitExtras(embedded);
  if (app == "--help" || app == "-h" ||
      std::find(rest.begin(), rest.end(), "--help") != rest.end()) {
    std::cout << "usage: strads " << (embedded ? "run" : "submit") << " APP [options]\n"
              << JobOptionsDescription(apps, app) << extras;
    return kExitOk;
  }
  auto spec = ParseJobSpec(apps, app, rest, extras, &extra);
  if (!spec.ok()) return Usage(spec.status().message());
  const std::string output = extra["output"].as<std::string>();
  const bool quiet = extra.count("quiet") > 0;

  if (embedded) {
    const uint32_t schedulers = spec->schedulers() ? spec->schedulers() : 1;
    const uint32_t workers = spec->workers() ? spec->workers() : 2;
    CoordinatorOptions options;
    options.register_timeout_s = 10;
    EmbeddedCluster cluster(schedulers, workers, options, extra["log-level"].as<std::string>());
    InProcTransport transport(cluster.hub(), "cli");
    Client client(transport, kCoordinatorId, kCoordinatorId,
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
    auto req = MakeEnvelope("cli");
    *req.mutable_submit()->mutable_spec() = *spec;
    auto reply = client.Call(req);
    if (!reply.ok()) return Usage(reply.status().message());
    const uint64_t id = reply->submit_reply().job_id();
    // With log lines on stderr, progress comes as whole lines, so that none is glued to another.
    const bool whole_lines = extra["log-level"].as<std::string>() != "off";
    auto info = client.Wait(id, g_interrupt, quiet, whole_lines);
    if (!info.ok()) {
      std::cerr << "strads: " << info.status().message() << "\n";
      return info.status().code() == StatusCode::kCancelled ? kExitInterrupted : kExitJobFailed;
    }
    return Finish(client, *info, output);
  }

  auto connected = ConnectCoordinator(endpoint, timeout_s, curve);
  if (!connected.ok()) return Unreachable(connected.status(), endpoint);
  auto& remote = *connected;
  auto req = MakeEnvelope(remote->transport->id());
  *req.mutable_submit()->mutable_spec() = *spec;
  auto reply = remote->client->Call(req);
  if (!reply.ok()) {
    if (reply.status().code() == StatusCode::kUnavailable) {
      return Unreachable(reply.status(), endpoint);
    }
    if (reply.status().code() == StatusCode::kIoError) return StorageError(reply.status());
    return Usage(reply.status().message());
  }
  const uint64_t id = reply->submit_reply().job_id();
  std::cout << "job " << id << " submitted\n";
  if (!extra.count("wait")) {
    if (!output.empty()) {
      std::cout << "results: strads result " << id << " --output " << output
                << " once it has finished\n";
    }
    return kExitOk;
  }
  if (Status st = ConnectStatus(*remote); !st.ok()) return Unreachable(st, endpoint);
  auto info = remote->client->Wait(id, g_interrupt, quiet);
  if (!info.ok()) {
    if (info.status().code() == StatusCode::kCancelled) {
      std::cerr << "strads: stopped waiting; job " << id << " goes on (strads cancel " << id
                << " stops it)\n";
      return kExitInterrupted;
    }
    return Unreachable(info.status(), endpoint);
  }
  return Finish(*remote->client, *info, output);
}

int StatusCommand(const std::vector<std::string>& args, const std::string& endpoint,
                  double timeout_s, bool jobs_only, const std::optional<CurveIdentity>& curve) {
  po::options_description d("status options");
  d.add_options()("json", "one JSON document")("watch", "refresh every second until Ctrl-C");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(d).run(), vm);
  } catch (const po::error& e) {
    return Usage(e.what());
  }
  auto remote = ConnectCoordinator(endpoint, timeout_s, curve);
  if (!remote.ok()) return Unreachable(remote.status(), endpoint);
  if (Status st = ConnectStatus(**remote); !st.ok()) return Unreachable(st, endpoint);
  do {
    auto reply = (*remote)->client->FetchStatus();
    if (!reply.ok()) return Unreachable(reply.status(), endpoint);
    const proto::StatusReply& s = *reply;
    if (vm.count("watch") && isatty(STDOUT_FILENO)) std::cout << "\033[H\033[2J";
    const size_t width = TerminalWidth(STDOUT_FILENO);
    if (vm.count("json"))
      std::cout << StatusJson(s).dump(2) << "\n";
    else if (jobs_only)
      std::cout << RenderJobs(s, width);
    else
      std::cout << RenderStatus(s, width);
    std::cout << std::flush;
    if (vm.count("watch")) {
      for (int i = 0; i < 10 && !g_interrupt; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  } while (vm.count("watch") && !g_interrupt);
  return kExitOk;
}

std::optional<uint64_t> ParseJobId(const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  try {
    size_t used = 0;
    uint64_t id = std::stoull(args[0], &used);
    if (used != args[0].size()) return std::nullopt;
    return id;
  } catch (...) {
    return std::nullopt;
  }
}

int JobCommand(const std::string& command, const std::vector<std::string>& args,
               const std::string& endpoint, double timeout_s,
               const std::optional<CurveIdentity>& curve) {
  auto id = ParseJobId(args);
  if (!id) return Usage(command + " needs a JOB_ID (a number; see `strads jobs`)");
  std::string output;
  if (command == "result") {
    po::options_description d("result options");
    d.add_options()("output", po::value(&output)->required(), "directory for the files");
    po::variables_map vm;
    try {
      po::store(po::command_line_parser(std::vector<std::string>(args.begin() + 1, args.end()))
                    .options(d)
                    .run(),
                vm);
      po::notify(vm);
    } catch (const po::error& e) {
      return Usage(e.what());
    }
  } else if (args.size() > 1) {
    return Usage("unexpected argument '" + args[1] + "'");
  }
  auto connected = ConnectCoordinator(endpoint, timeout_s, curve);
  if (!connected.ok()) return Unreachable(connected.status(), endpoint);
  auto& remote = *connected;
  if (command == "cancel") {
    auto req = MakeEnvelope(remote->transport->id(), *id);
    req.mutable_cancel();
    auto reply = remote->client->Call(req);
    if (!reply.ok()) {
      if (reply.status().code() == StatusCode::kUnavailable) {
        return Unreachable(reply.status(), endpoint);
      }
      std::cerr << "strads: " << reply.status().message() << "\n";
      return kExitUsage;
    }
    const auto& cancelled = reply->cancel_reply();
    if (cancelled.had_ended()) {
      std::cerr << "strads: job " << *id << " had already ended ("
                << JobStateName(cancelled.state()) << "): nothing was cancelled\n";
      return kExitNotCancelled;
    }
    std::cout << "job " << *id << ": " << JobStateName(cancelled.state()) << "\n";
    return kExitOk;
  }
  std::vector<std::string> files;
  auto info = remote->client->FetchResults(*id, output, &files);
  if (!info.ok()) {
    if (info.status().code() == StatusCode::kUnavailable)
      return Unreachable(info.status(), endpoint);
    if (info.status().code() == StatusCode::kIoError) return StorageError(info.status());
    std::cerr << "strads: " << info.status().message() << "\n";
    // The coordinator refused (no such job, not finished yet): a usage error, not a failed job.
    return info.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitJobFailed;
  }
  std::cout << DescribeJob(*info) << "\n";
  ReportResults(*info, output, files);
  return ExitCodeFor(*info);
}

int ShutdownCommand(const std::string& endpoint, double timeout_s,
                    const std::optional<CurveIdentity>& curve) {
  auto connected = ConnectCoordinator(endpoint, timeout_s, curve);
  if (!connected.ok()) return Unreachable(connected.status(), endpoint);
  auto& remote = *connected;
  auto req = MakeEnvelope(remote->transport->id());
  req.mutable_shutdown_cluster();
  auto reply = remote->client->Call(req);
  if (!reply.ok()) return Unreachable(reply.status(), endpoint);
  std::cout << "cluster shut down\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const AppRegistry apps = BuiltinApps();
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string endpoint;
  if (const char* env = std::getenv("STRADS_COORDINATOR")) endpoint = env;
  if (endpoint.empty()) endpoint = "tcp://127.0.0.1:" + std::to_string(kDefaultControlPort);
  double timeout_s = 5;
  ClientKeyPaths key_paths;
  key_paths.config_dir = ClientConfigDir(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"));
  // Global options may stand anywhere, except after `cluster`, whose arguments are the launcher's
  // own (its --timeout bounds the start).
  for (size_t i = 0; i < args.size() && args[i] != "cluster";) {
    auto take = [&](const std::string& name, std::string* value) -> int {
      if (args[i] == name) {
        if (i + 1 >= args.size()) return -1;
        *value = args[i + 1];
        args.erase(args.begin() + i, args.begin() + i + 2);
        return 1;
      }
      if (args[i].rfind(name + "=", 0) == 0) {
        *value = args[i].substr(name.size() + 1);
        args.erase(args.begin() + i);
        return 1;
      }
      return 0;
    };
    std::string timeout_text;
    int a = take("--coordinator", &endpoint);
    int b = a ? 0 : take("--timeout", &timeout_text);
    int k = a || b ? 0 : take("--client-key", &key_paths.client_key);
    if (!k && !a && !b) k = take("--cluster-key", &key_paths.cluster_key);
    if (a < 0 || b < 0 || k < 0) return Usage(args[i] + " needs a value");
    if (b > 0) {
      try {
        timeout_s = std::stod(timeout_text);
      } catch (...) {
        return Usage("--timeout needs a number of seconds");
      }
    }
    if (a == 0 && b == 0 && k == 0) ++i;
  }
  if (!(timeout_s > 0 && timeout_s <= 3600)) return Usage("--timeout must be in (0, 3600] seconds");
  {
    const bool tcp = endpoint.rfind("tcp://", 0) == 0 && endpoint.find(':', 6) != std::string::npos;
    if (!tcp && endpoint.rfind("ipc://", 0) != 0) {
      return Usage("--coordinator must look like tcp://HOST:PORT, got '" + endpoint + "'");
    }
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << UsageText(apps);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "cluster") {
    // Before StopOnSignals: Ctrl-C ends the launcher at once (the daemons run in their own
    // sessions).
    ClusterEnvironment env = ClusterEnvironment::FromProcess();
    env.coordinator = endpoint;
    env.client_keys.client_key = key_paths.client_key;
    env.client_keys.cluster_key = key_paths.cluster_key;
    try {
      return ClusterCommand(rest, env);
    } catch (const std::exception& e) {
      std::cerr << "strads-cluster: " << e.what() << "\n";
      return kExitJobFailed;
    }
  }
  StopOnSignals(&g_interrupt);
  std::optional<CurveIdentity> curve;
  // Keys only for the verbs that connect.
  const bool connects = command == "submit" || command == "status" || command == "jobs" ||
                        command == "cancel" || command == "result" || command == "shutdown";
  if (connects) {
    auto keys = LoadClientKeys(key_paths);
    if (!keys.ok()) {
      std::cerr << "strads: " << keys.status().message() << "\n";
      return kExitUsage;
    }
    curve = std::move(keys).value();
  }
  try {
    if (command == "run") return RunOrSubmit(apps, true, rest, endpoint, timeout_s, curve);
    if (command == "submit") return RunOrSubmit(apps, false, rest, endpoint, timeout_s, curve);
    if (command == "status") return StatusCommand(rest, endpoint, timeout_s, false, curve);
    if (command == "jobs") return StatusCommand(rest, endpoint, timeout_s, true, curve);
    if (command == "cancel" || command == "result") {
      return JobCommand(command, rest, endpoint, timeout_s, curve);
    }
    if (command == "shutdown") return ShutdownCommand(endpoint, timeout_s, curve);
    if (command == "predict") return PredictCommand(apps, rest);
  } catch (const std::exception& e) {
    std::cerr << "strads: " << e.what() << "\n";
    return kExitJobFailed;
  }
  return Usage("unknown command '" + command + "'");
}
