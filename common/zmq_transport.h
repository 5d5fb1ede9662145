// ZeroMQ transport: how daemons and the CLI talk over TCP (or ZeroMQ inproc/ipc).
//
// Topology (ps-lite style, over cppzmq): each node that can be sent to binds one or more ROUTER
// sockets (its inboxes; a Bind to port 0 picks a free port and reports it). To send to a peer the
// node either uses a DEALER it connected to the peer's inbox (Connect), or, for a peer whose
// messages arrived on one of its ROUTERs (clients, members that registered), replies through that
// ROUTER by the peer's routing id, which every DEALER sets to its node id.
//
// No silent loss: ROUTERs run with ZMQ_ROUTER_MANDATORY and send without blocking, so a reply to a
// vanished or stalled peer fails with Unavailable instead of vanishing; DEALERs use ZMQ_IMMEDIATE
// and a send timeout, so a send to an unreachable peer fails after `send_timeout` instead of
// queueing forever. High-water marks are large; bounded in-flight work (pipeline depth) keeps
// queues short.
//
// Security (common/curve_keys.h, README "Security"): with a CurveIdentity every inbox is a CURVE
// server holding `own` (the cluster key pair) and every connection a CURVE client presenting
// `own` to a server that must hold `server_public_key`; the context's ZapHandler decides whom the
// inboxes admit. Either way each message that arrives on an inbox is checked against its
// connection (common/sender_check.h): a sender field that is not the connection's routing id, or
// a member message over a client key, is refused, counted and logged (a line per 10 s with a
// count, common/log_throttle.h, as for malformed messages), never returned.
//
// Thread-compatibility: owned and used by one thread (its node's event loop).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "common/curve_keys.h"
#include "common/log_throttle.h"
#include "common/logging.h"
#include "common/transport.h"

namespace strads {

// The keys of a node that speaks CURVE.
struct CurveIdentity {
  CurveKeyPair own;               // daemons: the cluster key pair; the CLI: its client key pair
  std::string server_public_key;  // the cluster's public key (Z85)
};

class ZmqTransport : public Transport {
 public:
  // REQUIRES: `context` outlives this transport. Without `curve` sockets are plain TCP. `log`
  // (may be null) hears of refused messages.
  ZmqTransport(zmq::context_t& context, std::string id,
               std::chrono::milliseconds send_timeout = std::chrono::milliseconds(3000),
               std::optional<CurveIdentity> curve = std::nullopt, Logger log = nullptr);
  ~ZmqTransport() override;

  // Binds a new ROUTER inbox at `endpoint` ("tcp://*:0", "tcp://127.0.0.1:7700", ...). Returns
  // the endpoint actually bound, with the port filled in.
  Result<std::string> Bind(const std::string& endpoint);

  const std::string& id() const override { return id_; }
  Status Connect(const std::string& peer, const std::string& endpoint) override;
  Status Send(const std::string& peer, const proto::Envelope& envelope) override;
  // Moves the envelope's bulk arrays into raw frames that ZeroMQ sends in place.
  Status SendOwned(const std::string& peer, proto::Envelope&& envelope) override;
  std::optional<proto::Envelope> Receive(std::chrono::milliseconds timeout) override;
  std::vector<std::string> endpoints() const override { return bound_; }
  const TrafficCounter* traffic() const override { return &traffic_; }

  // Drops the DEALER to `peer` (e.g. a peer known to be dead), if any.
  void Disconnect(const std::string& peer);

  uint64_t malformed_frames() const { return malformed_; }
  // Messages refused by CheckSender.
  uint64_t refused_messages() const { return refused_; }

 private:
  // The envelope of a message's frames after the routing id (header, raw arrays), if they decode
  // (common/wire_frames.h); otherwise counted as malformed.
  std::optional<proto::Envelope> Parse(std::span<const zmq::message_t> body);
  // The envelope of an inbox's [routing id, header, raw arrays...] frames, if it parses and
  // CheckSender admits it.
  std::optional<proto::Envelope> Admit(zmq::message_t& routing_id,
                                       std::span<const zmq::message_t> body);

  zmq::context_t& context_;
  std::string id_;
  std::chrono::milliseconds send_timeout_;
  std::optional<CurveIdentity> curve_;
  Logger log_;
  std::vector<std::unique_ptr<zmq::socket_t>> routers_;
  std::vector<std::string> bound_;
  std::map<std::string, std::unique_ptr<zmq::socket_t>> dealers_;
  std::map<std::string, std::string> dealer_endpoints_;
  std::map<std::string, size_t> routes_;  // routing id -> index in routers_ it was last heard on
  size_t next_poll_start_ = 0;            // round-robin fairness among sockets
  uint64_t malformed_ = 0;
  uint64_t refused_ = 0;
  TrafficCounter traffic_;
  // A line per 10 s, with a count: a flood of garbage does not flood the log. Refused messages
  // per kind of body (a bounded set).
  LogThrottle malformed_log_;
  std::map<std::string, LogThrottle> refused_log_;
};

// Makes `socket` a CURVE client presenting `curve.own` to a server holding
// `curve.server_public_key`.
void SetCurveClient(zmq::socket_t& socket, const CurveIdentity& curve);

// "tcp://*:7700" style endpoint for `host` ("*" binds every interface) and `port` (0 = any).
std::string TcpEndpoint(const std::string& host, int port);

// Replaces a wildcard host in a bound endpoint ("tcp://0.0.0.0:41234") by `host`, giving the
// endpoint other machines should connect to.
std::string AdvertisedEndpoint(const std::string& bound, const std::string& host);

}  // namespace strads
