// CountedNoun: a number and a noun that agrees with it, for messages: "1 worker", "2 workers",
// "0 workers". Regular English plurals only (an "s"): enough for the nouns messages count here
// (worker, scheduler, member, job, daemon). Header-only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strads {

inline std::string CountedNoun(uint64_t n, std::string_view noun) {
  std::string out = std::to_string(n);
  out += ' ';
  out += noun;
  if (n != 1) out += 's';
  return out;
}

}  // namespace strads
