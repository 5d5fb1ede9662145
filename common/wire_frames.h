// Wire frames: how an Envelope travels on a socket, as one protobuf header frame followed by one
// raw frame per bulk numeric array (ps-lite's layout: a meta message plus data blobs).
//
// EncodeWire cuts every repeated numeric field of at least min_elements elements out of the
// envelope, at any depth (a Chord's ids and values, a VectorDelta's indices and values, a
// BlockTransfer's ints and doubles, ...), and lists each in the header's `raw_arrays` by its path
// of field numbers. The arrays are moved, not copied: a frame owns the RepeatedField it was swapped
// out of, so ZeroMQ can send it in place. Smaller arrays stay inside the header, where a frame of
// their own would cost more than their bytes.
//
// DecodeWire puts each array back where its path says. A frame count that does not match the
// list, a path that leads nowhere or to a field that is not a repeated number, an index past a
// repeated message's elements, an empty frame or one whose size is not a whole number of
// elements, or an array given twice is an InvalidArgument, never a
// half-read envelope.
//
// The arrays travel in the machine's byte order, which must be little-endian (checked at compile
// time), as ps-lite's do; every machine STRADS runs on is.
// Thread-safety: free functions without state.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// Below this an array stays in the header. strads-wire-bench, 3 arrays a message on loopback:
// raw frames cost the same as one protobuf frame at 256-1024 numbers an array, 1.26x its time at
// 2048 (a frame's own cost), 0.85x at 4096 and 0.27-0.57x from 16,384 up (docs/performance.md,
// "Raw frames").
inline constexpr int kMinRawElements = 4096;

// One array's bytes; `owner` keeps them alive (and may be handed to the socket with them).
struct RawFrame {
  const void* data = nullptr;
  size_t size = 0;  // bytes
  std::shared_ptr<void> owner;
};

struct WireMessage {
  std::string header;            // the envelope without its bulk arrays, listing them
  std::vector<RawFrame> arrays;  // in the order of the header's raw_arrays
};

// envelope.raw_arrays() is the encoder's to fill: what it holds is dropped. REQUIRES:
// min_elements >= 1.
Result<WireMessage> EncodeWire(proto::Envelope envelope, int min_elements = kMinRawElements);

Result<proto::Envelope> DecodeWire(std::string_view header,
                                   std::span<const std::string_view> arrays);

}  // namespace strads
