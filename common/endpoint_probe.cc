#include "common/endpoint_probe.h"

#include <atomic>
#include <optional>

#include <fmt/format.h>

namespace strads {

namespace {

class ConnectionMonitor : public zmq::monitor_t {
 public:
  std::optional<ProbeResult> result;

  void on_event_connected(const zmq_event_t&, const char*) override {
    result = ProbeResult::kAccepted;
  }
  void on_event_connect_retried(const zmq_event_t&, const char*) override {
    if (!result) result = ProbeResult::kRefused;
  }
};

}  // namespace

ProbeResult ProbeEndpoint(zmq::context_t& context, const std::string& endpoint,
                          std::chrono::milliseconds timeout) {
  static std::atomic<uint64_t> probes{0};
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  ConnectionMonitor monitor;
  monitor.init(
      socket,
      fmt::format("inproc://strads-probe-{}-{}", static_cast<void*>(&socket), probes.fetch_add(1)),
      ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_RETRIED);
  try {
    socket.connect(endpoint);
  } catch (const zmq::error_t&) {
    return ProbeResult::kRefused;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!monitor.result) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ProbeResult::kSilent;
    monitor.check_event(static_cast<int>(left.count()));
  }
  return *monitor.result;
}

}  // namespace strads
