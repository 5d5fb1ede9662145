// The main() of a cluster member daemon (strads-scheduler, strads-worker): flags, transport,
// event loop. `MemberActor` is Scheduler or Worker, constructed from (Transport&, MemberIdentity,
// actor_context..., Logger); `actor_context` (e.g. the app registry) must outlive the call.
#pragma once

#include <unistd.h>
#include <atomic>
#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <zmq.hpp>

#include "common/cpu_binding.h"
#include "common/daemon.h"
#include "common/daemon_security.h"
#include "common/data_roots.h"
#include "common/event_loop.h"
#include "common/latency_transport.h"
#include "common/logging.h"
#include "common/member_session.h"
#include "common/protocol.h"
#include "common/zmq_transport.h"

namespace strads {

template <typename MemberActor, typename... Context>
int MemberMain(int argc, char** argv, const std::string& role, const Context&... actor_context) {
  namespace po = boost::program_options;
  std::string coordinator, bind_host, advertise_host, log_level;
  int port = 0, cpu = -1;
  ReconnectPolicy reconnect;
  std::vector<std::string> data_roots;
  SecurityOptions security_options;
  po::options_description desc("strads-" + role + " options");
  desc.add_options()("help,h", "show this help")(
      "coordinator", po::value(&coordinator),
      "coordinator control endpoint, e.g. tcp://10.0.0.1:7700 (default: $STRADS_COORDINATOR or "
      "tcp://127.0.0.1:7700)")("bind-host", po::value(&bind_host)->default_value("127.0.0.1"),
                               "address to bind this member's inbox to: an IP address, a host "
                               "name (resolved here) or * for every interface; anything but "
                               "loopback needs --cluster-key or --insecure")(
      "port", po::value(&port)->default_value(0), "inbox port (0 = any free port)")(
      "advertise-host", po::value(&advertise_host),
      "host name peers use to reach this member (default: the bind address, or this machine's "
      "host name when binding *)")(
      "data-root", po::value(&data_roots),
      "a directory job files may be read from (repeatable); files elsewhere, and symbolic links "
      "inside, are refused (default: anywhere this user can read)")(
      "coordinator-timeout", po::value(&reconnect.give_up_s)->default_value(reconnect.give_up_s),
      "seconds without a coordinator (not started yet, or lost) after which this member exits "
      "with status 3; it registers again with back-off meanwhile; 0 = never")(
      "cpu", po::value(&cpu)->default_value(-1),
      "bind this daemon (every thread) to the N-th of the CPUs it may run on, counted modulo "
      "their number; -1 = let the OS place it (strads-cluster gives each worker of a host with "
      "several its index there)")("log-level", po::value(&log_level)->default_value("info"),
                                  "trace|debug|info|warn|error");
  AddSecurityOptions(desc, &security_options, /*with_clients=*/false);
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "strads-" << role << ": " << e.what() << "\n" << desc;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (cpu < -1) {
    std::cerr << "strads-" << role << ": --cpu must be a CPU index >= 0, or -1 for none\n";
    return 2;
  }
  if (coordinator.empty()) {
    const char* env = std::getenv("STRADS_COORDINATOR");
    coordinator = env ? env : "tcp://127.0.0.1:" + std::to_string(kDefaultControlPort);
  }
  auto bind_address = ResolveBindHost(bind_host);
  auto roots = DataRoots::Make(data_roots);
  for (const Status& st : {bind_address.status(), roots.status()}) {
    if (!st.ok()) {
      std::cerr << "strads-" << role << ": " << st.message() << "\n";
      return 2;
    }
  }
  if (advertise_host.empty()) advertise_host = *bind_address == "*" ? HostName() : *bind_address;
  const uint32_t pid = static_cast<uint32_t>(getpid());
  const std::string id = role + "@" + advertise_host + ":" + std::to_string(pid);
  Logger log = MakeLogger(role, id, log_level);
  if (cpu >= 0) {  // before the ZeroMQ context starts its I/O thread, which then inherits it
    auto bound = BindToCpu(cpu);
    if (!bound.ok()) {
      log->warn("not bound to a CPU (--cpu {}): {}; the OS places this daemon", cpu,
                bound.status().message());
    } else if (cpu >= bound->allowed) {
      log->warn(
          "bound to CPU {} (--cpu {}), which another daemon bound to it may share: this "
          "process may use {} CPUs",
          bound->cpu, cpu, bound->allowed);
    } else {
      log->info("bound to CPU {} (--cpu {})", bound->cpu, cpu);
    }
  }

  zmq::context_t context;
  auto security = SetUpDaemonSecurity(context, security_options, *bind_address, log);
  if (!security.ok()) {
    log->critical("{}", security.status().message());
    return 2;
  }
  if (!roots->empty())
    log->info("job files confined to --data-root {}", fmt::join(roots->roots(), ", "));
  // Sends that cannot be handed over within a second fail (and are reported), well inside the
  // coordinator's heartbeat timeout, so a dead peer never stalls this member's loop for long.
  ZmqTransport transport(context, id, std::chrono::milliseconds(1000), security->curve, log);
  auto bound = transport.Bind(TcpEndpoint(*bind_address, port));
  if (!bound.ok()) {
    log->critical("{}", bound.status().message());
    return 1;
  }
  if (Status st = transport.Connect(kCoordinatorId, coordinator); !st.ok()) {
    log->critical("{}", st.message());
    return 2;
  }
  MemberIdentity identity;
  identity.host = advertise_host;
  identity.pid = pid;
  identity.endpoint = AdvertisedEndpoint(*bound, advertise_host);
  identity.data_roots = std::move(roots).value();
  identity.reconnect = reconnect;
  log->info("starting: inbox {}, coordinator {}", identity.endpoint, coordinator);
  std::unique_ptr<LatencyTransport> delayed;
  auto used = WithInjectedLatency(transport, delayed, log);
  if (!used.ok()) {
    log->critical("{}", used.status().message());
    return 2;
  }
  MemberActor actor(**used, identity, actor_context..., log);
  std::atomic<bool> stop{false};
  StopOnSignals(&stop);
  RunEventLoop(**used, actor, stop, log);
  log->info("stopped");
  return actor.gave_up() ? 3 : 0;
}

}  // namespace strads
