// PosixLauncherEnv (cli/launcher_env.h): processes with posix_spawn (safe in a process that may
// already run ZeroMQ's threads), liveness from /proc, a connection per coordinator endpoint.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "cli/launcher_env.h"
#include "cli/remote_coordinator.h"
#include "common/protocol.h"

extern char** environ;

namespace strads {
namespace {

// The fields of /proc/PID/stat after the command name: [0] is the state, [19] the start time.
std::vector<std::string> StatFields(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(") ");
  if (paren == std::string::npos) return {};
  std::istringstream fields(stat.substr(paren + 2));
  std::vector<std::string> f;
  for (std::string w; fields >> w;) f.push_back(w);
  return f;
}

// posix_spawn's file actions and argv, released on every path.
class SpawnRequest {
 public:
  explicit SpawnRequest(const std::vector<std::string>& command) {
    posix_spawn_file_actions_init(&actions_);
    for (const auto& w : command) argv_.push_back(const_cast<char*>(w.c_str()));
    argv_.push_back(nullptr);
  }
  ~SpawnRequest() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnRequest(const SpawnRequest&) = delete;
  SpawnRequest& operator=(const SpawnRequest&) = delete;

  posix_spawn_file_actions_t* actions() { return &actions_; }
  // The child's pid, or the errno of the failure.
  Result<pid_t> Start() {
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv_[0], &actions_, nullptr, argv_.data(), environ);
    if (rc != 0)
      return Status::Unavailable(fmt::format("cannot run {}: {}", argv_[0], strerror(rc)));
    return pid;
  }

 private:
  posix_spawn_file_actions_t actions_;
  std::vector<char*> argv_;
};

class PosixLauncherEnv final : public LauncherEnv {
 public:
  PosixLauncherEnv(Result<std::optional<CurveIdentity>> curve, double request_timeout_s)
      : curve_(std::move(curve)), request_timeout_s_(request_timeout_s) {}

  Result<long> Spawn(const std::vector<std::string>& command, const std::string& log) override {
    if (command.empty()) return Status::InvalidArgument("no command to start");
    SpawnRequest req(command);
    posix_spawn_file_actions_addopen(req.actions(), 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(req.actions(), 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(req.actions(), 1, 2);
    auto pid = req.Start();
    if (!pid.ok()) return pid.status();
    return static_cast<long>(*pid);
  }

  std::string StartTicks(long pid) override {
    const auto f = StatFields(pid);
    return f.size() >= 20 ? f[19] : "";
  }

  bool IsRunning(long pid, const std::string& start_ticks) override {
    if (pid <= 0) return false;
    if (access("/proc/self/stat", R_OK) != 0) return kill(static_cast<pid_t>(pid), 0) == 0;
    const auto f = StatFields(pid);
    if (f.size() < 20 || f[0] == "Z" || f[0] == "X") return false;
    return start_ticks.empty() || f[19] == start_ticks;
  }

  void Kill(long pid, int signal) override {
    const auto p = static_cast<pid_t>(pid);
    if (p <= 0) return;
    (void)kill(getpgid(p) == p ? -p : p, signal);
  }

  Result<std::string> Run(const std::vector<std::string>& command) override {
    if (command.empty()) return Status::InvalidArgument("no command to run");
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0) return Status::IoError("pipe: " + std::string(strerror(errno)));
    if (pipe2(err, O_CLOEXEC) != 0) {
      close(out[0]);
      close(out[1]);
      return Status::IoError("pipe: " + std::string(strerror(errno)));
    }
    SpawnRequest req(command);
    posix_spawn_file_actions_addopen(req.actions(), 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(req.actions(), out[1], 1);
    posix_spawn_file_actions_adddup2(req.actions(), err[1], 2);
    auto pid = req.Start();
    close(out[1]);
    close(err[1]);
    std::string text[2];
    if (pid.ok()) {
      pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
      int open = 2;
      while (open > 0) {
        if (poll(fds, 2, -1) < 0) {
          if (errno == EINTR) continue;
          break;
        }
        for (int i = 0; i < 2; ++i) {
          if (fds[i].fd < 0 || fds[i].revents == 0) continue;
          char buf[4096];
          const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
          if (n > 0) {
            text[i].append(buf, static_cast<size_t>(n));
          } else if (n == 0 || errno != EINTR) {
            fds[i].fd = -1;
            --open;
          }
        }
      }
    }
    close(out[0]);
    close(err[0]);
    if (!pid.ok()) return pid.status();
    int wstatus = 0;
    while (waitpid(*pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return text[0];
    while (!text[1].empty() && (text[1].back() == '\n' || text[1].back() == '\r')) {
      text[1].pop_back();
    }
    if (!text[1].empty()) return Status::Unavailable(text[1]);
    return Status::Unavailable(
        WIFEXITED(wstatus) ? fmt::format("{} exited with code {}", command[0], WEXITSTATUS(wstatus))
                           : fmt::format("{} was killed by signal {}", command[0],
                                         WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0));
  }

  Result<proto::StatusReply> AskStatus(const std::string& endpoint) override {
    auto remote = Connection(endpoint);
    if (!remote.ok()) return remote.status();
    return (*remote)->client->FetchStatus(/*to_status=*/false);
  }

  Status Shutdown(const std::string& endpoint) override {
    auto remote = Connection(endpoint);
    if (!remote.ok()) return remote.status();
    auto req = MakeEnvelope((*remote)->transport->id());
    req.mutable_shutdown_cluster();
    return (*remote)->client->Call(req).status();
  }

  Clock::time_point Now() override { return Clock::now(); }
  void Sleep(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }

 private:
  // The connection to `endpoint`, made on first use; a failed attempt is tried again next time.
  Result<RemoteCoordinator*> Connection(const std::string& endpoint) {
    if (auto it = connections_.find(endpoint); it != connections_.end()) return it->second.get();
    if (!curve_.ok()) return curve_.status();
    auto connected = ConnectCoordinator(endpoint, request_timeout_s_, *curve_);
    if (!connected.ok()) return connected.status();
    return (connections_[endpoint] = std::move(*connected)).get();
  }

  Result<std::optional<CurveIdentity>> curve_;
  double request_timeout_s_;
  std::map<std::string, std::unique_ptr<RemoteCoordinator>> connections_;
};

}  // namespace

std::unique_ptr<LauncherEnv> NewPosixLauncherEnv(Result<std::optional<CurveIdentity>> curve,
                                                 double request_timeout_s) {
  return std::make_unique<PosixLauncherEnv>(std::move(curve), request_timeout_s);
}

}  // namespace strads
