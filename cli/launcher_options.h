// LauncherOptions: the command line of deploy/strads-cluster, which hands it verbatim to
// `strads cluster` (cli/cluster_command.h), parsed and validated in one place.
//
//   start|stop|status|restart ROLE|keygen [--hostfile FILE] [--run-dir DIR] [--port PORT]
//       [--bin-dir DIR] [--log-level LVL] [--timeout SECONDS] [--dry-run]
//       [--coordinator-ports CONTROL,STATUS] [--http-port PORT] [--http-address ADDR]
//       [--data-root DIR]... [--insecure] [--client-dir DIR] [-h|--help]
//
// Options take their value as the next word or after '='. Errors are InvalidArgument with the
// message the launcher prints above its usage text (exit 2).
// Thread-compatibility: plain values.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace strads {

struct LauncherOptions {
  bool help = false;     // -h/--help was given: print the usage, nothing else
  std::string command;   // start, stop, status, restart or keygen
  std::string role;      // restart: the role to restart ("coordinator")
  std::string hostfile;  // required for start
  std::string run_dir;   // absolute, symlinks resolved where they exist
  int port = 7700;       // coordinator control port; 0 = any free port
  std::string bin_dir;   // where the daemons are; empty = not given
  std::string log_level = "info";
  int timeout_s = 30;  // bound on each wait of start
  bool dry_run = false;
  // --coordinator-ports: the coordinator binds exactly these (a restart on recorded endpoints);
  // 0 = from --port.
  int coordinator_port = 0;
  int coordinator_status_port = 0;
  int http_port = -1;        // the coordinator's web dashboard; -1 = none, 0 = any free port
  std::string http_address;  // what the dashboard binds; empty = the coordinator's default
  std::vector<std::string> data_roots;  // --data-root, passed to every member (absolute)
  bool insecure = false;                // --insecure, passed to every daemon
  // --bind cores (default): each worker of a host with several is bound to a CPU of its own
  // (strads-worker --cpu, common/cpu_binding.h); --bind none: the OS places every daemon.
  bool bind_workers = true;
  std::string client_dir;  // keygen: where the client's key and the cluster's public key go
  // Not a flag: RUN_DIR/keys/cluster.key when it exists (set by `strads cluster`), so the
  // daemons run with CURVE (README "Security").
  std::string cluster_key;
};

// RUN_DIR/keys: what `keygen` writes and `start` passes to the daemons.
std::string KeysDir(const LauncherOptions& options);

// Parses `args`; `default_run_dir` is used when --run-dir is absent.
Result<LauncherOptions> ParseLauncherOptions(const std::vector<std::string>& args,
                                             const std::string& default_run_dir);

// The usage text of deploy/strads-cluster; `default_run_dir` is shown as the default.
std::string LauncherUsage(const std::string& default_run_dir);

}  // namespace strads
