#include "common/framed_message.h"

#include <fmt/format.h>
#include <boost/crc.hpp>

namespace strads {
namespace {

constexpr size_t kMagicSize = 8;
constexpr size_t kHeaderSize = kMagicSize + 4 + 4;

uint32_t Crc32(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t GetU32(std::string_view in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

}  // namespace

std::string EncodeFramed(std::string_view magic, const google::protobuf::MessageLite& message) {
  const std::string payload = message.SerializeAsString();
  std::string out(magic.substr(0, kMagicSize));
  PutU32(out, static_cast<uint32_t>(payload.size()));
  PutU32(out, Crc32(payload));
  out += payload;
  return out;
}

Status DecodeFramed(std::string_view magic, std::string_view what, std::string_view bytes,
                    google::protobuf::MessageLite& out) {
  if (bytes.size() < kHeaderSize) {
    return Status::InvalidArgument(fmt::format(
        "torn record: {} bytes, shorter than the {}-byte header", bytes.size(), kHeaderSize));
  }
  if (bytes.substr(0, kMagicSize) != magic.substr(0, kMagicSize)) {
    return Status::InvalidArgument(fmt::format("not a {} (bad magic)", what));
  }
  const uint32_t length = GetU32(bytes.substr(kMagicSize));
  const uint32_t crc = GetU32(bytes.substr(kMagicSize + 4));
  const std::string_view payload = bytes.substr(kHeaderSize);
  if (payload.size() != length) {
    return Status::InvalidArgument(
        fmt::format("torn record: the header announces {} bytes of payload, {} follow", length,
                    payload.size()));
  }
  if (Crc32(payload) != crc) return Status::InvalidArgument("corrupt record: checksum mismatch");
  if (!out.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return Status::InvalidArgument("corrupt record: the payload does not parse");
  }
  return Status::Ok();
}

}  // namespace strads
