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
// With keys (or without, against a cluster that has them) the probe also waits for the ZeroMQ
// handshake, where CURVE and the coordinator's ZAP handler admit or refuse a client: a refused key
// or a missing one is then known at once too (kKeyRefused, kKeysMismatch), not after a timeout.
// Thread-compatibility: a function; uses its own sockets of `context`.
#pragma once

#include <chrono>
#include <string>

#include <optional>

#include <zmq.hpp>

#include "common/zmq_transport.h"

namespace strads {

enum class ProbeResult {
  kAccepted,      // a peer accepted the connection and completed the handshake
  kRefused,       // the connection failed: nothing listens there
  kSilent,        // neither within the timeout (e.g. a firewall dropping packets)
  kKeyRefused,    // the peer's ZAP handler refused our key (not an authorised client)
  kKeysMismatch,  // one side uses CURVE and the other does not, or the server key is wrong
};

// Connects to `endpoint` (as a CURVE client with `curve`) and waits at most `timeout` for the
// connection's fate. An endpoint ZeroMQ cannot parse is kRefused.
ProbeResult ProbeEndpoint(zmq::context_t& context, const std::string& endpoint,
                          std::chrono::milliseconds timeout,
                          const std::optional<CurveIdentity>& curve = std::nullopt);

}  // namespace strads
