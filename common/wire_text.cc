#include "common/wire_text.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace strads {

size_t Utf8SequenceLength(std::string_view s) {
  if (s.empty()) return 0;
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = byte(0);
  if (b0 < 0x80) return 1;
  size_t n;
  uint32_t min;  // the smallest code point of that length: anything below is overlong
  uint32_t cp;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

std::string WireText(std::string_view text, size_t max_bytes) {
  constexpr std::string_view kCut = "...";
  const size_t keep = max_bytes - std::min(max_bytes, kCut.size());
  std::string out;
  size_t cut_at = std::string::npos;  // where "..." goes if the whole text does not fit
  while (!text.empty()) {
    const size_t n = Utf8SequenceLength(text);
    const auto b0 = static_cast<uint8_t>(text[0]);
    // C1 controls (U+0080..U+009F) are valid UTF-8 but move terminals around like C0 ones.
    const bool c1 = n == 2 && b0 == 0xC2 && static_cast<uint8_t>(text[1]) < 0xA0;
    const bool verbatim = !c1 && (n > 1 || (n == 1 && b0 >= 0x20 && b0 != 0x7F));
    const std::string piece =
        verbatim ? std::string(text.substr(0, n)) : fmt::format("\\x{:02x}", b0);
    if (cut_at == std::string::npos && out.size() + piece.size() > keep) cut_at = out.size();
    if (out.size() + piece.size() > max_bytes) {
      out.resize(cut_at);
      out += kCut.substr(0, max_bytes - cut_at);
      return out;
    }
    out += piece;
    text.remove_prefix(verbatim ? n : 1);
  }
  return out;
}

}  // namespace strads
