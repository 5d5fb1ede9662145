// strads-coordinator: binds the control and status endpoints and runs the Coordinator.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <zmq.hpp>

#include "apps/builtin_apps.h"
#include "common/daemon.h"
#include "common/daemon_security.h"
#include "common/latency_transport.h"
#include "common/protocol.h"
#include "common/zmq_transport.h"
#include "coordinator/coordinator.h"
#include "coordinator/dashboard_state.h"
#include "coordinator/http_dashboard.h"

int main(int argc, char** argv) {
  namespace po = boost::program_options;
  using namespace strads;
  int port = kDefaultControlPort;
  int status_port = -1;
  int http_port = -1;
  std::string bind_host, advertise_host, endpoint_file, log_level, http_address;
  CoordinatorOptions options;
  SecurityOptions security_options;
  po::options_description desc("strads-coordinator options");
  desc.add_options()("help,h", "show this help")(
      "port", po::value(&port)->default_value(kDefaultControlPort),
      "control port for members and the CLI (0 = any free port)")(
      "status-port", po::value(&status_port),
      "status port (default: port + 1, or any free port when port is 0)")(
      "bind-host", po::value(&bind_host)->default_value("127.0.0.1"),
      "address to bind to: an IP address, a host name (resolved here) or * for every interface; "
      "anything but loopback needs --cluster-key or --insecure")(
      "advertise-host", po::value(&advertise_host),
      "host name written to the endpoint file (default: the bind address, or this machine's host "
      "name when binding *)")("expect-schedulers",
                              po::value(&options.expect_schedulers)->default_value(0),
                              "schedulers the launcher starts; the first jobs wait for them")(
      "expect-workers", po::value(&options.expect_workers)->default_value(0),
      "workers the launcher starts; the first jobs wait for them")(
      "register-timeout", po::value(&options.register_timeout_s)->default_value(60),
      "seconds a queued job waits for its members before it fails")(
      "heartbeat-interval", po::value(&options.heartbeat_interval_s)->default_value(0.5),
      "seconds between members' heartbeats")(
      "heartbeat-timeout", po::value(&options.heartbeat_timeout_s)->default_value(5),
      "seconds of silence after which a member is declared dead")(
      "load-timeout", po::value(&options.deadlines.load_s)->default_value(1800),
      "seconds a job's members may take to load their data")(
      "stall-timeout", po::value(&options.deadlines.stall_s)->default_value(60),
      "seconds a running job may go without progress before it fails")(
      "work-dir", po::value(&options.work_dir)->default_value(""),
      "directory for the job journal (journal/<id>.job) and job results (jobs/<id>/); a "
      "coordinator restarted over the same directory recovers its jobs; empty = memory only")(
      "endpoint-file", po::value(&endpoint_file),
      "write the control endpoint (line 1), the status endpoint (line 2) and, with --http-port, "
      "the dashboard's URL (line 3) here once bound")(
      "http-port", po::value(&http_port),
      "serve the web dashboard on this port (0 = any free port; default: no dashboard)")(
      "http-address", po::value(&http_address)->default_value("127.0.0.1"),
      "address the dashboard binds (0.0.0.0 = every interface; it has no authentication)")(
      "log-level", po::value(&log_level)->default_value("info"), "trace|debug|info|warn|error");
  AddSecurityOptions(desc, &security_options, /*with_clients=*/true);
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "strads-coordinator: " << e.what() << "\n" << desc;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (status_port < 0) status_port = port == 0 ? 0 : port + 1;
  auto bind_address = ResolveBindHost(bind_host);
  if (!bind_address.ok()) {
    std::cerr << "strads-coordinator: " << bind_address.status().message() << "\n";
    return 2;
  }
  if (advertise_host.empty()) advertise_host = *bind_address == "*" ? HostName() : *bind_address;
  Logger log = MakeLogger("coordinator", kCoordinatorId, log_level);

  zmq::context_t context;
  auto security = SetUpDaemonSecurity(context, security_options, *bind_address, log);
  if (!security.ok()) {
    log->critical("{}", security.status().message());
    return 2;
  }
  ZmqTransport transport(context, kCoordinatorId, std::chrono::milliseconds(3000), security->curve,
                         log);
  auto control = transport.Bind(TcpEndpoint(*bind_address, port));
  if (!control.ok()) {
    log->critical("{}", control.status().message());
    return 1;
  }
  auto status = transport.Bind(TcpEndpoint(*bind_address, status_port));
  if (!status.ok()) {
    log->critical("{}", status.status().message());
    return 1;
  }
  const std::string control_ep = AdvertisedEndpoint(*control, advertise_host);
  options.status_endpoint = AdvertisedEndpoint(*status, advertise_host);
  log->info("control endpoint {}, status endpoint {}", control_ep, options.status_endpoint);
  // The dashboard reads snapshots the coordinator's event loop publishes to `dashboard_state`.
  DashboardState dashboard_state;
  std::unique_ptr<HttpDashboard> dashboard;
  std::string dashboard_url;
  if (vm.count("http-port")) {
    auto started = HttpDashboard::Start(dashboard_state, http_address, http_port, log);
    if (!started.ok()) {
      log->critical("{}", started.status().message());
      return 1;
    }
    dashboard = std::move(*started);
    const std::string host = http_address == "0.0.0.0" ? advertise_host : http_address;
    dashboard_url = fmt::format("http://{}:{}/", host, dashboard->port());
    log->info("dashboard at {}", dashboard_url);
    if (!IsLoopbackHost(http_address)) {
      log->warn(
          "the dashboard is plain HTTP without authentication (CURVE covers ZeroMQ only): "
          "anyone who can reach {} sees every job, its data paths and its progress",
          dashboard_url);
    }
  }
  std::error_code ec;  // a work dir that cannot be created is reported by the journal below
  if (!options.work_dir.empty()) std::filesystem::create_directories(options.work_dir, ec);
  if (!endpoint_file.empty()) {
    // Written to a temporary name and renamed, so a reader never sees half a file.
    const std::string tmp = endpoint_file + ".tmp";
    {
      std::ofstream out(tmp);
      out << control_ep << "\n" << options.status_endpoint << "\n";
      if (dashboard) out << dashboard_url << "\n";
      if (!out) {
        log->critical("cannot write {}", endpoint_file);
        return 1;
      }
    }
    std::filesystem::rename(tmp, endpoint_file);
  }
  const AppRegistry apps = BuiltinApps();
  options.started_unix_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::unique_ptr<LatencyTransport> delayed;
  auto used = WithInjectedLatency(transport, delayed, log);
  if (!used.ok()) {
    log->critical("{}", used.status().message());
    return 2;
  }
  Coordinator coordinator(**used, options, apps, log, Clock::now());
  if (!coordinator.journal_status().ok()) return 1;  // logged by the coordinator
  if (dashboard) coordinator.set_status_observer(&dashboard_state);
  std::atomic<bool> stop{false};
  StopOnSignals(&stop);
  RunEventLoop(**used, coordinator, stop, log);
  // After a shutdown request: the members' and the CLI's DEALER sockets use ZMQ_IMMEDIATE, which
  // discards messages they have received but not yet read once the connection closes. Exiting at
  // once would often lose the 'shutdown' to the members and the reply to `strads shutdown`, so
  // keep the connections open for a moment (reading and dropping what arrives) before closing.
  if (!stop.load()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (!stop.load() && std::chrono::steady_clock::now() < until) {
      (void)transport.Receive(std::chrono::milliseconds(50));
    }
  }
  // What a full disk kept from the journal: one more try, and the jobs a restart would lose named.
  if (!coordinator.FlushStore(Clock::now()).ok()) {
    log->critical("stopped with job states not on disk (see above)");
    return 1;
  }
  log->info("stopped");
  return 0;
}
