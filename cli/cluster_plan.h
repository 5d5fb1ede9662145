// ClusterPlan: which daemon runs on which host with which command line, for a hostfile and the
// launcher's options. Pure: it decides, ClusterLauncher (cli/cluster_launcher.h) executes
// (setsid/nohup here, ssh for other hosts) and records a pid file and a log per daemon under the
// run dir:
//
//   RUN_DIR/pids/NAME.pid, RUN_DIR/logs/NAME.log   NAME = ROLE-HOST-N (N counts per role and host)
//   RUN_DIR/coordinator.endpoint                   written by the coordinator once bound: its
//                                                  control and status endpoints, kept until
//                                                  stop, so a restart reuses the same ports
//   RUN_DIR/coordinator/                           the coordinator's --work-dir
//   RUN_DIR/keys/                                  `keygen`: cluster.key (passed to every daemon
//                                                  as --cluster-key when it exists),
//                                                  authorized_clients (the coordinator's)
//
// Every daemon binds the address its hostfile line gives (--bind-host HOST), never every
// interface; --insecure and --data-root are passed on (members only take --data-root).
// The coordinator expects exactly the schedulers and workers of the hostfile; each member
// advertises its hostfile host, so registration can be checked per role and host.
// Thread-compatibility: immutable after construction.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli/hostfile.h"
#include "cli/launcher_options.h"
#include "cli/local_host.h"
#include "strads.pb.h"

namespace strads {

// Stands for the control endpoint in member commands before the coordinator has written it.
inline constexpr const char* kEndpointPlaceholder = "<endpoint>";

// The coordinator's endpoint file in run directory `run_dir`.
inline std::string EndpointFileIn(const std::string& run_dir) {
  return run_dir + "/coordinator.endpoint";
}

struct DaemonLaunch {
  proto::Role role = proto::ROLE_UNSPECIFIED;
  std::string host;
  int index = 0;      // among the daemons of this role on this host
  bool local = true;  // started on this machine, else over ssh
  std::string name;   // ROLE-HOST-N
  std::string log;    // RUN_DIR/logs/NAME.log
  std::string pid_file;
  std::vector<std::string> argv;     // the daemon's own command line
  std::vector<std::string> command;  // what the launcher runs: [setsid] nohup argv, or ssh ...
};

// How many members of a role the coordinator must list from a host.
using ExpectedMembers = std::map<std::pair<proto::Role, std::string>, int>;

class ClusterPlan {
 public:
  // `options.bin_dir` empty = executables from PATH; `cwd` is where remote daemons start;
  // `has_setsid`: local daemons lead their own session (so stop can signal the group).
  ClusterPlan(const Hostfile& hostfile, const LauncherOptions& options, const LocalHost& local,
              std::string cwd, bool has_setsid);

  const DaemonLaunch& coordinator() const { return coordinator_; }
  // The schedulers then the workers, connecting to `endpoint`.
  std::vector<DaemonLaunch> Members(const std::string& endpoint) const;
  ExpectedMembers Expected() const;
  // The same plan with the coordinator on exactly these ports (a restart on recorded endpoints).
  ClusterPlan WithCoordinatorPorts(int control, int status) const;
  int schedulers() const { return static_cast<int>(hostfile_.schedulers.size()); }
  int workers() const { return static_cast<int>(hostfile_.workers.size()); }
  std::string endpoint_file() const { return EndpointFileIn(options_.run_dir); }
  // The executables that must exist for a real start: "strads-ROLE" for each role with a local
  // daemon, "ssh" when any host is remote.
  std::vector<std::string> NeededPrograms() const;

  // The text of `start --dry-run`: every command, one per line, shell-quoted; `cli` is the strads
  // binary shown in the registration wait.
  std::string DryRun(const std::string& cli) const;

 private:
  DaemonLaunch Make(proto::Role role, const std::string& host, int index,
                    std::vector<std::string> args) const;
  std::string Bin(const std::string& program) const;
  // --bind-host HOST, the keys, --insecure and (members) the data roots.
  void AddSecurityArgs(const std::string& host, bool coordinator,
                       std::vector<std::string>& args) const;

  Hostfile hostfile_;
  LauncherOptions options_;
  const LocalHost& local_;
  std::string cwd_;
  bool has_setsid_;
  DaemonLaunch coordinator_;
};

// The control and status ports of the endpoints recorded in `endpoint_file` (two lines,
// tcp://HOST:PORT each). NotFound when there is no file; InvalidArgument naming the file when it
// does not hold two such lines.
Result<std::pair<int, int>> RecordedPorts(const std::string& endpoint_file);

// The ssh options of every remote command (batch mode: never a password prompt).
std::vector<std::string> SshCommand(const std::string& host, const std::string& remote_command);

}  // namespace strads
