// FaultInjectingTransport (common/fault_injecting_transport.h) over the in-process hub: every
// scripted fault, one node wrapped, its peer plain. No threads, no sleeps.
#include <chrono>

#include <catch2/catch.hpp>

#include "common/fault_injecting_transport.h"
#include "common/inproc_transport.h"
#include "common/protocol.h"

namespace strads {
namespace {

using std::chrono::milliseconds;
using Kind = proto::Envelope::BodyCase;

proto::Envelope Heartbeat(const std::string& from, uint64_t round) {
  auto e = MakeEnvelope(from, 0, round);
  e.mutable_heartbeat();
  return e;
}

proto::Envelope Ready(const std::string& from, uint64_t round) {
  auto e = MakeEnvelope(from, 0, round);
  e.mutable_ready();
  return e;
}

// Everything waiting in `t`'s inbox, as rounds.
std::vector<uint64_t> Drain(Transport& t) {
  std::vector<uint64_t> rounds;
  while (auto e = t.Receive(milliseconds(0))) rounds.push_back(e->round());
  return rounds;
}

struct Pair {
  InProcHub hub;
  InProcTransport a_inner{hub, "a"};
  InProcTransport b{hub, "b"};
  FaultInjectingTransport a{a_inner};
};

}  // namespace

TEST_CASE("with no rules every message passes untouched, both ways", "[faults][transport]") {
  Pair p;
  REQUIRE(p.a.Send("b", Heartbeat("a", 1)).ok());
  REQUIRE(p.b.Send("a", Heartbeat("b", 2)).ok());
  CHECK(Drain(p.b) == std::vector<uint64_t>{1});
  CHECK(Drain(p.a) == std::vector<uint64_t>{2});
  CHECK(p.a.id() == "a");
  CHECK_FALSE(p.a.Send("nobody", Heartbeat("a", 3)).ok());  // the inner transport's errors pass
}

TEST_CASE("drop loses the next n matching messages only, of the selected kind",
          "[faults][transport]") {
  Pair p;
  p.a.Drop(SendsOf(Kind::kHeartbeat), 2);
  for (uint64_t r = 1; r <= 4; ++r) REQUIRE(p.a.Send("b", Heartbeat("a", r)).ok());
  REQUIRE(p.a.Send("b", Ready("a", 5)).ok());
  CHECK(Drain(p.b) == std::vector<uint64_t>{3, 4, 5});
  CHECK(p.a.dropped() == 2);
}

TEST_CASE("drop on receive filters by sender", "[faults][transport]") {
  Pair p;
  InProcTransport c(p.hub, "c");
  p.a.Drop(ReceivesOf(Kind::BODY_NOT_SET, "b"));
  REQUIRE(p.b.Send("a", Heartbeat("b", 1)).ok());
  REQUIRE(c.Send("a", Heartbeat("c", 2)).ok());
  REQUIRE(p.b.Send("a", Heartbeat("b", 3)).ok());
  CHECK(Drain(p.a) == std::vector<uint64_t>{2});
}

TEST_CASE("delay holds matching messages until released, then delivers them in order",
          "[faults][transport]") {
  Pair p;
  p.a.Delay(SendsOf(Kind::kReady, "b"));
  REQUIRE(p.a.Send("b", Ready("a", 1)).ok());
  REQUIRE(p.a.Send("b", Ready("a", 2)).ok());
  REQUIRE(p.a.Send("b", Heartbeat("a", 3)).ok());
  CHECK(Drain(p.b) == std::vector<uint64_t>{3});
  CHECK(p.a.held() == 2);
  p.a.ClearRules();
  p.a.Release();
  REQUIRE(p.a.Send("b", Ready("a", 4)).ok());  // the owner's next send flushes the held ones first
  CHECK(Drain(p.b) == std::vector<uint64_t>{1, 2, 4});
  CHECK(p.a.held() == 0);
}

TEST_CASE("a delayed incoming message arrives after release, before later ones",
          "[faults][transport]") {
  Pair p;
  p.a.Delay(ReceivesOf(Kind::kReady));
  REQUIRE(p.b.Send("a", Ready("b", 1)).ok());
  CHECK(Drain(p.a).empty());
  p.a.ClearRules();
  REQUIRE(p.b.Send("a", Ready("b", 2)).ok());
  p.a.Release();
  CHECK(Drain(p.a) == std::vector<uint64_t>{1, 2});
}

TEST_CASE("duplicate delivers each matching message twice, on send and on receive",
          "[faults][transport]") {
  Pair p;
  p.a.Duplicate(SendsOf(Kind::kReady), 1);
  p.a.Duplicate(ReceivesOf(Kind::kHeartbeat));
  REQUIRE(p.a.Send("b", Ready("a", 1)).ok());
  REQUIRE(p.a.Send("b", Ready("a", 2)).ok());
  CHECK(Drain(p.b) == std::vector<uint64_t>{1, 1, 2});
  REQUIRE(p.b.Send("a", Heartbeat("b", 7)).ok());
  CHECK(Drain(p.a) == std::vector<uint64_t>{7, 7});
}

TEST_CASE("owned sends meet the same faults: dropped, held and released intact, duplicated",
          "[faults][transport]") {
  Pair p;
  p.a.Drop(SendsOf(Kind::kReady), 1);
  p.a.Delay(SendsOf(Kind::kHeartbeat, "b"));
  p.a.Duplicate(SendsOf(Kind::kReady));
  REQUIRE(p.a.SendOwned("b", Ready("a", 1)).ok());      // dropped
  REQUIRE(p.a.SendOwned("b", Heartbeat("a", 2)).ok());  // held
  REQUIRE(p.a.SendOwned("b", Ready("a", 3)).ok());      // twice
  CHECK(p.a.dropped() == 1);
  CHECK(p.a.held() == 1);
  CHECK(Drain(p.b) == std::vector<uint64_t>{3, 3});
  p.a.Release();
  p.a.ClearRules();
  REQUIRE(p.a.SendOwned("b", Heartbeat("a", 4)).ok());  // the held one goes first
  auto first = p.b.Receive(milliseconds(0));
  REQUIRE(first);
  CHECK(first->round() == 2);
  CHECK(first->sender() == "a");
  CHECK(first->has_heartbeat());
  CHECK(Drain(p.b) == std::vector<uint64_t>{4});
  CHECK_FALSE(p.a.SendOwned("nobody", Heartbeat("a", 5)).ok());  // the inner transport's errors
}

TEST_CASE("kill at message n: the n-th send goes out, then the node is silent both ways",
          "[faults][transport]") {
  Pair p;
  p.a.KillAt(SendsOf(Kind::kReady), 2);
  REQUIRE(p.a.Send("b", Ready("a", 1)).ok());
  REQUIRE(p.a.Send("b", Heartbeat("a", 2)).ok());  // not counted: another kind
  CHECK_FALSE(p.a.killed());
  REQUIRE(p.a.Send("b", Ready("a", 3)).ok());
  CHECK(p.a.killed());
  CHECK(p.a.Send("b", Heartbeat("a", 4)).ok());  // swallowed: a dead process reports nothing
  CHECK(Drain(p.b) == std::vector<uint64_t>{1, 2, 3});
  REQUIRE(p.b.Send("a", Heartbeat("b", 5)).ok());  // its inbox still exists, like a dead socket
  CHECK(Drain(p.a).empty());
}

TEST_CASE("kill at the n-th received message: that message is the last one seen",
          "[faults][transport]") {
  Pair p;
  p.a.KillAt(ReceivesOf(Kind::kHeartbeat, "b"), 1);
  p.a.Delay(SendsOf(Kind::kReady));
  REQUIRE(p.a.Send("b", Ready("a", 1)).ok());  // held
  REQUIRE(p.b.Send("a", Heartbeat("b", 2)).ok());
  REQUIRE(p.b.Send("a", Heartbeat("b", 3)).ok());
  CHECK(Drain(p.a) == std::vector<uint64_t>{2});
  CHECK(p.a.killed());
  p.a.Release();
  REQUIRE(p.a.Send("b", Ready("a", 4)).ok());
  CHECK(Drain(p.b).empty());  // neither the held message nor later ones leave a dead node
}

}  // namespace strads
