#include "coordinator/check_pacer.h"

#include <algorithm>
#include <chrono>

namespace strads {

CheckPacer::CheckPacer(uint64_t every_updates, uint64_t features, bool by_time)
    : every_(every_updates ? every_updates : std::max<uint64_t>(features, 1)),
      timed_(every_updates == 0 && by_time) {}

bool CheckPacer::Due(uint64_t updates, Clock::time_point now) const {
  const uint64_t since = updates - updates_at_check_;
  if (since >= every_) return true;
  if (timed_ && since > 0 && after_start_) return true;
  if (!timed_ || since == 0 || !resumed_at_ || !last_check_seconds_) return false;
  const double rounds = std::chrono::duration<double>(now - *resumed_at_).count();
  return rounds >= kRoundsPerCheck * *last_check_seconds_;
}

void CheckPacer::Wanted(Clock::time_point now) {
  if (!wanted_at_) wanted_at_ = now;
}

void CheckPacer::Done(uint64_t updates, Clock::time_point now, bool measured) {
  if (wanted_at_ && measured) {
    last_check_seconds_ = std::chrono::duration<double>(now - *wanted_at_).count();
  }
  after_start_ = !measured;
  wanted_at_.reset();
  resumed_at_ = now;
  updates_at_check_ = updates;
}

}  // namespace strads
