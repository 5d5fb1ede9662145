// ZapHandler: the ZeroMQ Authentication Protocol (RFC 27) handler of a daemon's context.
//
// libzmq asks the handler bound at inproc://zeromq.zap.01 of a context about every handshake of a
// CURVE server socket in that context, and refuses the connection unless it answers 200. The
// handler answers with CurveTrust::Authorize (common/curve_keys.h): the cluster key is a member,
// an authorised client key a client, with that word as the connection's User-Id (read back by
// ZmqTransport for every message, common/sender_check.h). Refusals are logged with the peer's
// address and the reason.
//
// Thread-safety: the handler runs on its own thread, owning its two sockets (the REP socket
// libzmq talks to and the inproc pipe the destructor uses to stop it); construct it before the
// first CURVE socket binds and destroy it after the last one closes. `trust` is copied.
#pragma once

#include <memory>
#include <thread>

#include <zmq.hpp>

#include "common/curve_keys.h"
#include "common/logging.h"

namespace strads {

class ZapHandler {
 public:
  // Binds the handler in `context` (which must outlive it). Fails if another handler is bound.
  static Result<std::unique_ptr<ZapHandler>> Start(zmq::context_t& context, CurveTrust trust,
                                                   Logger log);
  ~ZapHandler();
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

 private:
  ZapHandler(zmq::context_t& context, CurveTrust trust, Logger log);
  void Run();

  zmq::context_t& context_;
  CurveTrust trust_;
  Logger log_;
  zmq::socket_t zap_;   // used by the thread only once it runs
  zmq::socket_t stop_;  // the destructor's end of the stop pipe
  zmq::socket_t stop_listener_;
  std::thread thread_;
};

}  // namespace strads
