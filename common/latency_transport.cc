#include "common/latency_transport.h"

#include <sys/prctl.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <thread>

#include <fmt/format.h>

namespace strads {
namespace {

// While a message is held, arrivals are looked for this often; a message that arrives meanwhile
// is stamped (and so delivered) at most this much late.
constexpr Clock::duration kPollInterval = std::chrono::microseconds(10);

void PreciseSleep(Clock::duration d) {
  // The default timer slack (50 µs) would add as much as the latencies studied; once per thread.
  thread_local const bool slack_set = prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0;
  (void)slack_set;
  std::this_thread::sleep_for(d);
}

}  // namespace

LatencyTransport::LatencyTransport(Transport& inner, std::chrono::microseconds delay, Now now,
                                   SleepFor sleep_for)
    : inner_(inner), delay_(delay), now_(std::move(now)), sleep_for_(std::move(sleep_for)) {}

LatencyTransport::LatencyTransport(Transport& inner, std::chrono::microseconds delay)
    : LatencyTransport(
          inner, delay, [] { return Clock::now(); }, PreciseSleep) {}

void LatencyTransport::Drain(Clock::time_point now) {
  while (auto m = inner_.Receive(std::chrono::milliseconds(0))) {
    held_.emplace_back(now + delay_, std::move(*m));
  }
}

std::optional<proto::Envelope> LatencyTransport::Receive(std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = now_() + timeout;
  for (;;) {
    Clock::time_point now = now_();
    Drain(now);
    if (!held_.empty() && held_.front().first <= now) {
      proto::Envelope e = std::move(held_.front().second);
      held_.pop_front();
      return e;
    }
    if (now >= deadline) return std::nullopt;
    if (held_.empty()) {
      // Nothing held: block on the inner transport, stamping an arrival when it happens.
      const auto wait = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
      auto m = inner_.Receive(wait);
      if (!m) return std::nullopt;  // the inner transport waited out the whole timeout
      held_.emplace_back(now_() + delay_, std::move(*m));
      continue;
    }
    const Clock::time_point wake = std::min(deadline, held_.front().first);
    sleep_for_(std::min<Clock::duration>(wake - now, kPollInterval));
  }
}

Result<std::chrono::microseconds> InjectedLatencyFromEnvironment() {
  const char* env = std::getenv("STRADS_INJECT_LATENCY_US");
  if (env == nullptr || *env == '\0') return std::chrono::microseconds(0);
  const std::string_view text(env);
  long long us = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), us);
  if (ec != std::errc() || end != text.data() + text.size() || us < 0 || us > 1'000'000) {
    return Status::InvalidArgument(fmt::format(
        "bad STRADS_INJECT_LATENCY_US '{}' (expected whole microseconds, 0 to 1000000)", text));
  }
  return std::chrono::microseconds(us);
}

Result<Transport*> WithInjectedLatency(Transport& inner, std::unique_ptr<LatencyTransport>& holder,
                                       const Logger& log) {
  STRADS_ASSIGN_OR_RETURN(auto latency, InjectedLatencyFromEnvironment());
  if (latency.count() == 0) return &inner;
  holder = std::make_unique<LatencyTransport>(inner, latency);
  log->warn("injecting {} us of latency into every message received (STRADS_INJECT_LATENCY_US)",
            latency.count());
  return holder.get();
}

}  // namespace strads
