#include "cli/remote_coordinator.h"

#include <unistd.h>

#include <fmt/format.h>

#include "common/daemon.h"
#include "common/endpoint_probe.h"
#include "common/protocol.h"

namespace strads {

Result<std::unique_ptr<RemoteCoordinator>> ConnectCoordinator(const std::string& endpoint,
                                                              double timeout_s) {
  auto r = std::make_unique<RemoteCoordinator>();
  r->endpoint = endpoint;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  switch (ProbeEndpoint(r->context, endpoint, timeout)) {
    case ProbeResult::kRefused:
      return Status::Unavailable("no coordinator at " + endpoint + " (connection refused)");
    case ProbeResult::kSilent:
      return Status::Unavailable(fmt::format("no coordinator at {} (no connection within {} ms)",
                                             endpoint, timeout.count()));
    case ProbeResult::kAccepted:
      break;
  }
  r->transport = std::make_unique<ZmqTransport>(
      r->context, fmt::format("cli@{}:{}", HostName(), getpid()), timeout);
  (void)r->transport->Connect(kCoordinatorId, endpoint);
  r->client =
      std::make_unique<Client>(*r->transport, kCoordinatorId, "coordinator-status", timeout);
  return r;
}

Status ConnectStatus(RemoteCoordinator& r) {
  auto req = MakeEnvelope(r.transport->id());
  req.mutable_status_request();
  auto reply = r.client->Call(req);
  if (!reply.ok()) return reply.status();
  const std::string& ep = reply->status_reply().status_endpoint();
  return r.transport->Connect("coordinator-status", ep.empty() ? r.endpoint : ep);
}

}  // namespace strads
