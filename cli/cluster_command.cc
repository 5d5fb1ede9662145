#include "cli/cluster_command.h"

#include <unistd.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/client.h"
#include "cli/cluster_launcher.h"
#include "cli/cluster_plan.h"
#include "cli/hostfile.h"
#include "cli/keygen.h"
#include "cli/launcher_env.h"
#include "cli/launcher_options.h"
#include "cli/local_host.h"
#include "cli/terminal_width.h"
#include "common/daemon.h"
#include "common/protocol.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

// After a usage error: where the usage is, not the usage itself.
constexpr const char* kSeeHelp = "(see strads-cluster --help)\n";

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
                            int* exit_code) {
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
    std::cout << LauncherUsage(env.default_run_dir);
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
  } else if (real_start) {
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

int MakeKeys(const LauncherOptions& o, const ClusterEnvironment& env) {
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

// The keys the launcher's own requests present: the cluster's when the run dir has them (the
// coordinator admits its members' key), else the client's.
Result<std::optional<CurveIdentity>> LauncherKeys(const LauncherOptions& o,
                                                  const ClusterEnvironment& env) {
  if (o.cluster_key.empty()) return LoadClientKeys(env.client_keys);
  return LoadClientKeys({o.cluster_key, o.cluster_key, ""});
}

LauncherSettings Settings(const ClusterEnvironment& env) {
  LauncherSettings s;
  s.settle = std::chrono::milliseconds(std::lround(env.settle_s * 1000));
  s.stop_grace = std::chrono::seconds(env.stop_grace_s);
  s.cli = env.self_dir + "/strads";
  s.width = TerminalWidth(STDOUT_FILENO);
  return s;
}

// The exit code of a launcher flow: 0, or 1 with its reason as the last line on stderr.
int ExitCode(const Status& st) {
  if (st.ok()) return kExitOk;
  std::cerr << "strads-cluster: " << st.message() << "\n";
  return kExitJobFailed;
}

int Launch(const std::vector<std::string>& args, const ClusterEnvironment& env) {
  int code = 0;
  auto parsed = Parse(args, env, &code);
  if (!parsed) return code;
  const auto& o = parsed->options;
  if (o.command == "keygen") return MakeKeys(o, env);
  // Requests to the coordinator: 1 s while start polls for registration, else the CLI's 5 s.
  const bool starts = o.command == "start" || o.command == "restart";
  auto launcher_env = NewPosixLauncherEnv(LauncherKeys(o, env), starts ? 1.0 : 5.0);
  ClusterLauncher launcher(o, *launcher_env, Settings(env), std::cout, std::cerr);
  if (o.command == "stop") return ExitCode(launcher.Stop());
  if (o.command == "status") return launcher.Report() ? kExitOk : kExitJobFailed;
  const LocalHost local = LocalHost::Detect();
  const ClusterPlan plan(*parsed->hostfile, o, local, env.cwd, OnPath("setsid"));
  if (!o.dry_run) {
    if (int rc = CheckPrograms(plan, o.bin_dir); rc != 0) return rc;
  }
  if (o.command == "restart") return ExitCode(launcher.RestartCoordinator(plan));
  return ExitCode(launcher.Start(plan));
}

// `strads [--coordinator EP] cluster wait start|restart ARGS...`.
int Wait(const std::vector<std::string>& args, const ClusterEnvironment& env) {
  int code = 0;
  auto parsed = Parse(args, env, &code);
  if (!parsed) return code;
  const auto& o = parsed->options;
  if (o.command != "start" && o.command != "restart") {
    std::cerr << "strads-cluster: cluster wait needs the arguments of a start or restart\n";
    return kExitUsage;
  }
  const LocalHost local = LocalHost::Detect();
  const ClusterPlan plan(*parsed->hostfile, o, local, env.cwd, false);
  auto launcher_env = NewPosixLauncherEnv(LauncherKeys(o, env), 1.0);
  ClusterLauncher launcher(o, *launcher_env, Settings(env), std::cout, std::cerr);
  return ExitCode(launcher.WaitForMembers(plan, env.coordinator));
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
  env.client_keys.config_dir = env.client_config_dir;
  // Malformed values fall back to the defaults, as the shell launcher did.
  if (const char* settle = std::getenv("STRADS_SETTLE"); settle != nullptr && *settle != 0) {
    char* end = nullptr;
    const double s = std::strtod(settle, &end);
    if (*end == 0 && s >= 0 && s <= 3600) env.settle_s = s;
  }
  if (const char* grace = std::getenv("STRADS_STOP_GRACE"); grace != nullptr && *grace != 0) {
    char* end = nullptr;
    const long g = std::strtol(grace, &end, 10);
    if (*end == 0 && g >= 0 && g <= 86400) env.stop_grace_s = static_cast<int>(g);
  }
  return env;
}

int ClusterCommand(const std::vector<std::string>& args, const ClusterEnvironment& env) {
  if (!args.empty() && args[0] == "wait") {
    return Wait(std::vector<std::string>(args.begin() + 1, args.end()), env);
  }
  return Launch(args, env);
}

}  // namespace strads
