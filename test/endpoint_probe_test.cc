// EndpointProbe (common/endpoint_probe.h) on loopback: a refused connection is told apart from an
// accepted one by the socket monitor's events, not by waiting for the timeout (which is long here
// on purpose: a probe that missed the refusal would answer kSilent).
#include <catch2/catch.hpp>

#include "common/endpoint_probe.h"

using namespace strads;

namespace {

constexpr auto kLong = std::chrono::milliseconds(30000);

// An endpoint on loopback where nothing listens: bound once to get a free port, then closed. The
// socket has its own context, whose end waits until the I/O thread has closed the listener
// (zmq_close alone returns before that).
std::string ClosedEndpoint() {
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::router);
  socket.set(zmq::sockopt::linger, 0);
  socket.bind("tcp://127.0.0.1:*");
  std::string endpoint = socket.get(zmq::sockopt::last_endpoint);
  socket.close();
  context.close();
  return endpoint;
}

}  // namespace

TEST_CASE("EndpointProbe: a TCP port nobody listens on is refused", "[probe]") {
  zmq::context_t context;
  CHECK(ProbeEndpoint(context, ClosedEndpoint(), kLong) == ProbeResult::kRefused);
}

TEST_CASE("EndpointProbe: an ipc socket that does not exist is refused", "[probe]") {
  zmq::context_t context;
  CHECK(ProbeEndpoint(context, "ipc:///nonexistent/strads-probe.sock", kLong) ==
        ProbeResult::kRefused);
}

TEST_CASE("EndpointProbe: a bound socket accepts, whether or not it ever answers", "[probe]") {
  zmq::context_t context;
  zmq::socket_t router(context, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const std::string endpoint = router.get(zmq::sockopt::last_endpoint);
  CHECK(ProbeEndpoint(context, endpoint, kLong) == ProbeResult::kAccepted);
}

TEST_CASE("EndpointProbe: an endpoint ZeroMQ cannot parse is refused", "[probe]") {
  zmq::context_t context;
  CHECK(ProbeEndpoint(context, "tcp://no-port-here", kLong) == ProbeResult::kRefused);
}
