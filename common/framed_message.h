// Framed messages: a protobuf message on disk with a header that tells a whole file from a torn
// or corrupt one.
//
// The frame is MAGIC (8 bytes, naming the kind of file), the payload's length (u32, little
// endian), its CRC-32 (u32), and the serialized message. A write cut short leaves a frame whose
// length does not match; a flipped byte fails the checksum. Used for the coordinator's job records
// (coordinator/job_journal.h) and checkpoints (coordinator/checkpoint_store.h), each written with
// WriteFileAtomically.
// Thread-safety: free functions without state.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message_lite.h>

#include "common/status.h"

namespace strads {

// REQUIRES: magic.size() == 8.
std::string EncodeFramed(std::string_view magic, const google::protobuf::MessageLite& message);

// Parses a frame written by EncodeFramed with the same magic into `out`. InvalidArgument names
// what is wrong: "torn record: ...", "not a <what> (bad magic)", "corrupt record: ...".
Status DecodeFramed(std::string_view magic, std::string_view what, std::string_view bytes,
                    google::protobuf::MessageLite& out);

}  // namespace strads
