#include "cli/cluster_plan.h"

#include <algorithm>
#include <charconv>
#include <fstream>

#include <fmt/format.h>

#include "cli/shell_words.h"
#include "common/counted_noun.h"
#include "common/protocol.h"

namespace strads {

Result<std::pair<int, int>> RecordedPorts(const std::string& endpoint_file) {
  std::ifstream in(endpoint_file);
  if (!in) return Status::NotFound(endpoint_file + ": no recorded endpoints");
  int ports[2] = {0, 0};
  for (int& port : ports) {
    std::string line;
    std::getline(in, line);
    const size_t colon = line.rfind(':');
    const std::string digits = colon == std::string::npos ? "" : line.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (line.rfind("tcp://", 0) != 0 || digits.empty() || ec != std::errc() ||
        end != digits.data() + digits.size() || port < 1 || port > 65535) {
      return Status::InvalidArgument(
          fmt::format("{}: expected two lines tcp://HOST:PORT (control, status), got '{}'",
                      endpoint_file, line));
    }
  }
  return std::make_pair(ports[0], ports[1]);
}

std::vector<std::string> SshCommand(const std::string& host, const std::string& remote_command) {
  return {"ssh", "-n", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", host, remote_command};
}

ClusterPlan::ClusterPlan(const Hostfile& hostfile, const LauncherOptions& options,
                         const LocalHost& local, std::string cwd, bool has_setsid)
    : hostfile_(hostfile),
      options_(options),
      local_(local),
      cwd_(std::move(cwd)),
      has_setsid_(has_setsid) {
  const int port = options_.coordinator_port ? options_.coordinator_port : options_.port;
  const int status_port = options_.coordinator_port ? options_.coordinator_status_port
                          : port == 0               ? 0
                                                    : port + 1;
  std::vector<std::string> args = {"--port",
                                   std::to_string(port),
                                   "--status-port",
                                   std::to_string(status_port),
                                   "--expect-schedulers",
                                   std::to_string(schedulers()),
                                   "--expect-workers",
                                   std::to_string(workers()),
                                   "--work-dir",
                                   options_.run_dir + "/coordinator",
                                   "--endpoint-file",
                                   endpoint_file(),
                                   "--advertise-host",
                                   hostfile_.coordinator,
                                   "--log-level",
                                   options_.log_level};
  AddSecurityArgs(hostfile_.coordinator, /*coordinator=*/true, args);
  if (options_.http_port >= 0) {
    args.insert(args.end(), {"--http-port", std::to_string(options_.http_port)});
  }
  if (!options_.http_address.empty()) {
    args.insert(args.end(), {"--http-address", options_.http_address});
  }
  coordinator_ = Make(proto::ROLE_COORDINATOR, hostfile_.coordinator, 0, std::move(args));
}

void ClusterPlan::AddSecurityArgs(const std::string& host, bool coordinator,
                                  std::vector<std::string>& args) const {
  args.insert(args.end(), {"--bind-host", host});
  if (!options_.cluster_key.empty()) {
    args.insert(args.end(), {"--cluster-key", options_.cluster_key});
    if (coordinator) {
      args.insert(args.end(), {"--authorized-clients", KeysDir(options_) + "/authorized_clients"});
    }
  }
  if (options_.insecure) args.push_back("--insecure");
  if (!coordinator) {
    for (const auto& root : options_.data_roots) args.insert(args.end(), {"--data-root", root});
  }
}

std::string ClusterPlan::Bin(const std::string& program) const {
  return options_.bin_dir.empty() ? program : options_.bin_dir + "/" + program;
}

DaemonLaunch ClusterPlan::Make(proto::Role role, const std::string& host, int index,
                               std::vector<std::string> args) const {
  DaemonLaunch d;
  d.role = role;
  d.host = host;
  d.index = index;
  d.local = local_.Contains(host);
  d.name = fmt::format("{}-{}-{}", RoleName(role), host, index);
  d.log = options_.run_dir + "/logs/" + d.name + ".log";
  d.pid_file = options_.run_dir + "/pids/" + d.name + ".pid";
  d.argv = {Bin("strads-" + RoleName(role))};
  d.argv.insert(d.argv.end(), args.begin(), args.end());
  if (d.local) {
    if (has_setsid_) d.command.push_back("setsid");
    d.command.push_back("nohup");
    d.command.insert(d.command.end(), d.argv.begin(), d.argv.end());
  } else {
    std::vector<std::string> dirs = {options_.run_dir + "/logs"};
    if (role == proto::ROLE_COORDINATOR) dirs.push_back(options_.run_dir + "/coordinator");
    // The remote host may have the package rather than this build tree: without the executable
    // at this path it runs the one on its PATH (/usr/bin), and without this working directory
    // it starts in the home directory (data paths in job specs are absolute).
    const std::string program = "strads-" + RoleName(role);
    d.command = SshCommand(
        host, fmt::format("cd {} 2>/dev/null || cd || exit 1; mkdir -p {} || exit 1; b={}; "
                          "[ -x \"$b\" ] || b={}; nohup \"$b\" {} > {} 2>&1 < /dev/null & echo $!",
                          ShellQuote(cwd_), ShellJoin(dirs), ShellQuote(d.argv[0]), program,
                          ShellJoin(args), ShellQuote(d.log)));
  }
  return d;
}

std::vector<DaemonLaunch> ClusterPlan::Members(const std::string& endpoint) const {
  std::vector<DaemonLaunch> members;
  std::map<std::pair<proto::Role, std::string>, int> seen;
  const ExpectedMembers expected = Expected();
  auto add = [&](proto::Role role, const std::vector<std::string>& hosts) {
    for (const auto& host : hosts) {
      std::vector<std::string> args = {"--coordinator", endpoint,          "--advertise-host", host,
                                       "--log-level",   options_.log_level};
      AddSecurityArgs(host, /*coordinator=*/false, args);
      const int index = seen[{role, host}]++;
      // Workers sharing a host get a CPU each (common/cpu_binding.h); a lone one is left free.
      if (role == proto::ROLE_WORKER && options_.bind_workers && expected.at({role, host}) > 1) {
        args.insert(args.end(), {"--cpu", std::to_string(index)});
      }
      members.push_back(Make(role, host, index, std::move(args)));
    }
  };
  add(proto::ROLE_SCHEDULER, hostfile_.schedulers);
  add(proto::ROLE_WORKER, hostfile_.workers);
  return members;
}

ClusterPlan ClusterPlan::WithCoordinatorPorts(int control, int status) const {
  LauncherOptions pinned = options_;
  pinned.coordinator_port = control;
  pinned.coordinator_status_port = status;
  return ClusterPlan(hostfile_, pinned, local_, cwd_, has_setsid_);
}

ExpectedMembers ClusterPlan::Expected() const {
  ExpectedMembers expected;
  for (const auto& h : hostfile_.schedulers) ++expected[{proto::ROLE_SCHEDULER, h}];
  for (const auto& h : hostfile_.workers) ++expected[{proto::ROLE_WORKER, h}];
  return expected;
}

std::vector<std::string> ClusterPlan::NeededPrograms() const {
  std::vector<std::string> needed;
  auto need = [&](const std::string& p) {
    if (std::find(needed.begin(), needed.end(), p) == needed.end()) needed.push_back(p);
  };
  auto visit = [&](const DaemonLaunch& d) { need(d.local ? "strads-" + RoleName(d.role) : "ssh"); };
  visit(coordinator_);
  for (const auto& m : Members(kEndpointPlaceholder)) visit(m);
  return needed;
}

std::string ClusterPlan::DryRun(const std::string& cli) const {
  const std::string& run = options_.run_dir;
  auto launch = [](const DaemonLaunch& d) {
    if (d.local) {
      return fmt::format("{} > {} 2>&1 < /dev/null & echo \"$!\" > {}\n", ShellJoin(d.command),
                         ShellQuote(d.log), ShellQuote(d.pid_file));
    }
    return fmt::format("{} > {}\n", ShellJoin(d.command), ShellQuote(d.pid_file));
  };
  std::string out = fmt::format(
      "# strads-cluster start: 1 coordinator, {}, {}; run dir {}\n"
      "# {} = first line of {}, written by the coordinator once bound\n",
      CountedNoun(schedulers(), "scheduler"), CountedNoun(workers(), "worker"), ShellQuote(run),
      kEndpointPlaceholder, ShellQuote(endpoint_file()));
  out += ShellJoin({"mkdir", "-p", run + "/logs", run + "/pids", run + "/coordinator"}) + "\n";
  out += ShellJoin({"rm", "-f", endpoint_file()}) + "\n";
  out += launch(coordinator_);
  out += fmt::format("# wait up to {} s for {}\n", options_.timeout_s, ShellQuote(endpoint_file()));
  for (const auto& m : Members(kEndpointPlaceholder)) out += launch(m);
  out += fmt::format(
      "# wait until the coordinator lists {} and {}, each from its host (up to {} s)\n",
      CountedNoun(schedulers(), "scheduler"), CountedNoun(workers(), "worker"), options_.timeout_s);
  std::vector<std::string> wait = {cli};
  if (!options_.cluster_key.empty()) {
    wait.insert(wait.end(),
                {"--client-key", options_.cluster_key, "--cluster-key", options_.cluster_key});
  }
  wait.insert(wait.end(), {"--coordinator", kEndpointPlaceholder, "cluster", "wait", "start",
                           "--hostfile", options_.hostfile, "--run-dir", run, "--timeout",
                           std::to_string(options_.timeout_s)});
  out += ShellJoin(wait) + "\n";
  return out;
}

}  // namespace strads
