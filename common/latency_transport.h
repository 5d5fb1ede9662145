// LatencyTransport: a decorator that delivers every received message a fixed time after it
// arrived, to emulate a network's one-way latency where the kernel cannot (this machine's kernel
// has no netem qdisc; docs/performance.md).
//
// A message the inner transport hands over at time t is returned by Receive no earlier than
// t + delay, and messages keep their order. Sends pass straight through, so a message between two
// decorated nodes is late by exactly `delay`, one way (plus whatever the inner transport takes).
// It models latency only: no bandwidth limit, no loss, no jitter.
//
// Waiting uses the injected `now` and `sleep_for`, so a test drives it with a fake clock; the
// daemons pass the steady clock and a sleep whose timer slack is 1 µs (the default 50 µs would be
// as large as the delays studied).
//
// Thread-safety: like every Transport, for the owning event loop only.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/event_loop.h"
#include "common/logging.h"
#include "common/status.h"
#include "common/transport.h"

namespace strads {

class LatencyTransport : public Transport {
 public:
  using Now = std::function<Clock::time_point()>;
  using SleepFor = std::function<void(Clock::duration)>;

  // REQUIRES: `inner` outlives this decorator and is used through it only; delay >= 0.
  LatencyTransport(Transport& inner, std::chrono::microseconds delay, Now now, SleepFor sleep_for);

  // The steady clock and a precise sleep (see the header comment).
  LatencyTransport(Transport& inner, std::chrono::microseconds delay);

  std::chrono::microseconds delay() const { return delay_; }

  // Transport.
  const std::string& id() const override { return inner_.id(); }
  Status Connect(const std::string& peer, const std::string& endpoint) override {
    return inner_.Connect(peer, endpoint);
  }
  Status Send(const std::string& peer, const proto::Envelope& envelope) override {
    return inner_.Send(peer, envelope);
  }
  Status SendOwned(const std::string& peer, proto::Envelope&& envelope) override {
    return inner_.SendOwned(peer, std::move(envelope));
  }
  std::optional<proto::Envelope> Receive(std::chrono::milliseconds timeout) override;
  std::vector<std::string> endpoints() const override { return inner_.endpoints(); }
  const TrafficCounter* traffic() const override { return inner_.traffic(); }

 private:
  // Moves whatever the inner transport has now (without waiting) into held_.
  void Drain(Clock::time_point now);

  Transport& inner_;
  const std::chrono::microseconds delay_;
  Now now_;
  SleepFor sleep_for_;
  std::deque<std::pair<Clock::time_point, proto::Envelope>> held_;  // (due, message), due order
};

// The latency the daemons and `strads run` inject, from $STRADS_INJECT_LATENCY_US (microseconds,
// one way; unset or 0: none). A value that is not a whole number in [0, 1e6] is an error.
Result<std::chrono::microseconds> InjectedLatencyFromEnvironment();

// The transport a daemon's actor uses: `inner` itself, or `inner` behind a LatencyTransport (kept
// in `holder`) when $STRADS_INJECT_LATENCY_US asks for one, which is logged as a warning (it is a
// benchmark's knob, never for production).
Result<Transport*> WithInjectedLatency(Transport& inner, std::unique_ptr<LatencyTransport>& holder,
                                       const Logger& log);

}  // namespace strads
