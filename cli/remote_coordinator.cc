#include "cli/remote_coordinator.h"

#include <unistd.h>

#include <fmt/format.h>

#include "common/daemon.h"
#include "common/endpoint_probe.h"
#include "common/protocol.h"

namespace strads {

Result<std::unique_ptr<RemoteCoordinator>> ConnectCoordinator(
    const std::string& endpoint, double timeout_s, const std::optional<CurveIdentity>& curve) {
  auto r = std::make_unique<RemoteCoordinator>();
  r->endpoint = endpoint;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  switch (ProbeEndpoint(r->context, endpoint, timeout, curve)) {
    case ProbeResult::kRefused:
      return Status::Unavailable("no coordinator at " + endpoint + " (connection refused)");
    case ProbeResult::kSilent:
      return Status::Unavailable(fmt::format("no coordinator at {} (no connection within {} ms)",
                                             endpoint, timeout.count()));
    case ProbeResult::kKeyRefused:
      return Status::FailedPrecondition(
          "the coordinator at " + endpoint +
          " refused this client's key: its public key is not in the cluster's "
          "authorized_clients (strads-cluster keygen adds it)");
    case ProbeResult::kKeysMismatch:
      return Status::FailedPrecondition(
          curve ? "the coordinator at " + endpoint +
                      " did not accept this client's CURVE handshake: it runs without keys, or "
                      "with another cluster key than --cluster-key"
                : "the coordinator at " + endpoint +
                      " requires CURVE keys and this client has none (--client-key, "
                      "--cluster-key; README \"Security\")");
    case ProbeResult::kAccepted:
      break;
  }
  r->transport = std::make_unique<ZmqTransport>(
      r->context, fmt::format("cli@{}:{}", HostName(), getpid()), timeout, curve);
  (void)r->transport->Connect(kCoordinatorId, endpoint);
  r->client =
      std::make_unique<Client>(*r->transport, kCoordinatorId, "coordinator-status", timeout);
  return r;
}

std::string UnreachableMessage(const Status& st, const std::string& endpoint,
                               const std::string& choose_address) {
  if (st.code() == StatusCode::kFailedPrecondition) return st.message();
  const std::string what = st.message().find(endpoint) != std::string::npos
                               ? st.message()
                               : fmt::format("{} (coordinator {})", st.message(), endpoint);
  return fmt::format(
      "{}\n  start a cluster: strads-cluster start --hostfile FILE (it prints the address)\n"
      "  or name a running one: {}",
      what, choose_address);
}

Status ConnectStatus(RemoteCoordinator& r) {
  auto req = MakeEnvelope(r.transport->id());
  req.mutable_status_request()->set_max_jobs(1);  // only the endpoint is wanted
  auto reply = r.client->Call(req);
  if (!reply.ok()) return reply.status();
  const std::string& ep = reply->status_reply().status_endpoint();
  return r.transport->Connect("coordinator-status", ep.empty() ? r.endpoint : ep);
}

}  // namespace strads
