// LauncherEnv: what the cluster launcher (cli/cluster_launcher.h) does to the world outside its
// process: start and signal processes on this machine, run a command (ssh) for its output, ask a
// coordinator, read the clock and pause. Behind one interface, so the launcher's flows run in
// unit tests against a fake (test/launcher_unit_test.cc); PosixLauncherEnv is the real one.
// The run directory's files are not behind it (tests give the launcher a temporary directory).
// Thread-compatibility: one thread.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/zmq_transport.h"
#include "strads.pb.h"

namespace strads {

class LauncherEnv {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~LauncherEnv() = default;

  // Starts `command` on this machine (its first word looked up in PATH) without waiting for it:
  // stdin from /dev/null, stdout and stderr to `log` (truncated). Returns its pid, or an error
  // naming the program when it could not be started.
  virtual Result<long> Spawn(const std::vector<std::string>& command, const std::string& log) = 0;
  // Field 22 of /proc/PID/stat (when the process started, in clock ticks since boot); empty when
  // it cannot be read.
  virtual std::string StartTicks(long pid) = 0;
  // The process `pid` of this machine exists, is not a zombie, and started at `start_ticks` (when
  // not empty).
  virtual bool IsRunning(long pid, const std::string& start_ticks) = 0;
  // Sends `signal` to `pid`, or to its process group when it leads one (daemons started with
  // setsid do). Errors are ignored: the caller checks IsRunning afterwards.
  virtual void Kill(long pid, int signal) = 0;
  // Runs `command` (an ssh command line) to completion and returns its stdout. Unavailable with
  // its stderr (or how it ended) when it could not start or exited with a non-zero code.
  virtual Result<std::string> Run(const std::vector<std::string>& command) = 0;
  // One StatusRequest to the coordinator at `endpoint`. Unavailable when it does not answer.
  virtual Result<proto::StatusReply> AskStatus(const std::string& endpoint) = 0;
  // Asks the coordinator at `endpoint` to shut the cluster down.
  virtual Status Shutdown(const std::string& endpoint) = 0;

  virtual Clock::time_point Now() = 0;
  virtual void Sleep(std::chrono::milliseconds d) = 0;
};

// The real thing: posix_spawn, /proc, kill(2), and a ZeroMQ client (cli/remote_coordinator.h)
// presenting `curve` (an error there is returned by the first request that needs it) whose
// requests wait at most `request_timeout_s`.
std::unique_ptr<LauncherEnv> NewPosixLauncherEnv(Result<std::optional<CurveIdentity>> curve,
                                                 double request_timeout_s);

}  // namespace strads
