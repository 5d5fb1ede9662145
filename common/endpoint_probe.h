// EndpointProbe: whether anything accepts connections at a ZeroMQ endpoint, known as soon as the
// connection is refused.
//
// ZeroMQ hides TCP connects: a DEALER "connects" at once and retries in the background, so a
// request to a stopped coordinator looks just like one it has not answered yet, until a timeout.
// A socket monitor does see the connection: ZMQ_EVENT_CONNECTED once the peer accepted it,
// ZMQ_EVENT_CONNECT_RETRIED when the attempt failed (refused, or no such ipc socket) and ZeroMQ
// schedules another. The probe connects a throw-away DEALER (it sends nothing) and waits for the
// first of the two. The CLI probes before its first request, so `strads status` against a stopped
// cluster fails at once, and keeps its reply timeout for a coordinator that accepts but does not
// answer.
// Thread-compatibility: a function; uses its own sockets of `context`.
#pragma once

#include <chrono>
#include <string>

#include <zmq.hpp>

namespace strads {

enum class ProbeResult {
  kAccepted,  // a peer accepted the connection
  kRefused,   // the connection failed: nothing listens there
  kSilent,    // neither within the timeout (e.g. a firewall dropping packets)
};

// Connects to `endpoint` and waits at most `timeout` for the connection's fate. An endpoint
// ZeroMQ cannot parse is kRefused.
ProbeResult ProbeEndpoint(zmq::context_t& context, const std::string& endpoint,
                          std::chrono::milliseconds timeout);

}  // namespace strads
