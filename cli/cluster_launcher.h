// ClusterLauncher: what `strads-cluster start|stop|status|restart coordinator` do, once
// cli/cluster_command.h has parsed the command line and the hostfile. It runs a ClusterPlan
// through a LauncherEnv (daemons of this machine directly, others over ssh) and keeps a record
// and a log per daemon in the run directory (cli/daemon_record.h, cli/cluster_plan.h), so that
// stop and status need nothing but the run directory.
//
//   Start    starts the coordinator, waits for its endpoint file, starts the members, checks that
//            they still run after a pause (`settle`), and waits until the coordinator lists every
//            one from its host. Prints the endpoint and an `export STRADS_COORDINATOR=...` line
//            on `out`. Idempotent: records of dead daemons are removed, and when some daemons of
//            the run dir still run it starts only the others (the coordinator on the ports
//            recorded in RUN_DIR/coordinator.endpoint), then waits for all; with no recorded
//            ports it refuses (a new coordinator elsewhere would orphan the ones that run).
//   RestartCoordinator  stops a coordinator that still runs (TERM, KILL after 10 s), starts it
//            on the ports recorded in RUN_DIR/coordinator.endpoint (its work dir, so its jobs are
//            recovered) and waits until the members have registered again.
//   Stop     asks the coordinator to shut down, waits `stop_grace`, then TERM, 5 s, KILL, 2 s;
//            removes the records of the daemons that are gone (all: exit 0).
//   Report   a table of the recorded daemons (role, host, pid, state, log), then the
//            coordinator's own status.
// Every wait is bounded by --timeout and asks the env's clock. Progress and diagnostics go to
// `err` as "strads-cluster: ..." lines. A failure comes back as a Status for the caller to print
// last, after the diagnostics (which daemons do not run, the tails of their logs).
// Thread-compatibility: one thread. Start, RestartCoordinator and Stop hold an flock on
// RUN_DIR/.lock until the launcher is destroyed, so two launchers never work on one run dir.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cluster_plan.h"
#include "cli/daemon_record.h"
#include "cli/launcher_env.h"
#include "cli/launcher_options.h"
#include "cli/registration_waiter.h"
#include "common/status.h"

namespace strads {

// A recorded daemon as the launcher sees it; unknown = it could not be asked (ssh failed).
enum class DaemonState { kAlive, kDead, kUnknown };

// "alive", "dead", "unknown".
std::string_view DaemonStateName(DaemonState s);

struct LauncherSettings {
  std::chrono::milliseconds settle{1000};  // $STRADS_SETTLE: start's pause before its check
  std::chrono::seconds stop_grace{10};     // $STRADS_STOP_GRACE: stop's wait before SIGTERM
  std::string cli = "strads";              // the strads binary, as stop --dry-run shows it
  size_t width = 0;                        // of the coordinator's status table (0 = no limit)
};

// The control endpoint in `text`, the content of an endpoint file: its first line once that is
// complete, or an unterminated first line that is unchanged since the previous read (`previous`).
// nullopt while there is none yet.
std::optional<std::string> EndpointInText(std::string_view text, std::string_view previous);

class ClusterLauncher {
 public:
  // `options.run_dir` is the run directory; `env` must outlive the launcher.
  ClusterLauncher(LauncherOptions options, LauncherEnv& env, LauncherSettings settings,
                  std::ostream& out, std::ostream& err);
  ~ClusterLauncher();
  ClusterLauncher(const ClusterLauncher&) = delete;
  ClusterLauncher& operator=(const ClusterLauncher&) = delete;

  // With --dry-run these print the commands (ClusterPlan::DryRun, the stop steps) and run nothing.
  Status Start(const ClusterPlan& plan);
  Status RestartCoordinator(const ClusterPlan& plan);
  Status Stop();
  // True when every recorded daemon is alive and the coordinator answered.
  bool Report();

  // Waits until the coordinator at `endpoint` lists every member of `plan` (`strads cluster
  // wait`): DeadlineExceeded naming who is missing, or FailedPrecondition when a daemon of this
  // machine exited.
  Status WaitForMembers(const ClusterPlan& plan, const std::string& endpoint);

  DaemonState State(const DaemonRecord& r);

 private:
  void Note(const std::string& line);
  Status PrepareRunDir();
  Status LockRunDir();
  std::string EndpointFile() const;

  // Starts `d` and writes its record; a failed start is recorded as pid 0 (dead).
  Result<DaemonRecord> Launch(const DaemonLaunch& d);
  // Sends `signal` to a daemon that still runs (over ssh for remote ones).
  void Signal(const DaemonRecord& r, int signal);
  // Waits up to `limit` until no record is alive (or unknown).
  bool WaitAllDead(const std::vector<DaemonRecord>& records, std::chrono::milliseconds limit);
  void PrintLogTail(const DaemonRecord& r, int lines);

  // Starts the coordinator of `plan` and returns the control endpoint it wrote.
  Result<std::string> StartCoordinator(const ClusterPlan& plan);
  Result<std::string> WaitForEndpoint(const ClusterPlan& plan, const DaemonRecord& coordinator);
  RegistrationWaiter::Outcome Await(const ClusterPlan& plan, const std::string& endpoint);
  // Waits for registration; then says `message` and prints the endpoint lines on `out`.
  Status AwaitMembers(const ClusterPlan& plan, const std::string& endpoint,
                      const std::string& message);
  // RestartCoordinator without the dry run and the lock.
  Status Restart(const ClusterPlan& plan);
  // Start when some daemons of the run dir run (`running`: their pid files' names; `live`: their
  // descriptions): starts the coordinator on its recorded ports if it does not run, then every
  // member of `plan` that does not, and waits for all. Refused without recorded ports.
  Status StartMissing(const ClusterPlan& plan, const std::set<std::string>& running,
                      bool coordinator_runs, const std::vector<std::string>& live);
  // Prints which daemons do not run and the tails of their logs (or, when all run, of the
  // coordinator's and of the daemons of `roles`); returns the error for the caller.
  Status DidNotComeUp(const std::string& why, const std::vector<std::string>& roles = {});
  std::string StopDryRun(const std::vector<DaemonRecord>& records,
                         const std::string& endpoint) const;

  LauncherOptions options_;
  LauncherEnv& env_;
  LauncherSettings settings_;
  std::ostream& out_;
  std::ostream& err_;
  int lock_fd_ = -1;
};

}  // namespace strads
