// TrafficCounter: the bytes and messages a node's transport sent to and received from each kind
// of peer (coordinator, scheduler, worker, any other), told apart by the peer's id
// ("worker@host:pid", "worker-1", "coordinator"). ZmqTransport counts what it puts on and takes
// off the wire; members report theirs with every heartbeat and the coordinator shows them with
// its own in the status (strads status --json), so bench/scaling.py can give a round's bytes on
// each kind of link.
// Thread-compatibility: a value type, used by its transport's thread.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <google/protobuf/repeated_ptr_field.h>

#include "strads.pb.h"

namespace strads {

class TrafficCounter {
 public:
  // The role an id names by its prefix; ROLE_UNSPECIFIED for any other (a client).
  static proto::Role RoleOf(std::string_view id);

  void Sent(std::string_view peer, uint64_t bytes);
  void Received(std::string_view peer, uint64_t bytes);
  // One PeerTraffic a kind of peer that carried anything, replacing `out`.
  void Export(google::protobuf::RepeatedPtrField<proto::PeerTraffic>& out) const;

 private:
  struct Counts {
    uint64_t bytes_sent = 0, bytes_received = 0, messages_sent = 0, messages_received = 0;
  };
  static constexpr size_t kKinds = 4;  // coordinator, scheduler, worker, other
  static size_t KindOf(std::string_view id);
  std::array<Counts, kKinds> counts_{};
};

}  // namespace strads
