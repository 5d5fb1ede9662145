// `strads cluster LAUNCHER-ARGS...`: the cluster launcher. deploy/strads-cluster, the command
// users run, execs it with its own command line unchanged (see launcher_options.h for it):
//
//   start|stop|status|restart coordinator  parses the options and the hostfile (errors as
//         FILE:LINE: reason, exit 2), checks for a real start that the executables exist (exit
//         1), then runs the flow of ClusterLauncher (cli/cluster_launcher.h) with the real
//         LauncherEnv: exit 0, or 1 with the reason on stderr's last line.
//   keygen  makes the cluster's keys in RUN_DIR/keys and a client key (cli/keygen.h); says what
//         it did on stderr. Exit 0, or 1 with the file and the reason.
//   wait start|restart ARGS...  waits until the coordinator at the global --coordinator lists
//         every member of the hostfile from its host, within --timeout (the step `start
//         --dry-run` shows): exit 0, or 1 naming who is missing.
// A run dir with keys (RUN_DIR/keys/cluster.key) runs its daemons with CURVE, and the launcher's
// own requests to the coordinator present that key; without, they present the client's keys as
// every strads verb does (cli/client_keys.h).
#pragma once

#include <string>
#include <vector>

#include "cli/client_keys.h"

namespace strads {

// What `strads cluster` takes from the process and the global options: read once in main.
struct ClusterEnvironment {
  std::string default_run_dir;    // $STRADS_RUN_DIR, else $HOME/.strads/run
  std::string self_dir;           // the folder of the running strads binary: the default --bin-dir
  std::string cwd;                // where remote daemons start
  std::string client_config_dir;  // where keygen puts the client's keys (cli/client_keys.h)
  double settle_s = 1;            // $STRADS_SETTLE
  int stop_grace_s = 10;          // $STRADS_STOP_GRACE
  // Set by main from the global options:
  std::string coordinator;  // --coordinator, for `wait`
  ClientKeyPaths client_keys;

  static ClusterEnvironment FromProcess();
};

int ClusterCommand(const std::vector<std::string>& args, const ClusterEnvironment& env);

}  // namespace strads
