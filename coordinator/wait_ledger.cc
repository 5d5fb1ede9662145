#include "coordinator/wait_ledger.h"

#include <algorithm>
#include <chrono>

namespace strads {

void WaitLedger::Mark(Clock::time_point now, Wait wait) {
  if (since_ && now > *since_) {
    seconds_[static_cast<size_t>(state_)] += std::chrono::duration<double>(now - *since_).count();
  }
  if (!since_ || now > *since_) since_ = now;
  state_ = wait;
}

void WaitLedger::Move(Wait from, Wait to, double seconds) {
  double& source = seconds_[static_cast<size_t>(from)];
  const double amount = std::min(seconds, source);
  if (!(amount > 0) || from == to) return;
  source -= amount;
  seconds_[static_cast<size_t>(to)] += amount;
  moved_ += amount;
}

double WaitLedger::Solving() const {
  double sum = 0;
  for (size_t k = 1; k < kWaits; ++k) sum += seconds_[k];
  return sum;
}

std::string_view WaitLedger::Name(Wait wait) {
  switch (wait) {
    case Wait::kNone:
      return "none";
    case Wait::kChord:
      return "chord";
    case Wait::kWorkers:
      return "workers";
    case Wait::kCheckWorkers:
      return "check_workers";
    case Wait::kCheckSchedulers:
      return "check_schedulers";
    case Wait::kCoordinator:
      return "coordinator";
    case Wait::kOther:
      return "other";
  }
  return "?";
}

nlohmann::ordered_json WaitLedger::Json() const {
  nlohmann::ordered_json json;
  for (size_t k = 1; k < kWaits; ++k) {
    json[std::string(Name(static_cast<Wait>(k))) + "_s"] = seconds_[k];
  }
  json["moved_s"] = moved_;
  json["schedulers_share"] = SchedulersShare();
  return json;
}

double WaitLedger::SchedulersShare() const {
  const double solving = Solving();
  return solving > 0 ? (Seconds(Wait::kChord) + Seconds(Wait::kCheckSchedulers)) / solving : 0.0;
}

}  // namespace strads
