#include "common/sender_check.h"

#include <fmt/format.h>

#include "common/curve_keys.h"
#include "common/protocol.h"
#include "common/wire_text.h"

namespace strads {
namespace {

bool IsClientRequest(const proto::Envelope& e) {
  switch (e.body_case()) {
    case proto::Envelope::kSubmit:
    case proto::Envelope::kCancel:
    case proto::Envelope::kStatusRequest:
    case proto::Envelope::kResultRequest:
    case proto::Envelope::kShutdownCluster:
      return true;
    default:
      return false;
  }
}

}  // namespace

Status CheckSender(const proto::Envelope& e, std::string_view routing_id,
                   std::string_view user_id) {
  if (e.sender() != routing_id) {
    return Status::FailedPrecondition(
        fmt::format("{} declares sender '{}' but its connection is '{}'", BodyName(e),
                    WireText(e.sender(), 200), WireText(routing_id, 200)));
  }
  if (user_id == kClientUserId && !IsClientRequest(e)) {
    return Status::FailedPrecondition(
        fmt::format("{} from '{}' needs the cluster key; a client key may only send requests",
                    BodyName(e), WireText(e.sender(), 200)));
  }
  return Status::Ok();
}

}  // namespace strads
