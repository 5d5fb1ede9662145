#include "cli/cluster_launcher.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cli/shell_words.h"
#include "cli/status_view.h"
#include "common/counted_noun.h"
#include "common/protocol.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProg = "strads-cluster";
constexpr auto kPoll = std::chrono::milliseconds(200);
// How much of a log's end is read for its tail.
constexpr std::streamoff kTailBytes = 64 * 1024;

std::string SignalName(int signal) { return signal == SIGKILL ? "KILL" : "TERM"; }

std::string Trim(std::string s) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

// Line `n` (0-based) of the file, without its end of line; empty when there is none.
std::string FileLine(const std::string& path, int n) {
  return std::string(TextLine(ReadTextOrEmpty(path), n));
}

// The last `lines` lines of the file at `path`, each ending in '\n'; nullopt when it is missing.
std::optional<std::string> TailOf(const std::string& path, int lines) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - kTailBytes);
  in.seekg(from);
  std::string text(static_cast<size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (text.empty()) return text;
  if (text.back() != '\n') text += '\n';
  size_t start = text.size() - 1;  // the last line's '\n'
  for (int i = 0; i < lines; ++i) {
    const size_t nl = start == 0 ? std::string::npos : text.rfind('\n', start - 1);
    if (nl == std::string::npos) return text;  // fewer lines than asked
    start = nl;
  }
  return text.substr(start + 1);
}

void Remove(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace

std::string_view DaemonStateName(DaemonState s) {
  switch (s) {
    case DaemonState::kAlive:
      return "alive";
    case DaemonState::kDead:
      return "dead";
    case DaemonState::kUnknown:
      break;
  }
  return "unknown";
}

std::optional<std::string> EndpointInText(std::string_view text, std::string_view previous) {
  std::string_view line;
  if (const size_t nl = text.find('\n'); nl != std::string_view::npos) {
    line = text.substr(0, nl);
  } else if (!text.empty() && text == previous) {
    line = text;
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return std::nullopt;
  return std::string(line);
}

ClusterLauncher::ClusterLauncher(LauncherOptions options, LauncherEnv& env,
                                 LauncherSettings settings, std::ostream& out, std::ostream& err)
    : options_(std::move(options)),
      env_(env),
      settings_(std::move(settings)),
      out_(out),
      err_(err) {}

ClusterLauncher::~ClusterLauncher() {
  if (lock_fd_ >= 0) close(lock_fd_);
}

void ClusterLauncher::Note(const std::string& line) { err_ << kProg << ": " << line << "\n"; }

std::string ClusterLauncher::EndpointFile() const { return EndpointFileIn(options_.run_dir); }

Status ClusterLauncher::PrepareRunDir() {
  for (const char* sub : {"/logs", "/pids", "/coordinator"}) {
    std::error_code ec;
    fs::create_directories(options_.run_dir + sub, ec);
    if (ec) {
      return Status::IoError(
          fmt::format("cannot create the run dir {}: {}", options_.run_dir, ec.message()));
    }
  }
  return LockRunDir();
}

Status ClusterLauncher::LockRunDir() {
  if (lock_fd_ >= 0) return Status::Ok();
  const std::string path = options_.run_dir + "/.lock";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError(fmt::format("{}: cannot open: {}", path, strerror(errno)));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return Status::FailedPrecondition(fmt::format(
        "another {} is working on {}; try again when it is done", kProg, options_.run_dir));
  }
  lock_fd_ = fd;
  return Status::Ok();
}

DaemonState ClusterLauncher::State(const DaemonRecord& r) {
  if (r.pid <= 0) return DaemonState::kDead;
  if (!r.remote) {
    return env_.IsRunning(r.pid, r.start_ticks) ? DaemonState::kAlive : DaemonState::kDead;
  }
  auto said = env_.Run(SshCommand(
      r.host,
      fmt::format("if kill -0 {} 2>/dev/null; then echo alive; else echo dead; fi", r.pid)));
  const std::string answer = said.ok() ? Trim(*said) : "";
  if (answer == "alive") return DaemonState::kAlive;
  if (answer == "dead") return DaemonState::kDead;
  return DaemonState::kUnknown;
}

void ClusterLauncher::Signal(const DaemonRecord& r, int signal) {
  if (r.pid <= 0) return;
  if (r.remote) {
    (void)env_.Run(SshCommand(r.host, fmt::format("kill -{} {}", SignalName(signal), r.pid)));
  } else if (env_.IsRunning(r.pid, r.start_ticks)) {
    env_.Kill(r.pid, signal);  // never a recycled pid: IsRunning checked its start time
  }
}

bool ClusterLauncher::WaitAllDead(const std::vector<DaemonRecord>& records,
                                  std::chrono::milliseconds limit) {
  const auto deadline = env_.Now() + limit;
  while (true) {
    const bool any = std::any_of(records.begin(), records.end(), [&](const DaemonRecord& r) {
      return State(r) != DaemonState::kDead;
    });
    if (!any) return true;
    if (env_.Now() >= deadline) return false;
    env_.Sleep(kPoll);
  }
}

void ClusterLauncher::PrintLogTail(const DaemonRecord& r, int lines) {
  err_ << fmt::format("--- last {} lines of {} ({}) ---\n", lines, r.log, r.Describe());
  if (r.remote) {
    auto text =
        env_.Run(SshCommand(r.host, fmt::format("tail -n {} {}", lines, ShellQuote(r.log))));
    if (text.ok()) {
      err_ << *text;
    } else {
      err_ << "(cannot read the log on " << r.host << ")\n";
    }
    return;
  }
  const auto tail = TailOf(r.log, lines);
  err_ << (tail ? *tail : "(no log file)\n");
}

Result<DaemonRecord> ClusterLauncher::Launch(const DaemonLaunch& d) {
  const std::string role = RoleName(d.role);
  std::string recorded;  // the pid file's text
  Status failed;
  if (d.local) {
    auto pid = env_.Spawn(d.command, d.log);
    if (pid.ok()) {
      recorded = fmt::format("{}\nstart={}\n", *pid, env_.StartTicks(*pid));
    } else {
      failed = Status::Unavailable(
          fmt::format("cannot start {} on {}: {}", role, d.host, pid.status().message()));
    }
  } else {
    // The remote command prints the daemon's pid (cli/cluster_plan.cc).
    auto said = env_.Run(d.command);
    const std::string pid = said.ok() ? Trim(*said) : "";
    recorded = fmt::format("{}:{}\n", d.host, pid);
    if (!said.ok() || ParseDaemonRecord(options_.run_dir, d.name, recorded).pid == 0) {
      failed = Status::Unavailable(fmt::format("cannot start {} on {} over ssh: {}", role, d.host,
                                               !said.ok() ? said.status().message()
                                               : pid.empty()
                                                   ? std::string("no pid came back")
                                                   : fmt::format("expected a pid, got '{}'", pid)));
    }
  }
  // A failed start is recorded as pid 0, so that status shows it and stop cleans it up.
  if (!failed.ok()) recorded = d.local ? "0\n" : fmt::format("{}:0\n", d.host);
  DaemonRecord r = ParseDaemonRecord(options_.run_dir, d.name, recorded);
  r.host = d.host;
  STRADS_RETURN_IF_ERROR(WriteDaemonRecord(r));
  if (!failed.ok()) return failed;
  return r;
}

Result<std::string> ClusterLauncher::WaitForEndpoint(const ClusterPlan& plan,
                                                     const DaemonRecord& coordinator) {
  const std::string file = plan.endpoint_file();
  const auto deadline = env_.Now() + std::chrono::seconds(options_.timeout_s);
  std::string previous;
  while (true) {
    std::string text;
    if (coordinator.remote) {
      auto said = env_.Run(
          SshCommand(coordinator.host, fmt::format("cat {} 2>/dev/null", ShellQuote(file))));
      if (said.ok()) text = *said;
    } else {
      text = ReadTextOrEmpty(file);
    }
    if (auto endpoint = EndpointInText(text, previous)) {
      // stop, status and a later restart read the endpoints here.
      if (coordinator.remote) std::ofstream(file, std::ios::trunc) << text;
      return *endpoint;
    }
    previous = text;
    if (State(coordinator) == DaemonState::kDead) {
      return Status::FailedPrecondition("the coordinator exited before writing " + file);
    }
    if (env_.Now() >= deadline) {
      return Status::DeadlineExceeded(
          fmt::format("timed out after {} s waiting for the coordinator to write {}",
                      options_.timeout_s, file));
    }
    env_.Sleep(kPoll);
  }
}

Result<std::string> ClusterLauncher::StartCoordinator(const ClusterPlan& plan) {
  auto coordinator = Launch(plan.coordinator());
  if (!coordinator.ok()) return DidNotComeUp(coordinator.status().message());
  auto endpoint = WaitForEndpoint(plan, *coordinator);
  if (!endpoint.ok()) return DidNotComeUp(endpoint.status().message());
  if (endpoint->find("://") == std::string::npos) {
    Note(fmt::format("warning: unexpected endpoint '{}' in {}", *endpoint, plan.endpoint_file()));
  }
  return endpoint;
}

RegistrationWaiter::Outcome ClusterLauncher::Await(const ClusterPlan& plan,
                                                   const std::string& endpoint) {
  const RegistrationWaiter waiter(
      plan.Expected(), [this] { return env_.Now(); },
      [this](std::chrono::milliseconds d) { env_.Sleep(d); });
  auto exited = [&]() -> std::optional<std::string> {
    for (const auto& r : LoadDaemonRecords(options_.run_dir)) {
      if (!r.remote && State(r) == DaemonState::kDead) return r.Describe();
    }
    return std::nullopt;
  };
  return waiter.Wait([&] { return env_.AskStatus(endpoint); }, exited,
                     std::chrono::seconds(options_.timeout_s));
}

Status ClusterLauncher::WaitForMembers(const ClusterPlan& plan, const std::string& endpoint) {
  return Await(plan, endpoint).status;
}

Status ClusterLauncher::AwaitMembers(const ClusterPlan& plan, const std::string& endpoint,
                                     const std::string& message) {
  const auto outcome = Await(plan, endpoint);
  if (!outcome.status.ok()) return DidNotComeUp(outcome.status.message(), outcome.missing);
  Note(message);
  out_ << "# control endpoint: " << endpoint << "\n";
  if (const std::string url = FileLine(EndpointFile(), 2); !url.empty()) {
    out_ << "# dashboard: " << url << "\n";
  }
  out_ << "export STRADS_COORDINATOR=" << ShellQuote(endpoint) << "\n";
  return Status::Ok();
}

Status ClusterLauncher::DidNotComeUp(const std::string& why,
                                     const std::vector<std::string>& roles) {
  constexpr int kMaxLogs = 8;
  const auto records = LoadDaemonRecords(options_.run_dir);
  std::vector<const DaemonRecord*> down;
  for (const auto& r : records) {
    if (State(r) != DaemonState::kAlive) down.push_back(&r);
  }
  for (const auto* r : down) Note("not running: " + r->Describe());
  int shown = 0;
  for (const auto* r : down) {
    if (shown++ == kMaxLogs) break;
    PrintLogTail(*r, 20);
  }
  if (down.empty()) {
    // Everything runs but is not registered: the coordinator's log and those of the roles that
    // fall short.
    for (const auto& r : records) {
      if (r.role != "coordinator" && std::find(roles.begin(), roles.end(), r.role) == roles.end()) {
        continue;
      }
      if (shown++ == kMaxLogs) break;
      PrintLogTail(r, 10);
    }
  }
  return Status::Unavailable(
      fmt::format("the cluster did not come up: {}; run '{} stop --run-dir {}' to clean up", why,
                  kProg, ShellQuote(options_.run_dir)));
}

Status ClusterLauncher::Start(const ClusterPlan& plan) {
  if (options_.dry_run) {
    out_ << plan.DryRun(settings_.cli);
    return Status::Ok();
  }
  STRADS_RETURN_IF_ERROR(PrepareRunDir());

  // Records of dead daemons are removed; the daemons that run are kept, never started twice.
  std::set<std::string> running;  // their pid files' names
  std::vector<std::string> live;
  bool coordinator_runs = false;
  for (const auto& r : LoadDaemonRecords(options_.run_dir)) {
    const DaemonState state = State(r);
    if (state == DaemonState::kDead) {
      Note(fmt::format("removing stale pid file {} ({} is not running)", r.file, r.Describe()));
      Remove(r.file);
      continue;
    }
    running.insert(fs::path(r.file).filename().string());
    if (r.role == "coordinator") coordinator_runs = true;
    live.push_back(state == DaemonState::kAlive ? r.Describe()
                                                : r.Describe() + ", cannot check: ssh failed");
  }
  if (!live.empty()) return StartMissing(plan, running, coordinator_runs, live);
  Remove(plan.endpoint_file());

  Note("starting the coordinator on " + plan.coordinator().host);
  STRADS_ASSIGN_OR_RETURN(const std::string endpoint, StartCoordinator(plan));
  const std::string members = fmt::format("{} and {}", CountedNoun(plan.schedulers(), "scheduler"),
                                          CountedNoun(plan.workers(), "worker"));
  Note(fmt::format("coordinator is at {}; starting {}", endpoint, members));
  bool all_started = true;
  for (const auto& m : plan.Members(endpoint)) {
    if (auto r = Launch(m); !r.ok()) {
      Note(r.status().message());
      all_started = false;
    }
  }
  if (!all_started) return DidNotComeUp("some daemons could not be started");

  // Did everything come up?
  env_.Sleep(settings_.settle);
  for (const auto& r : LoadDaemonRecords(options_.run_dir)) {
    if (State(r) != DaemonState::kAlive) {
      return DidNotComeUp("a daemon exited right after starting");
    }
  }
  return AwaitMembers(plan, endpoint,
                      fmt::format("cluster is up: 1 coordinator, {}, {} (run dir {})",
                                  CountedNoun(plan.schedulers(), "scheduler"),
                                  CountedNoun(plan.workers(), "worker"), options_.run_dir));
}

Status ClusterLauncher::StartMissing(const ClusterPlan& plan, const std::set<std::string>& running,
                                     bool coordinator_runs, const std::vector<std::string>& live) {
  // Where the members connect: the coordinator's recorded ports. Without them, daemons that
  // run would be orphaned by a new coordinator elsewhere.
  const auto ports = RecordedPorts(plan.endpoint_file());
  std::optional<std::string> endpoint;
  if (ports.ok() && coordinator_runs)
    endpoint = EndpointInText(ReadTextOrEmpty(EndpointFile()), "");
  if (!ports.ok() || (coordinator_runs && !endpoint)) {
    Note(options_.run_dir + " already has running daemons:");
    for (const auto& d : live) Note("  " + d);
    return Status::FailedPrecondition(
        fmt::format("refusing to start twice; run '{} stop --run-dir {}' first", kProg,
                    ShellQuote(options_.run_dir)));
  }
  const ClusterPlan pinned = plan.WithCoordinatorPorts(ports->first, ports->second);
  if (!coordinator_runs) {
    Note(fmt::format(
        "the coordinator of {} died while its members run ({} alive): restarting it "
        "on its recorded ports {},{}",
        options_.run_dir, CountedNoun(live.size(), "member"), ports->first, ports->second));
    Remove(plan.endpoint_file());
    STRADS_ASSIGN_OR_RETURN(endpoint, StartCoordinator(pinned));
  }
  size_t started = 0;
  bool all_started = true;
  for (const auto& m : pinned.Members(*endpoint)) {
    if (running.count(fs::path(m.pid_file).filename().string())) continue;
    Note(fmt::format("starting {} on {}: it does not run", RoleName(m.role), m.host));
    ++started;
    if (auto r = Launch(m); !r.ok()) {
      Note(r.status().message());
      all_started = false;
    }
  }
  if (!all_started) return DidNotComeUp("some daemons could not be started");
  if (started > 0) {
    env_.Sleep(settings_.settle);
    for (const auto& r : LoadDaemonRecords(options_.run_dir)) {
      if (State(r) != DaemonState::kAlive) {
        return DidNotComeUp("a daemon exited right after starting");
      }
    }
  }
  const size_t restarted = started + (coordinator_runs ? 0 : 1);
  return AwaitMembers(
      pinned, *endpoint,
      fmt::format("cluster is up: 1 coordinator, {}, {} (run dir {}; {} started, {} already ran)",
                  CountedNoun(plan.schedulers(), "scheduler"),
                  CountedNoun(plan.workers(), "worker"), options_.run_dir,
                  CountedNoun(restarted, "daemon"), live.size()));
}

Status ClusterLauncher::RestartCoordinator(const ClusterPlan& plan) {
  if (options_.dry_run) {
    out_ << plan.DryRun(settings_.cli);
    return Status::Ok();
  }
  STRADS_RETURN_IF_ERROR(PrepareRunDir());
  return Restart(plan);
}

Status ClusterLauncher::Restart(const ClusterPlan& plan) {
  const auto ports = RecordedPorts(plan.endpoint_file());
  if (!ports.ok()) {
    return Status::FailedPrecondition(
        fmt::format("cannot restart the coordinator: {} (start the cluster with 'start')",
                    ports.status().message()));
  }
  for (const auto& r : LoadDaemonRecords(options_.run_dir)) {
    if (r.role != "coordinator") continue;
    if (State(r) != DaemonState::kDead) {
      Note("stopping " + r.Describe());
      Signal(r, SIGTERM);
      if (!WaitAllDead({r}, std::chrono::seconds(10))) {
        Signal(r, SIGKILL);
        (void)WaitAllDead({r}, std::chrono::seconds(2));
      }
    }
    Remove(r.file);
  }
  const ClusterPlan pinned = plan.WithCoordinatorPorts(ports->first, ports->second);
  Remove(plan.endpoint_file());
  Note(fmt::format("starting the coordinator on {} on its recorded ports {},{}",
                   plan.coordinator().host, ports->first, ports->second));
  STRADS_ASSIGN_OR_RETURN(const std::string endpoint, StartCoordinator(pinned));
  return AwaitMembers(pinned, endpoint,
                      fmt::format("coordinator restarted at {}; every member registered again "
                                  "(run dir {})",
                                  endpoint, options_.run_dir));
}

std::string ClusterLauncher::StopDryRun(const std::vector<DaemonRecord>& records,
                                        const std::string& endpoint) const {
  std::string out =
      fmt::format("# {} stop: {} in {}\n", kProg, CountedNoun(records.size(), "recorded daemon"),
                  ShellQuote(options_.run_dir));
  if (!endpoint.empty()) {
    std::vector<std::string> shutdown = {settings_.cli};
    if (!options_.cluster_key.empty()) {
      shutdown.insert(shutdown.end(), {"--client-key", options_.cluster_key, "--cluster-key",
                                       options_.cluster_key});
    }
    shutdown.insert(shutdown.end(), {"--coordinator", endpoint, "shutdown"});
    out += ShellJoin(shutdown) + "\n";
  }
  auto signal_all = [&](int signal) {
    for (const auto& r : records) {
      const std::string kill = fmt::format("kill -{} {}", SignalName(signal), r.pid);
      out += (r.remote ? ShellJoin(SshCommand(r.host, kill))
                       : ShellJoin({"kill", fmt::format("-{}", SignalName(signal)),
                                    std::to_string(r.pid)})) +
             "\n";
    }
  };
  out += fmt::format("# wait up to {} s for the daemons to exit, then SIGTERM what is left:\n",
                     settings_.stop_grace.count());
  signal_all(SIGTERM);
  out += "# after 5 more s, SIGKILL what is left:\n";
  signal_all(SIGKILL);
  std::vector<std::string> rm = {"rm", "-f"};
  for (const auto& r : records) rm.push_back(r.file);
  rm.push_back(EndpointFile());
  return out + ShellJoin(rm) + "\n";
}

Status ClusterLauncher::Stop() {
  const auto records = LoadDaemonRecords(options_.run_dir);
  if (records.empty()) {
    if (!options_.dry_run) Remove(EndpointFile());
    out_ << fmt::format("{}: no daemons recorded in {}: already stopped\n", kProg,
                        options_.run_dir);
    return Status::Ok();
  }
  const std::string endpoint = FileLine(EndpointFile(), 0);
  if (options_.dry_run) {
    out_ << StopDryRun(records, endpoint);
    return Status::Ok();
  }
  STRADS_RETURN_IF_ERROR(LockRunDir());
  if (!endpoint.empty()) {
    Note("asking the coordinator at " + endpoint + " to shut down");
    if (Status st = env_.Shutdown(endpoint); !st.ok()) {
      Note(fmt::format("'strads shutdown' failed ({}); stopping the daemons by signal",
                       st.message()));
    }
  }
  if (!WaitAllDead(records, settings_.stop_grace)) {
    Note("sending SIGTERM to the daemons still running");
    for (const auto& r : records) Signal(r, SIGTERM);
    if (!WaitAllDead(records, std::chrono::seconds(5))) {
      Note("sending SIGKILL to the daemons still running");
      for (const auto& r : records) Signal(r, SIGKILL);
      (void)WaitAllDead(records, std::chrono::seconds(2));
    }
  }
  size_t left = 0;
  for (const auto& r : records) {
    const DaemonState state = State(r);
    if (state == DaemonState::kDead) {
      Remove(r.file);
    } else {
      Note(fmt::format("could not stop {} (state: {}); its pid file is kept", r.Describe(),
                       DaemonStateName(state)));
      ++left;
    }
  }
  if (left > 0) {
    return Status::FailedPrecondition(fmt::format("{} of {} still running (run dir {})", left,
                                                  CountedNoun(records.size(), "daemon"),
                                                  options_.run_dir));
  }
  Remove(EndpointFile());
  out_ << fmt::format("{}: stopped {} (run dir {})\n", kProg, CountedNoun(records.size(), "daemon"),
                      options_.run_dir);
  return Status::Ok();
}

bool ClusterLauncher::Report() {
  const auto records = LoadDaemonRecords(options_.run_dir);
  if (records.empty()) {
    out_ << "no daemons recorded in " << options_.run_dir << " (not started, or stopped)\n";
    return false;
  }
  bool all_alive = true;
  out_ << fmt::format("{:<12} {:<24} {:<8} {:<6} {}\n", "ROLE", "HOST", "PID", "STATE", "LOG");
  for (const auto& r : records) {
    const DaemonState state = State(r);
    all_alive = all_alive && state == DaemonState::kAlive;
    out_ << fmt::format("{:<12} {:<24} {:<8} {:<6} {}{}\n", r.role, r.host, r.pid,
                        DaemonStateName(state), r.remote ? r.host + ":" : "", r.log);
  }
  const std::string endpoint = FileLine(EndpointFile(), 0);
  if (!endpoint.empty()) {
    out_ << "\ncontrol endpoint: " << endpoint << "\n";
    if (auto reply = env_.AskStatus(endpoint); reply.ok()) {
      out_ << RenderStatus(*reply, settings_.width);
    } else {
      out_ << "the coordinator at " << endpoint << " is not reachable: " << reply.status().message()
           << "\n";
      all_alive = false;
    }
  }
  return all_alive;
}

}  // namespace strads
