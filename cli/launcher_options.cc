#include "cli/launcher_options.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace strads {
namespace {

constexpr const char* kLogLevels[] = {"trace", "debug", "info",     "warn", "warning",
                                      "err",   "error", "critical", "off"};

// The value of a number of at most `digits` decimal digits, or -1.
long Digits(const std::string& s, size_t digits) {
  if (s.empty() || s.size() > digits) return -1;
  long n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

Result<LauncherOptions> ParseLauncherOptions(const std::vector<std::string>& args,
                                             const std::string& default_run_dir) {
  LauncherOptions o;
  std::string port = "7700", timeout = "30", coordinator_ports, http_port, data_root,
              bind = "cores";
  bool bin_dir_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "-h" || arg == "--help") {
      o.help = true;
      return o;
    }
    if (arg == "--dry-run") {
      o.dry_run = true;
      continue;
    }
    if (arg == "--insecure") {
      o.insecure = true;
      continue;
    }
    const std::string name = arg.substr(0, arg.find('='));
    std::string* target = name == "--hostfile"            ? &o.hostfile
                          : name == "--run-dir"           ? &o.run_dir
                          : name == "--port"              ? &port
                          : name == "--bin-dir"           ? &o.bin_dir
                          : name == "--log-level"         ? &o.log_level
                          : name == "--timeout"           ? &timeout
                          : name == "--coordinator-ports" ? &coordinator_ports
                          : name == "--http-port"         ? &http_port
                          : name == "--http-address"      ? &o.http_address
                          : name == "--client-dir"        ? &o.client_dir
                          : name == "--data-root"         ? &data_root
                          : name == "--bind"              ? &bind
                                                          : nullptr;
    if (target != nullptr) {
      if (name != arg) {
        *target = arg.substr(name.size() + 1);
      } else if (i + 1 < args.size()) {
        *target = args[++i];
      } else {
        return Status::InvalidArgument("option " + arg + " needs a value");
      }
      bin_dir_given = bin_dir_given || name == "--bin-dir";
      if (target == &data_root) {
        if (data_root.empty()) return Status::InvalidArgument("--data-root needs a directory");
        o.data_roots.push_back(std::filesystem::absolute(data_root).lexically_normal().string());
      }
      continue;
    }
    if (arg == "--") return Status::InvalidArgument("unexpected '--'");
    if (arg.rfind('-', 0) == 0) return Status::InvalidArgument("unknown option '" + arg + "'");
    if (o.command == "restart" && o.role.empty()) {
      if (arg != "coordinator") {
        return Status::InvalidArgument(fmt::format(
            "cannot restart '{}' (only the coordinator can be restarted; members whose process "
            "died are started again by start)",
            arg));
      }
      o.role = arg;
      continue;
    }
    if (!o.command.empty()) {
      return Status::InvalidArgument(
          fmt::format("unexpected argument '{}' (command is already '{}')", arg, o.command));
    }
    if (arg != "start" && arg != "stop" && arg != "status" && arg != "restart" && arg != "keygen") {
      return Status::InvalidArgument(fmt::format(
          "unknown command '{}' (expected start, stop, status, restart or keygen)", arg));
    }
    o.command = arg;
  }
  if (o.command.empty()) {
    return Status::InvalidArgument(
        "no command given (expected start, stop, status, restart or keygen)");
  }
  if (o.command == "restart" && o.role.empty()) {
    return Status::InvalidArgument("restart needs a role (restart coordinator)");
  }
  if ((o.command == "start" || o.command == "restart") && o.hostfile.empty()) {
    return Status::InvalidArgument(o.command + " needs --hostfile FILE");
  }
  if (!coordinator_ports.empty()) {
    const size_t comma = coordinator_ports.find(',');
    const long control =
        comma == std::string::npos ? -1 : Digits(coordinator_ports.substr(0, comma), 5);
    const long status =
        comma == std::string::npos ? -1 : Digits(coordinator_ports.substr(comma + 1), 5);
    if (control < 1 || control > 65535 || status < 1 || status > 65535) {
      return Status::InvalidArgument(fmt::format(
          "bad --coordinator-ports '{}' (expected CONTROL,STATUS, two ports in 1..65535)",
          coordinator_ports));
    }
    o.coordinator_port = static_cast<int>(control);
    o.coordinator_status_port = static_cast<int>(status);
  }
  if (bind != "cores" && bind != "none") {
    return Status::InvalidArgument(fmt::format("bad --bind '{}' (expected cores or none)", bind));
  }
  o.bind_workers = bind == "cores";
  o.port = static_cast<int>(Digits(port, 5));
  if (o.port < 0 || o.port > 65534) {
    return Status::InvalidArgument(
        fmt::format("bad --port '{}' (expected 0 for any free port, or 1..65534)", port));
  }
  if (!http_port.empty()) {
    o.http_port = static_cast<int>(Digits(http_port, 5));
    if (o.http_port < 0 || o.http_port > 65535) {
      return Status::InvalidArgument(fmt::format(
          "bad --http-port '{}' (expected 0 for any free port, or 1..65535)", http_port));
    }
  }
  o.timeout_s = static_cast<int>(Digits(timeout, 6));
  if (o.timeout_s <= 0) {
    return Status::InvalidArgument(
        fmt::format("bad --timeout '{}' (expected a positive number of seconds)", timeout));
  }
  if (std::find(std::begin(kLogLevels), std::end(kLogLevels), o.log_level) ==
      std::end(kLogLevels)) {
    return Status::InvalidArgument(fmt::format("bad --log-level '{}' (expected one of: {})",
                                               o.log_level, fmt::join(kLogLevels, " ")));
  }
  if (bin_dir_given && o.bin_dir.empty()) {
    return Status::InvalidArgument("--bin-dir needs a non-empty value");
  }
  std::error_code ec;
  const auto run_dir = std::filesystem::absolute(o.run_dir.empty() ? default_run_dir : o.run_dir);
  o.run_dir = std::filesystem::weakly_canonical(run_dir, ec).lexically_normal().string();
  if (ec) o.run_dir = run_dir.lexically_normal().string();
  if (o.run_dir.size() > 1 && o.run_dir.back() == '/') o.run_dir.pop_back();
  if (!o.client_dir.empty()) {
    o.client_dir = std::filesystem::absolute(o.client_dir).lexically_normal().string();
  }
  return o;
}

std::string KeysDir(const LauncherOptions& options) { return options.run_dir + "/keys"; }

std::string LauncherUsage(const std::string& default_run_dir) {
  return fmt::format(R"(Usage: strads-cluster start  --hostfile FILE [options]
       strads-cluster stop   [--hostfile FILE] [options]
       strads-cluster status [--hostfile FILE] [options]
       strads-cluster restart coordinator --hostfile FILE [options]
       strads-cluster keygen [--run-dir DIR] [--client-dir DIR]
       strads-cluster --help

Commands:
  start    start the coordinator, then every scheduler and worker of the hostfile; wait until the
           coordinator has registered all of them; print the control endpoint and an
           'export STRADS_COORDINATOR=...' line (on stdout; progress goes to stderr)
  stop     ask the coordinator to shut down ('strads shutdown'), wait, then SIGTERM and SIGKILL
           what is left; remove the pid files (exit 0 when nothing is running)
  status   list every recorded daemon (role, host, pid, alive/dead, log), then 'strads status'
           (exit 0 when every recorded daemon is alive, 1 otherwise)
  restart coordinator
           stop the coordinator if it still runs, start it again on the endpoints recorded in
           RUN_DIR/coordinator.endpoint (same ports, same work dir: its jobs are recovered), and
           wait until the members have registered again. 'start' on a run dir where some
           daemons still run starts the others (a dead coordinator on its recorded ports) and
           waits for all.
  keygen   make the cluster's CURVE key pair in RUN_DIR/keys (once; kept afterwards), and a
           client key pair in the client dir whose public key is appended to
           RUN_DIR/keys/authorized_clients (like ssh's authorized_keys). From then on 'start'
           runs every daemon with CURVE: only the cluster key and the authorised client keys are
           let in (README "Security"). Hosts other than this one need RUN_DIR/keys/cluster.key
           at the same path.

Options:
  --hostfile FILE     cluster description (required for start), lines of
                        HOST ROLE[=COUNT] [ROLE[=COUNT]...]
                      roles: coordinator (exactly one in the file), scheduler, worker;
                      '#' starts a comment; see deploy/hosts.example
  --run-dir DIR       pid files, logs, endpoint file (default ${{STRADS_RUN_DIR:-$HOME/.strads/run}},
                      here: {})
  --port PORT         coordinator control port (default 7700; status port is PORT+1);
                      0 = any free port for both
  --bin-dir DIR       where strads-coordinator, strads-scheduler, strads-worker and strads are
                      (default: the directory of the strads binary, ../build/bin beside
                      deploy/strads-cluster when it exists)
  --log-level LVL     daemon log level: {} (default info)
  --timeout SECONDS   bound on each wait during start: endpoint file, registration (default 30)
  --http-port PORT    the coordinator serves the web dashboard on PORT (0 = any free port;
                      default: none); its URL is line 3 of RUN_DIR/coordinator.endpoint
  --http-address ADDR address the dashboard binds (default 127.0.0.1, this host only;
                      0.0.0.0 = every interface: it has no authentication)
  --data-root DIR     members read job files only under DIR (repeatable; default anywhere)
  --bind cores|none   cores (default): on a host with several workers, each is bound to a CPU
                      of its own (strads-worker --cpu: its index on the host, modulo the CPUs
                      it may use); none: the OS places every daemon
  --insecure          let daemons bind a non-loopback address without keys (anyone who can
                      reach the ports then controls the cluster)
  --client-dir DIR    keygen: where client.key and cluster.pub go (default
                      $XDG_CONFIG_HOME/strads or ~/.config/strads, where strads looks)
  --dry-run           print every command that start/stop would run, one per line; run nothing
  --coordinator-ports CONTROL,STATUS
                      the coordinator binds exactly these ports (restart passes the recorded ones)
  -h, --help          this text

Hosts that are this machine (127.0.0.1, localhost, ::1, its host name and canonical name, the
addresses of its network interfaces) are started directly; others with ssh -o BatchMode=yes,
with logs on that host at the same run-dir path. A remote host runs the daemon from the bin dir
when it exists there, else from its PATH (an installed package), in the same working directory
when it exists there, else in the home directory.

This script finds the strads binary ($STRADS_CLI, else strads in --bin-dir, else ../build/bin
beside it, else PATH) and runs 'strads cluster' with its arguments: the checks, the plan, the
processes, their pid files and the waits are there.

Environment: STRADS_RUN_DIR (default run dir), STRADS_CLI (the strads binary to use),
STRADS_STOP_GRACE (seconds stop waits after 'strads shutdown', default 10), STRADS_SETTLE
(seconds start waits before checking that the daemons are alive, default 1).

Exit status: 0 success, 1 failure (daemons did not come up, double start, ...), 2 bad usage or
bad hostfile (reported as FILE:LINE: message).
)",
                     default_run_dir, fmt::join(kLogLevels, " "));
}

}  // namespace strads
