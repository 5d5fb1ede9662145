#include "common/log_throttle.h"

#include <fmt/format.h>

namespace strads {

std::optional<std::string> LogThrottle::Note(std::string_view text, Clock::time_point now) {
  if (last_logged_ && now - *last_logged_ < interval_) {
    ++untold_;
    return std::nullopt;
  }
  std::string line(text);
  if (untold_ > 0) {
    line += fmt::format(" (and {} more like it in the last {:.1f} s)", untold_,
                        std::chrono::duration<double>(now - *last_logged_).count());
  }
  last_logged_ = now;
  untold_ = 0;
  return line;
}

}  // namespace strads
