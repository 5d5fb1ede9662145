#include "cli/cluster_command.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/client.h"
#include "cli/client_keys.h"
#include "cli/cluster_plan.h"
#include "cli/daemon_record.h"
#include "cli/hostfile.h"
#include "cli/keygen.h"
#include "cli/launcher_options.h"
#include "cli/local_host.h"
#include "cli/registration_waiter.h"
#include "common/daemon.h"
#include "common/protocol.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

// After a usage error: where the usage is, not the usage itself.
constexpr const char* kSeeHelp = "(see strads-cluster --help)\n";

// One NUL-terminated field of the plan.
void Field(const std::string& s) { std::cout << s << '\0'; }

void Set(const std::string& name, const std::string& value) {
  Field("set");
  Field(name);
  Field(value);
}

void Print(const std::string& text) {
  Field("print");
  Field(text);
}

void Daemon(const DaemonLaunch& d) {
  Field("daemon");
  Field(RoleName(d.role));
  Field(d.host);
  Field(d.name);
  Field(d.local ? "local" : "remote");
  Field(std::to_string(d.command.size()));
  for (const auto& w : d.command) Field(w);
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (size_t b = 0, e; b <= dirs.size(); b = e + 1) {
    e = dirs.find(':', b);
    if (e == std::string::npos) e = dirs.size();
    const std::string p = (e == b ? "." : dirs.substr(b, e - b)) + "/" + program;
    if (access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p)) return true;
  }
  return false;
}

// Exit code 1 with the first program a real start cannot run, else 0.
int CheckPrograms(const ClusterPlan& plan, const std::string& bin_dir) {
  for (const auto& p : plan.NeededPrograms()) {
    if (p == "ssh") {
      if (!OnPath("ssh")) {
        std::cerr << "strads-cluster: ssh is needed for the remote hosts but is not installed\n";
        return 1;
      }
      continue;
    }
    const std::string path = bin_dir + "/" + p;
    if (access(path.c_str(), X_OK) != 0 || !fs::is_regular_file(path)) {
      std::cerr << "strads-cluster: " << path
                << " does not exist or is not executable (build it, or pass --bin-dir)\n";
      return 1;
    }
  }
  return 0;
}

struct Parsed {
  LauncherOptions options;
  std::optional<Hostfile> hostfile;
};

// Options and hostfile; `exit_code` set when the command must stop here.
std::optional<Parsed> Parse(const std::vector<std::string>& args, const ClusterEnvironment& env,
                            bool for_plan, int* exit_code) {
  auto options = ParseLauncherOptions(args, env.default_run_dir);
  if (!options.ok()) {
    std::cerr << "strads-cluster: " << options.status().message() << "\n" << kSeeHelp;
    *exit_code = kExitUsage;
    return std::nullopt;
  }
  Parsed p{*options, std::nullopt};
  // A run dir with keys (strads-cluster keygen) runs its daemons with CURVE.
  if (std::error_code ec; fs::exists(KeysDir(p.options) + "/cluster.key", ec)) {
    p.options.cluster_key = KeysDir(p.options) + "/cluster.key";
  }
  if (p.options.help) {
    if (for_plan) {
      Set("COMMAND", "help");
      Print(LauncherUsage(env.default_run_dir));
    } else {
      std::cout << LauncherUsage(env.default_run_dir);
    }
    *exit_code = kExitOk;
    return std::nullopt;
  }
  auto& o = p.options;
  const bool real_start = (o.command == "start" || o.command == "restart") && !o.dry_run;
  std::error_code ec;
  if (o.bin_dir.empty()) {
    o.bin_dir = env.self_dir;
  } else if (fs::is_directory(o.bin_dir, ec)) {
    o.bin_dir = fs::canonical(o.bin_dir, ec).string();
  } else if (real_start && for_plan) {
    std::cerr << "strads-cluster: --bin-dir '" << o.bin_dir << "' is not a directory\n" << kSeeHelp;
    *exit_code = kExitUsage;
    return std::nullopt;
  }
  if (!o.hostfile.empty()) {
    auto hf = ReadHostfile(o.hostfile);
    if (!hf.ok()) {
      std::cerr << hf.status().message() << "\n";
      *exit_code = kExitUsage;
      return std::nullopt;
    }
    p.hostfile = *hf;
  }
  return p;
}

int Plan(const std::vector<std::string>& args, const ClusterEnvironment& env) {
  int code = 0;
  auto parsed = Parse(args, env, /*for_plan=*/true, &code);
  if (!parsed) return code;
  const auto& o = parsed->options;
  if (o.command != "start" && o.command != "restart") {
    Set("COMMAND", o.command);
    Set("CLUSTER_KEY", o.cluster_key);
    Set("RUN_DIR", o.run_dir);
    Set("BIN_DIR", o.bin_dir);
    Set("DRY_RUN", o.dry_run ? "1" : "0");
    return kExitOk;
  }
  const LocalHost local = LocalHost::Detect();
  const ClusterPlan plan(*parsed->hostfile, o, local, env.cwd, OnPath("setsid"));
  const std::string cli = o.bin_dir + "/strads";
  if (o.dry_run) {
    Set("COMMAND", "start");
    Set("DRY_RUN", "1");
    Print(plan.DryRun(cli));
    return kExitOk;
  }
  if (int rc = CheckPrograms(plan, o.bin_dir); rc != 0) return rc;
  Set("COMMAND", o.command);
  Set("ROLE", o.role);
  // Without a usable record, a restart refuses and start picks ports as --port says.
  if (auto recorded = RecordedPorts(plan.endpoint_file()); recorded.ok()) {
    Set("RECORDED_PORTS", fmt::format("{},{}", recorded->first, recorded->second));
  } else {
    Set("RECORDED_PORTS_ERROR", recorded.status().message());
  }
  Set("RUN_DIR", o.run_dir);
  Set("CLUSTER_KEY", o.cluster_key);
  Set("BIN_DIR", o.bin_dir);
  Set("DRY_RUN", "0");
  Set("TIMEOUT", std::to_string(o.timeout_s));
  Set("SCHEDULERS", std::to_string(plan.schedulers()));
  Set("WORKERS", std::to_string(plan.workers()));
  Set("COORD_HOST", parsed->hostfile->coordinator);
  Set("ENDPOINT_FILE", plan.endpoint_file());
  if (o.endpoint.empty()) {
    Daemon(plan.coordinator());
  } else {
    for (const auto& m : plan.Members(o.endpoint)) Daemon(m);
  }
  return kExitOk;
}

int WaitForRegistration(const std::vector<std::string>& args, const ClusterEnvironment& env,
                        const std::function<Result<proto::StatusReply>()>& ask_status) {
  int code = 0;
  auto parsed = Parse(args, env, /*for_plan=*/false, &code);
  if (!parsed) return code;
  const auto& o = parsed->options;
  if (o.command != "start" && o.command != "restart") {
    std::cerr << "strads-cluster: cluster wait needs the arguments of a start or restart\n";
    return kExitUsage;
  }
  const ClusterPlan plan(*parsed->hostfile, o, LocalHost::Detect(), env.cwd, false);
  const RegistrationWaiter waiter(
      plan.Expected(), [] { return RegistrationWaiter::Clock::now(); },
      [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); });
  auto exited = [&]() -> std::optional<std::string> {
    for (const auto& r : LoadDaemonRecords(o.run_dir)) {
      if (!r.remote && !r.IsRunning()) return r.Describe();
    }
    return std::nullopt;
  };
  const auto outcome = waiter.Wait(ask_status, exited, std::chrono::seconds(o.timeout_s));
  if (outcome.status.ok()) return kExitOk;
  std::cout << outcome.status.message() << "\n";
  for (const auto& role : outcome.missing) std::cout << role << "\n";
  return kExitJobFailed;
}

int KeygenCommand(const std::vector<std::string>& args, const ClusterEnvironment& env) {
  int code = 0;
  auto parsed = Parse(args, env, /*for_plan=*/false, &code);
  if (!parsed) return code;
  const auto& o = parsed->options;
  if (o.command != "keygen") {
    std::cerr << "strads-cluster: cluster keygen needs the arguments of a keygen\n";
    return kExitUsage;
  }
  const char* user = std::getenv("USER");
  const std::time_t now = std::time(nullptr);
  char date[16] = {0};
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::localtime(&now));
  const std::string client_dir = o.client_dir.empty() ? env.client_config_dir : o.client_dir;
  auto done = Keygen(KeysDir(o), client_dir,
                     fmt::format("{}@{} {}", user && *user ? user : "user", HostName(), date));
  if (!done.ok()) {
    std::cerr << "strads-cluster: " << done.status().message() << "\n";
    return kExitJobFailed;
  }
  for (const auto& line : *done) std::cerr << "strads-cluster: " << line << "\n";
  std::cerr << "strads-cluster: 'start --run-dir " << o.run_dir
            << "' now runs every daemon with CURVE; other hosts need " << KeysDir(o)
            << "/cluster.key at the same path; strads and strads.Client find " << client_dir
            << "/client.key" << (o.client_dir.empty() ? "" : " with --client-key") << "\n";
  return kExitOk;
}

}  // namespace

ClusterEnvironment ClusterEnvironment::FromProcess() {
  ClusterEnvironment env;
  const char* run = std::getenv("STRADS_RUN_DIR");
  const char* home = std::getenv("HOME");
  env.default_run_dir =
      run != nullptr && *run != 0
          ? run
          : std::string(home != nullptr && *home != 0 ? home : "/tmp") + "/.strads/run";
  std::error_code ec;
  env.self_dir = fs::read_symlink("/proc/self/exe", ec).parent_path().string();
  env.cwd = fs::current_path(ec).string();
  env.client_config_dir = ClientConfigDir(std::getenv("XDG_CONFIG_HOME"), home);
  return env;
}

int ClusterCommand(const std::vector<std::string>& args, const ClusterEnvironment& env,
                   const std::function<Result<proto::StatusReply>()>& ask_status) {
  const std::string action = args.empty() ? "" : args[0];
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (action == "plan") return Plan(rest, env);
  if (action == "wait") return WaitForRegistration(rest, env, ask_status);
  if (action == "keygen") return KeygenCommand(rest, env);
  std::cerr << "strads: cluster needs plan, wait or keygen (strads-cluster is the command for "
               "users; see its --help)\n";
  return kExitUsage;
}

}  // namespace strads
