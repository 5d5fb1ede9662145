// The JSON form of a coordinator's StatusReply: what `strads status --json` prints and what the
// Python package's strads.Client.status() returns (members with their heartbeats, jobs with their
// state and progress).
#pragma once

#include <nlohmann/json.hpp>

#include "strads.pb.h"

namespace strads {

nlohmann::ordered_json StatusToJson(const proto::StatusReply& status);

}  // namespace strads
