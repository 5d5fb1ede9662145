// LogThrottle: at most one log line per interval for a kind of nuisance, however many there are
// (30,000 garbage messages made 30,000 warnings, one per message).
//
// The first occurrence is logged in full. Later ones within `interval` of the last line logged are
// only counted; the first one after the interval is logged with that count: "TEXT (and 29999 more
// like it in the last 10.0 s)". Occurrences counted after the last line are told with the next
// one; exact totals are the caller's counters (e.g. ZmqTransport::malformed_frames()).
// Thread-compatibility: one thread (the event loop that owns what it throttles).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strads {

class LogThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogThrottle(Clock::duration interval = std::chrono::seconds(10)) : interval_(interval) {}

  // The line to log for an occurrence described by `text` at `now`, or nullopt when it is only
  // counted.
  std::optional<std::string> Note(std::string_view text, Clock::time_point now);

  // Occurrences counted but not told yet.
  uint64_t untold() const { return untold_; }

 private:
  Clock::duration interval_;
  std::optional<Clock::time_point> last_logged_;
  uint64_t untold_ = 0;
};

}  // namespace strads
