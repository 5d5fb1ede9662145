#include "common/traffic_counter.h"

namespace strads {
namespace {

constexpr std::array<proto::Role, 4> kRoles = {proto::ROLE_COORDINATOR, proto::ROLE_SCHEDULER,
                                               proto::ROLE_WORKER, proto::ROLE_UNSPECIFIED};

}  // namespace

size_t TrafficCounter::KindOf(std::string_view id) {
  if (id.starts_with("coordinator")) return 0;
  if (id.starts_with("scheduler")) return 1;
  if (id.starts_with("worker")) return 2;
  return 3;
}

proto::Role TrafficCounter::RoleOf(std::string_view id) { return kRoles[KindOf(id)]; }

void TrafficCounter::Sent(std::string_view peer, uint64_t bytes) {
  Counts& c = counts_[KindOf(peer)];
  c.bytes_sent += bytes;
  ++c.messages_sent;
}

void TrafficCounter::Received(std::string_view peer, uint64_t bytes) {
  Counts& c = counts_[KindOf(peer)];
  c.bytes_received += bytes;
  ++c.messages_received;
}

void TrafficCounter::Export(google::protobuf::RepeatedPtrField<proto::PeerTraffic>& out) const {
  out.Clear();
  for (size_t k = 0; k < kKinds; ++k) {
    const Counts& c = counts_[k];
    if (c.messages_sent == 0 && c.messages_received == 0) continue;
    proto::PeerTraffic* t = out.Add();
    t->set_peer(kRoles[k]);
    t->set_bytes_sent(c.bytes_sent);
    t->set_bytes_received(c.bytes_received);
    t->set_messages_sent(c.messages_sent);
    t->set_messages_received(c.messages_received);
  }
}

}  // namespace strads
