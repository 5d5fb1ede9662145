// A ZeroMQ connection to a coordinator daemon, as every client verb makes it (`strads submit|
// status|jobs|cancel|result|shutdown`, the Python package's strads.Client): a transport with a
// unique client id connected to the control endpoint, and on demand to the status socket whose
// endpoint the coordinator tells.
// Thread-compatibility: one thread (ZeroMQ sockets are not thread-safe).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <zmq.hpp>

#include "cli/client.h"
#include "common/status.h"
#include "common/zmq_transport.h"

namespace strads {

struct RemoteCoordinator {
  zmq::context_t context;  // before the transport, which uses it
  std::unique_ptr<ZmqTransport> transport;
  std::unique_ptr<Client> client;
  std::string endpoint;
};

// Connects to the coordinator at `endpoint` (tcp://HOST:PORT), as a CURVE client with `curve`
// (cli/client_keys.h); every request then waits at most `timeout_s`. Unavailable at once if the
// connection is refused (common/endpoint_probe.h), or if none is made within the timeout: "no
// coordinator at ENDPOINT (...)". FailedPrecondition at once if the handshake refused this
// client's key or its lack of one: "the coordinator at ENDPOINT refused this client's key: ..." or
// "... requires CURVE keys and this client has none ...".
Result<std::unique_ptr<RemoteCoordinator>> ConnectCoordinator(
    const std::string& endpoint, double timeout_s,
    const std::optional<CurveIdentity>& curve = std::nullopt);

// What a client says when it cannot reach the coordinator at `endpoint` (the CLI's exit code 3,
// strads.Client's ConnectionError): `st`'s message, naming the endpoint, then a line on how to
// start a cluster (`strads-cluster start --hostfile FILE`) and one on how to name a running one,
// `choose_address` (the CLI's --coordinator and STRADS_COORDINATOR). A refused key
// (FailedPrecondition) is not about a missing cluster: its message comes alone.
std::string UnreachableMessage(const Status& st, const std::string& endpoint,
                               const std::string& choose_address);

// Asks the control socket where the status socket is, and connects to it (needed before
// Client::Wait/Follow and requests with to_status). Unavailable when nobody answers.
Status ConnectStatus(RemoteCoordinator& r);

}  // namespace strads
