#include "common/zmq_transport.h"

#include <zmq_addon.hpp>

#include "common/protocol.h"
#include "common/sender_check.h"
#include "common/wire_frames.h"

namespace strads {
namespace {

constexpr int kHighWaterMark = 100000;
// Larger frames are refused by the inboxes (a peer or a stray client cannot make a daemon
// allocate gigabytes); protocol messages are far smaller.
constexpr int64_t kMaxInboundMessage = int64_t{256} << 20;
// A message of more frames is refused: no protocol message has more than a few dozen arrays.
constexpr size_t kMaxFrames = 4096;

// ZeroMQ's free function for a raw frame sent in place: drops the frame's hold on its array.
void ReleaseRawFrame(void* /*data*/, void* hint) {
  delete static_cast<std::shared_ptr<void>*>(hint);
}

}  // namespace

ZmqTransport::ZmqTransport(zmq::context_t& context, std::string id,
                           std::chrono::milliseconds send_timeout,
                           std::optional<CurveIdentity> curve, Logger log)
    : context_(context),
      id_(std::move(id)),
      send_timeout_(send_timeout),
      curve_(std::move(curve)),
      log_(std::move(log)) {}

ZmqTransport::~ZmqTransport() = default;

Result<std::string> ZmqTransport::Bind(const std::string& endpoint) {
  try {
    auto socket = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::router);
    socket->set(zmq::sockopt::router_mandatory, 1);
    socket->set(zmq::sockopt::maxmsgsize, kMaxInboundMessage);
    socket->set(zmq::sockopt::linger, 1000);
    socket->set(zmq::sockopt::sndhwm, kHighWaterMark);
    socket->set(zmq::sockopt::rcvhwm, kHighWaterMark);
    if (curve_) {
      socket->set(zmq::sockopt::curve_server, 1);
      socket->set(zmq::sockopt::curve_secretkey, curve_->own.secret_key);
      socket->set(zmq::sockopt::zap_domain, "strads");
    }
    socket->bind(endpoint);
    std::string bound = socket->get(zmq::sockopt::last_endpoint);
    routers_.push_back(std::move(socket));
    bound_.push_back(bound);
    return bound;
  } catch (const zmq::error_t& e) {
    return Status::Unavailable("cannot bind " + endpoint + ": " + e.what());
  }
}

Status ZmqTransport::Connect(const std::string& peer, const std::string& endpoint) {
  auto it = dealer_endpoints_.find(peer);
  if (it != dealer_endpoints_.end()) {
    if (it->second == endpoint) return Status::Ok();
    Disconnect(peer);
  }
  try {
    auto socket = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
    socket->set(zmq::sockopt::routing_id, id_);
    socket->set(zmq::sockopt::immediate, 1);
    socket->set(zmq::sockopt::linger, 1000);
    socket->set(zmq::sockopt::sndtimeo, static_cast<int>(send_timeout_.count()));
    socket->set(zmq::sockopt::sndhwm, kHighWaterMark);
    socket->set(zmq::sockopt::rcvhwm, kHighWaterMark);
    if (curve_) SetCurveClient(*socket, *curve_);
    socket->connect(endpoint);
    dealers_[peer] = std::move(socket);
    dealer_endpoints_[peer] = endpoint;
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return Status::InvalidArgument("cannot connect to " + peer + " at " + endpoint + ": " +
                                   e.what());
  }
}

void ZmqTransport::Disconnect(const std::string& peer) {
  dealers_.erase(peer);
  dealer_endpoints_.erase(peer);
}

Status ZmqTransport::Send(const std::string& peer, const proto::Envelope& envelope) {
  return SendOwned(peer, proto::Envelope(envelope));
}

Status ZmqTransport::SendOwned(const std::string& peer, proto::Envelope&& envelope) {
  STRADS_ASSIGN_OR_RETURN(auto wire, EncodeWire(std::move(envelope)));
  // The frames after the routing id (ROUTER only): the header, then each array in place; ZeroMQ
  // releases an array's owner once the frame is sent.
  std::vector<zmq::message_t> frames;
  frames.reserve(wire.arrays.size() + 2);
  uint64_t bytes = wire.header.size();
  for (const RawFrame& a : wire.arrays) bytes += a.size;
  auto add_body = [&] {
    frames.emplace_back(wire.header.data(), wire.header.size());
    for (RawFrame& a : wire.arrays) {
      auto* owner = new std::shared_ptr<void>(std::move(a.owner));
      frames.emplace_back(const_cast<void*>(a.data), a.size, &ReleaseRawFrame, owner);
    }
  };
  try {
    if (auto it = dealers_.find(peer); it != dealers_.end()) {
      add_body();
      auto sent = zmq::send_multipart(*it->second, frames, zmq::send_flags::none);
      if (!sent) {
        return Status::Unavailable("send to " + peer + " at " + dealer_endpoints_[peer] +
                                   " timed out after " + std::to_string(send_timeout_.count()) +
                                   " ms (peer unreachable?)");
      }
      traffic_.Sent(peer, bytes);
      return Status::Ok();
    }
    if (auto it = routes_.find(peer); it != routes_.end()) {
      zmq::socket_t& router = *routers_[it->second];
      frames.emplace_back(peer.data(), peer.size());
      add_body();
      auto sent = zmq::send_multipart(router, frames, zmq::send_flags::dontwait);
      if (!sent) return Status::Unavailable("peer " + peer + " is not draining its messages");
      traffic_.Sent(peer, bytes);
      return Status::Ok();
    }
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH) {
      routes_.erase(peer);
      return Status::Unavailable("peer " + peer + " is gone");
    }
    return Status::Unavailable("send to " + peer + " failed: " + e.what());
  }
  return Status::Unavailable("no route to " + peer);
}

std::optional<proto::Envelope> ZmqTransport::Parse(std::span<const zmq::message_t> body) {
  if (body.empty() || body.size() > kMaxFrames) {
    ++malformed_;
    return std::nullopt;
  }
  std::vector<std::string_view> arrays;
  arrays.reserve(body.size() - 1);
  for (size_t k = 1; k < body.size(); ++k) arrays.push_back(body[k].to_string_view());
  auto envelope = DecodeWire(body[0].to_string_view(), arrays);
  if (!envelope.ok()) {
    ++malformed_;
    if (!log_) return std::nullopt;
    if (auto line =
            malformed_log_.Note("dropped a malformed message: " + envelope.status().message(),
                                std::chrono::steady_clock::now())) {
      log_->warn("{}", *line);
    }
    return std::nullopt;
  }
  return std::move(envelope).value();
}

std::optional<proto::Envelope> ZmqTransport::Admit(zmq::message_t& routing_id,
                                                   std::span<const zmq::message_t> body) {
  auto envelope = Parse(body);
  if (!envelope) return std::nullopt;
  std::string user_id;
  if (curve_) {
    // Set by our ZAP handler on every CURVE connection; absent only if the handler is missing.
    const char* value = zmq_msg_gets(body[0].handle(), "User-Id");
    user_id = value ? value : "";
  }
  if (Status st = CheckSender(*envelope, routing_id.to_string_view(), user_id); !st.ok()) {
    ++refused_;
    if (!log_) return std::nullopt;
    // A line per kind of message: a refused register does not hide a refused job_failed.
    if (auto line = refused_log_[BodyName(*envelope)].Note("refused a message: " + st.message(),
                                                           std::chrono::steady_clock::now())) {
      log_->warn("{}", *line);
    }
    return std::nullopt;
  }
  return envelope;
}

namespace {

uint64_t FrameBytes(std::span<const zmq::message_t> frames) {
  uint64_t bytes = 0;
  for (const zmq::message_t& f : frames) bytes += f.size();
  return bytes;
}

}  // namespace

std::optional<proto::Envelope> ZmqTransport::Receive(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<zmq::socket_t*> sockets;
  for (auto& r : routers_) sockets.push_back(r.get());
  for (auto& [peer, d] : dealers_) sockets.push_back(d.get());
  if (sockets.empty()) return std::nullopt;
  std::vector<zmq::pollitem_t> items;
  for (auto* s : sockets) items.push_back({static_cast<void*>(*s), 0, ZMQ_POLLIN, 0});

  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) left = std::chrono::milliseconds(0);
    try {
      if (zmq::poll(items, left) == 0) return std::nullopt;
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return std::nullopt;
      throw;
    }
    const size_t n = items.size();
    for (size_t k = 0; k < n; ++k) {
      size_t i = (next_poll_start_ + k) % n;
      if (!(items[i].revents & ZMQ_POLLIN)) continue;
      next_poll_start_ = (i + 1) % n;
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(*sockets[i], std::back_inserter(frames), zmq::recv_flags::dontwait))
        continue;
      if (i < routers_.size()) {
        if (frames.size() < 2) {
          ++malformed_;
          continue;
        }
        auto envelope = Admit(frames[0], std::span<const zmq::message_t>(frames).subspan(1));
        if (!envelope) continue;
        routes_[frames[0].to_string()] = i;
        traffic_.Received(envelope->sender(), FrameBytes(std::span(frames).subspan(1)));
        return envelope;
      }
      auto envelope = Parse(frames);
      if (envelope) {
        traffic_.Received(envelope->sender(), FrameBytes(frames));
        return envelope;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
  }
}

void SetCurveClient(zmq::socket_t& socket, const CurveIdentity& curve) {
  socket.set(zmq::sockopt::curve_serverkey, curve.server_public_key);
  socket.set(zmq::sockopt::curve_publickey, curve.own.public_key);
  socket.set(zmq::sockopt::curve_secretkey, curve.own.secret_key);
}

std::string TcpEndpoint(const std::string& host, int port) {
  return "tcp://" + host + ":" + (port == 0 ? std::string("*") : std::to_string(port));
}

std::string AdvertisedEndpoint(const std::string& bound, const std::string& host) {
  const std::string prefix = "tcp://";
  if (bound.rfind(prefix, 0) != 0) return bound;
  auto colon = bound.rfind(':');
  std::string bound_host = bound.substr(prefix.size(), colon - prefix.size());
  if (bound_host == "0.0.0.0" || bound_host == "*" || bound_host == "[::]") {
    return prefix + host + bound.substr(colon);
  }
  return bound;
}

}  // namespace strads
