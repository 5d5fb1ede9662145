// CheckSender: whether a message that arrived on a daemon's inbox may be believed.
//
// A message's `sender` field is a claim; what ZeroMQ knows is the connection it came on: its
// routing id (every STRADS node sets it to its node id, and a ROUTER refuses a second connection
// with an id already in use) and, on a CURVE inbox, the User-Id the ZAP handler gave the
// authenticated key (common/curve_keys.h: "member" for the cluster key, "client" for an
// authorised client key). A message is refused when
//  - its sender differs from its connection's routing id (a member speaking for another), or
//  - on a CURVE inbox, a client key sends anything but a client request (Submit, Cancel,
//    StatusRequest, ResultRequest, ShutdownCluster): Register, Heartbeat, Ready and every other
//    member message need the cluster key.
// Without CURVE (`user_id` empty: loopback clusters, --insecure) only the first rule applies.
// Pure logic. Thread-compatibility: a function.
#pragma once

#include <string_view>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// Ok, or FailedPrecondition naming the rule `envelope` broke.
Status CheckSender(const proto::Envelope& envelope, std::string_view routing_id,
                   std::string_view user_id);

}  // namespace strads
