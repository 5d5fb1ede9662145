// LatencyTransport (common/latency_transport.h) over the in-process hub with a fake clock: a
// message is returned no earlier than its arrival + the delay, in order, and sends are not held.
#include <chrono>
#include <cstdlib>
#include <vector>

#include <catch2/catch.hpp>

#include "common/inproc_transport.h"
#include "common/latency_transport.h"
#include "common/protocol.h"

namespace strads {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

proto::Envelope Heartbeat(const std::string& from, uint64_t round) {
  auto e = MakeEnvelope(from, 0, round);
  e.mutable_heartbeat();
  return e;
}

// Node "b" receives through a LatencyTransport on a fake clock that its sleeps advance.
struct Delayed {
  explicit Delayed(microseconds delay)
      : b(
            b_inner, delay, [this] { return now; },
            [this](Clock::duration d) {
              now += d;
              slept += d;
            }) {}
  Clock::time_point now{};
  Clock::duration slept{};
  InProcHub hub;
  InProcTransport a{hub, "a"};
  InProcTransport b_inner{hub, "b"};
  LatencyTransport b;
};

}  // namespace

TEST_CASE("LatencyTransport: a message is held until its arrival plus the delay", "[transport]") {
  Delayed d(microseconds(250));
  REQUIRE(d.a.Send("b", Heartbeat("a", 1)).ok());
  const Clock::time_point arrived = d.now;
  CHECK_FALSE(d.b.Receive(milliseconds(0)).has_value());  // arrived, not yet due
  auto m = d.b.Receive(milliseconds(5));
  REQUIRE(m.has_value());
  CHECK(m->round() == 1);
  CHECK(d.now - arrived >= microseconds(250));
  CHECK(d.now - arrived < microseconds(250) + microseconds(10));  // one poll interval at most
}

TEST_CASE("LatencyTransport: messages keep their order, each delayed from its own arrival",
          "[transport]") {
  Delayed d(microseconds(100));
  const Clock::time_point t0 = d.now;
  REQUIRE(d.a.Send("b", Heartbeat("a", 1)).ok());
  CHECK_FALSE(d.b.Receive(milliseconds(0)).has_value());  // stamped at t0
  d.now += microseconds(60);
  REQUIRE(d.a.Send("b", Heartbeat("a", 2)).ok());
  auto first = d.b.Receive(milliseconds(1));  // stamps the second at t0 + 60 µs
  REQUIRE(first.has_value());
  CHECK(first->round() == 1);
  CHECK(d.now - t0 >= microseconds(100));
  CHECK(d.now - t0 < microseconds(110));
  auto second = d.b.Receive(milliseconds(1));
  REQUIRE(second.has_value());
  CHECK(second->round() == 2);
  CHECK(d.now - t0 >= microseconds(160));
  CHECK(d.now - t0 < microseconds(170));
}

TEST_CASE("LatencyTransport: a timeout shorter than the delay returns nothing and keeps it",
          "[transport]") {
  Delayed d(microseconds(5000));
  REQUIRE(d.a.Send("b", Heartbeat("a", 7)).ok());
  CHECK_FALSE(d.b.Receive(milliseconds(2)).has_value());
  CHECK(d.slept >= milliseconds(2));
  auto m = d.b.Receive(milliseconds(10));
  REQUIRE(m.has_value());
  CHECK(m->round() == 7);
}

TEST_CASE("LatencyTransport: sends pass at once, and no delay passes receives at once",
          "[transport]") {
  Delayed d(microseconds(0));
  REQUIRE(d.b.Send("a", Heartbeat("b", 3)).ok());
  auto at_a = d.a.Receive(milliseconds(0));
  REQUIRE(at_a.has_value());
  CHECK(at_a->round() == 3);
  REQUIRE(d.a.Send("b", Heartbeat("a", 4)).ok());
  auto at_b = d.b.Receive(milliseconds(0));
  REQUIRE(at_b.has_value());
  CHECK(at_b->round() == 4);
  CHECK(d.slept == Clock::duration::zero());
  CHECK(d.b.id() == "b");
}

TEST_CASE("InjectedLatencyFromEnvironment: whole microseconds, anything else is an error",
          "[transport]") {
  ::unsetenv("STRADS_INJECT_LATENCY_US");
  CHECK(InjectedLatencyFromEnvironment().value() == microseconds(0));
  ::setenv("STRADS_INJECT_LATENCY_US", "250", 1);
  CHECK(InjectedLatencyFromEnvironment().value() == microseconds(250));
  for (const char* bad : {"-5", "2.5", "50us", "2000000"}) {
    ::setenv("STRADS_INJECT_LATENCY_US", bad, 1);
    auto r = InjectedLatencyFromEnvironment();
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("STRADS_INJECT_LATENCY_US"));
  }
  ::unsetenv("STRADS_INJECT_LATENCY_US");
}

}  // namespace strads
