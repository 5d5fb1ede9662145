// A ZeroMQ connection to a coordinator daemon, as every client verb (`strads submit|status|jobs|
// cancel|result`, the Python package's strads.Client) makes it: a DEALER-style transport with a
// unique client id, connected to the control endpoint, and on demand to the status socket whose
// endpoint the coordinator tells.
// Thread-compatibility: one thread (ZeroMQ sockets are not thread-safe).
#pragma once

#include <memory>
#include <string>

#include <zmq.hpp>

#include "cli/client.h"
#include "common/status.h"
#include "common/zmq_transport.h"

namespace strads {

class RemoteCoordinator {
 public:
  // Connects (lazily: ZeroMQ connects in the background) to the control endpoint `endpoint`, e.g.
  // tcp://host:7700; every request waits at most `timeout_s` for its answer.
  RemoteCoordinator(const std::string& endpoint, double timeout_s);

  // Asks the control socket where the status socket is, and connects to it (needed before
  // Client::Wait/Follow and status requests with to_status). Unavailable when nobody answers.
  Status ConnectStatus();

  Client& client() { return *client_; }
  const std::string& endpoint() const { return endpoint_; }
  const std::string& id() const { return transport_->id(); }

 private:
  zmq::context_t context_;  // before the transport, which uses it
  std::unique_ptr<ZmqTransport> transport_;
  std::unique_ptr<Client> client_;
  std::string endpoint_;
};

}  // namespace strads
