// WireText: the one way error text leaves a process.
//
// Protobuf refuses to parse a string field that is not valid UTF-8, so an error message that
// quotes bytes of a binary file would never arrive: the receiver drops the whole message and the
// job waits for an answer forever. Every error text put on the wire (a member's Ready error, the
// coordinator's ErrorReply and a job's error) goes through WireText, which keeps printable UTF-8
// as it is and writes every other byte (control characters, DEL, bytes of an invalid, overlong or
// surrogate sequence) as the four characters \xNN. The result is valid UTF-8 by construction and
// at most `max_bytes` long (then it ends in "...").
//
// Pure functions: safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace strads {

inline constexpr size_t kMaxWireTextBytes = 4096;

// `text` with its non-printable and non-UTF-8 bytes escaped as \xNN, cut to `max_bytes`.
std::string WireText(std::string_view text, size_t max_bytes = kMaxWireTextBytes);

// Length of the valid UTF-8 sequence at the start of `s` (1 to 4), or 0 when `s` does not start
// with one (an empty `s`, a stray continuation byte, a truncated, overlong or surrogate sequence,
// or a code point above U+10FFFF).
size_t Utf8SequenceLength(std::string_view s);

}  // namespace strads
