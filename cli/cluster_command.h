// `strads cluster plan|wait|keygen LAUNCHER-ARGS...`: the logic of deploy/strads-cluster, which
// passes its own command line (see launcher_options.h) unchanged.
//
//   plan  checks the options and the hostfile (errors as FILE:LINE: reason, exit 2) and, for a
//         real start, that the executables exist (exit 1); with --dry-run prints every command of
//         the start; otherwise writes the plan for the wrapper on stdout as NUL-terminated fields:
//           set NAME VALUE                        COMMAND ROLE RUN_DIR BIN_DIR DRY_RUN TIMEOUT
//                                                 RECORDED_PORTS (CONTROL,STATUS of the
//                                                 endpoint file, when there is one) ...
//           print TEXT                            text for the user's stdout (--help, --dry-run)
//           daemon ROLE HOST NAME local|remote N WORD...   one daemon to start: the coordinator,
//                                                 or with --endpoint EP the members connecting to
//                                                 EP
//   wait  asks the coordinator (global --coordinator) until it lists every member of the hostfile
//         from its host, within --timeout; stops early when a recorded local daemon exited.
//         Exit 0, or 1 with the reason on stdout's first line and the roles short of their count
//         on the next lines.
//   keygen makes the cluster's keys in RUN_DIR/keys and a client key (cli/keygen.h); says what it
//         did on stderr. Exit 0, or 1 with the file and the reason.
// `plan` also sets CLUSTER_KEY: RUN_DIR/keys/cluster.key when it exists (the daemons then get
// --cluster-key; the wrapper's own strads calls present that key), else empty.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// What `strads cluster` takes from the process: read once in main.
struct ClusterEnvironment {
  std::string default_run_dir;    // $STRADS_RUN_DIR, else $HOME/.strads/run
  std::string self_dir;           // the folder of the running strads binary: the default --bin-dir
  std::string cwd;                // where remote daemons start
  std::string client_config_dir;  // where keygen puts the client's keys (cli/client_keys.h)

  static ClusterEnvironment FromProcess();
};

// `ask_status` sends one StatusRequest to the coordinator (used by wait only).
int ClusterCommand(const std::vector<std::string>& args, const ClusterEnvironment& env,
                   const std::function<Result<proto::StatusReply>()>& ask_status);

}  // namespace strads
