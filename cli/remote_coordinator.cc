#include "cli/remote_coordinator.h"

#include <unistd.h>

#include <fmt/format.h>

#include "common/daemon.h"
#include "common/protocol.h"

namespace strads {

RemoteCoordinator::RemoteCoordinator(const std::string& endpoint, double timeout_s)
    : endpoint_(endpoint) {
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  transport_ = std::make_unique<ZmqTransport>(
      context_, fmt::format("cli@{}:{}", HostName(), getpid()), timeout);
  (void)transport_->Connect(kCoordinatorId, endpoint);
  client_ = std::make_unique<Client>(*transport_, kCoordinatorId, "coordinator-status", timeout);
}

Status RemoteCoordinator::ConnectStatus() {
  auto req = MakeEnvelope(transport_->id());
  req.mutable_status_request();
  auto reply = client_->Call(req);
  if (!reply.ok()) return reply.status();
  const std::string& ep = reply->status_reply().status_endpoint();
  return transport_->Connect("coordinator-status", ep.empty() ? endpoint_ : ep);
}

}  // namespace strads
