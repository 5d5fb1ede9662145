// The message transport seen by every STRADS role.
//
// A Transport belongs to one node (its id, e.g. "coordinator" or "worker@host:1234") and is owned
// by that node's event loop: it is NOT thread-safe, exactly like the ZeroMQ sockets behind the
// ZeroMQ implementation. Logic classes receive a Transport& and never see sockets, so the same
// logic runs over ZeroMQ (daemons), the in-process hub (embedded mode, tests) or a fault-injecting
// decorator.
//
// Delivery contract: messages from one sender to one receiver arrive in the order sent. Send never
// drops silently: it either hands the message over for delivery or returns an error (unknown or
// unreachable peer, a peer that stopped draining its queue).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/traffic_counter.h"
#include "strads.pb.h"

namespace strads {

class Transport {
 public:
  virtual ~Transport() = default;

  // This node's id; also the `sender` the node puts in its envelopes.
  virtual const std::string& id() const = 0;

  // Makes `peer` reachable at `endpoint` for Send. Connecting twice to the same peer is a no-op.
  virtual Status Connect(const std::string& peer, const std::string& endpoint) = 0;

  // Sends `envelope` to `peer`: a peer passed to Connect, or one whose messages this node has
  // received (replies to clients travel back the way the request came).
  virtual Status Send(const std::string& peer, const proto::Envelope& envelope) = 0;

  // Send for an envelope the caller gives up: a transport may move its bulk arrays to the wire
  // (ZeroMQ: as raw frames, common/wire_frames.h) or into the peer's inbox (in-process) instead
  // of copying them. The default copies, through Send.
  virtual Status SendOwned(const std::string& peer, proto::Envelope&& envelope) {
    return Send(peer, envelope);
  }

  // Waits up to `timeout` for the next message; nullopt when none arrived in time. Frames that do
  // not parse as an Envelope are counted and skipped, never returned half-read.
  virtual std::optional<proto::Envelope> Receive(std::chrono::milliseconds timeout) = 0;

  // Endpoints this node's inboxes are bound to, e.g. {"tcp://10.0.0.5:7700"}.
  virtual std::vector<std::string> endpoints() const = 0;

  // What this node sent and received on the wire, by kind of peer; null where nothing is counted
  // (the in-process hub).
  virtual const TrafficCounter* traffic() const { return nullptr; }
};

}  // namespace strads
