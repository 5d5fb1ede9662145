// FaultInjectingTransport: a decorator over any Transport whose faults are scripted, so tests of
// lost, late, repeated messages and of a member that dies mid-job are deterministic (no sleeps,
// no killing threads at a wall-clock moment).
//
// A rule selects messages with a MessageFilter (direction, peer, message kind) and applies one
// fault to them:
//  - Drop(filter, n): the next n matching messages vanish (a send reports success, as a message
//    lost on the wire would);
//  - Delay(filter): matching messages are held until Release(), then delivered in their order;
//  - Duplicate(filter, n): the next n matching messages are delivered twice;
//  - KillAt(filter, n): the n-th matching message still goes through, and from then on the node
//    is dead: every later send is swallowed and nothing more is received, as if its process had
//    died right after that message. Others see what they see of a crashed peer: silence.
// Rules are checked in the order they were added; the first Drop, Delay or Duplicate rule that
// applies to a message decides its fate. A KillAt rule counts every matching message that reaches
// it and decides only the n-th. Messages no rule matches pass through untouched. A released
// message whose send fails is lost, as a late message to a dead peer would be; a dead node's held
// messages are never delivered.
//
// Thread-safety: like every Transport, Send/Receive/Connect are for the owning event loop only.
// The script (adding rules, Release) and the queries (killed, counters) may be used from any
// thread: an embedded cluster's test thread scripts a member whose loop runs on its own thread.
// Held and duplicated messages move on the owner's next Send or Receive.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/transport.h"

namespace strads {

enum class Direction { kSend, kReceive, kEither };

// Which messages a rule applies to. Empty fields match anything.
struct MessageFilter {
  Direction direction = Direction::kEither;
  std::string peer;  // the destination of a send, the sender of a received message
  proto::Envelope::BodyCase kind = proto::Envelope::BODY_NOT_SET;  // BODY_NOT_SET: every kind

  bool Matches(Direction d, const std::string& peer_id, const proto::Envelope& e) const;
};

// Shorthands: SendsOf(proto::Envelope::kPartials), ReceivesOf(proto::Envelope::kCommit, "s-0").
MessageFilter SendsOf(proto::Envelope::BodyCase kind, std::string to = "");
MessageFilter ReceivesOf(proto::Envelope::BodyCase kind, std::string from = "");

class FaultInjectingTransport : public Transport {
 public:
  static constexpr uint64_t kAll = UINT64_MAX;

  // REQUIRES: `inner` outlives this decorator and is used through it only.
  explicit FaultInjectingTransport(Transport& inner);

  // The script. Each returns immediately; see the header comment for the meaning.
  void Drop(MessageFilter filter, uint64_t count = kAll);
  void Delay(MessageFilter filter);
  void Duplicate(MessageFilter filter, uint64_t count = kAll);
  // REQUIRES: n >= 1.
  void KillAt(MessageFilter filter, uint64_t n);
  // Lets every held message go (on the owner's next Send or Receive); later matching messages
  // are held again unless the Delay rule is cleared.
  void Release();
  // Removes every rule (held messages stay held until Release). A dead node stays dead.
  void ClearRules();

  bool killed() const;
  uint64_t dropped() const;
  uint64_t held() const;

  // Transport.
  const std::string& id() const override { return inner_.id(); }
  Status Connect(const std::string& peer, const std::string& endpoint) override;
  Status Send(const std::string& peer, const proto::Envelope& envelope) override;
  // The fault decided as for Send; a message that passes goes on owned (the inner transport's
  // move path), a held one is kept without a copy.
  Status SendOwned(const std::string& peer, proto::Envelope&& envelope) override;
  std::optional<proto::Envelope> Receive(std::chrono::milliseconds timeout) override;
  std::vector<std::string> endpoints() const override { return inner_.endpoints(); }
  const TrafficCounter* traffic() const override { return inner_.traffic(); }

 private:
  enum class Fault { kDrop, kDelay, kDuplicate, kKill };
  struct Rule {
    Fault fault;
    MessageFilter filter;
    uint64_t remaining;  // messages it still applies to (kDrop, kDuplicate) or until the kill
  };
  // What happens to one message.
  enum class Fate { kPass, kDrop, kHold, kTwice };

  // REQUIRES: mu_ held.
  Fate Decide(Direction d, const std::string& peer, const proto::Envelope& e);
  // After Release(): sends the held outgoing messages, queues the held incoming ones.
  void FlushReleased();

  Transport& inner_;
  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  bool killed_ = false;
  bool released_ = false;
  uint64_t dropped_ = 0;
  std::vector<std::pair<std::string, proto::Envelope>> held_sends_;
  std::deque<proto::Envelope> held_receives_;
  std::deque<proto::Envelope> ready_receives_;  // released or duplicated, returned first
};

}  // namespace strads
