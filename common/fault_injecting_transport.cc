#include "common/fault_injecting_transport.h"

#include <algorithm>
#include <cassert>

namespace strads {

bool MessageFilter::Matches(Direction d, const std::string& peer_id,
                            const proto::Envelope& e) const {
  if (direction != Direction::kEither && direction != d) return false;
  if (!peer.empty() && peer != peer_id) return false;
  return kind == proto::Envelope::BODY_NOT_SET || kind == e.body_case();
}

MessageFilter SendsOf(proto::Envelope::BodyCase kind, std::string to) {
  return {Direction::kSend, std::move(to), kind};
}

MessageFilter ReceivesOf(proto::Envelope::BodyCase kind, std::string from) {
  return {Direction::kReceive, std::move(from), kind};
}

FaultInjectingTransport::FaultInjectingTransport(Transport& inner) : inner_(inner) {}

void FaultInjectingTransport::Drop(MessageFilter filter, uint64_t count) {
  std::lock_guard lock(mu_);
  rules_.push_back({Fault::kDrop, std::move(filter), count});
}

void FaultInjectingTransport::Delay(MessageFilter filter) {
  std::lock_guard lock(mu_);
  rules_.push_back({Fault::kDelay, std::move(filter), kAll});
}

void FaultInjectingTransport::Duplicate(MessageFilter filter, uint64_t count) {
  std::lock_guard lock(mu_);
  rules_.push_back({Fault::kDuplicate, std::move(filter), count});
}

void FaultInjectingTransport::KillAt(MessageFilter filter, uint64_t n) {
  assert(n >= 1);
  std::lock_guard lock(mu_);
  rules_.push_back({Fault::kKill, std::move(filter), n});
}

void FaultInjectingTransport::Release() {
  std::lock_guard lock(mu_);
  released_ = true;
}

void FaultInjectingTransport::ClearRules() {
  std::lock_guard lock(mu_);
  rules_.clear();
}

bool FaultInjectingTransport::killed() const {
  std::lock_guard lock(mu_);
  return killed_;
}

uint64_t FaultInjectingTransport::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

uint64_t FaultInjectingTransport::held() const {
  std::lock_guard lock(mu_);
  return held_sends_.size() + held_receives_.size();
}

FaultInjectingTransport::Fate FaultInjectingTransport::Decide(Direction d, const std::string& peer,
                                                              const proto::Envelope& e) {
  for (Rule& rule : rules_) {
    if (rule.remaining == 0 || !rule.filter.Matches(d, peer, e)) continue;
    if (rule.remaining != kAll) --rule.remaining;
    switch (rule.fault) {
      case Fault::kDrop:
        return Fate::kDrop;
      case Fault::kDelay:
        return Fate::kHold;
      case Fault::kDuplicate:
        return Fate::kTwice;
      case Fault::kKill:
        // The n-th message is the node's last: it still goes through (unless a later rule
        // decides otherwise), everything after it is lost.
        if (rule.remaining == 0) killed_ = true;
        break;
    }
  }
  return Fate::kPass;
}

void FaultInjectingTransport::FlushReleased() {
  std::vector<std::pair<std::string, proto::Envelope>> sends;
  {
    std::lock_guard lock(mu_);
    if (!released_) return;
    released_ = false;
    if (killed_) {
      held_sends_.clear();
      held_receives_.clear();
      return;
    }
    sends.swap(held_sends_);
    for (auto& e : held_receives_) ready_receives_.push_back(std::move(e));
    held_receives_.clear();
  }
  for (auto& [peer, e] : sends) (void)inner_.SendOwned(peer, std::move(e));
}

Status FaultInjectingTransport::Connect(const std::string& peer, const std::string& endpoint) {
  return inner_.Connect(peer, endpoint);
}

Status FaultInjectingTransport::Send(const std::string& peer, const proto::Envelope& envelope) {
  return SendOwned(peer, proto::Envelope(envelope));
}

Status FaultInjectingTransport::SendOwned(const std::string& peer, proto::Envelope&& envelope) {
  FlushReleased();
  Fate fate;
  {
    std::lock_guard lock(mu_);
    if (killed_) return Status::Ok();  // a dead node's sends go nowhere
    fate = Decide(Direction::kSend, peer, envelope);
    if (fate == Fate::kDrop) ++dropped_;
    if (fate == Fate::kHold) held_sends_.emplace_back(peer, std::move(envelope));
  }
  switch (fate) {
    case Fate::kDrop:
    case Fate::kHold:
      return Status::Ok();
    case Fate::kTwice:
      STRADS_RETURN_IF_ERROR(inner_.Send(peer, envelope));  // a copy; the second goes owned
      break;
    case Fate::kPass:
      break;
  }
  return inner_.SendOwned(peer, std::move(envelope));
}

std::optional<proto::Envelope> FaultInjectingTransport::Receive(std::chrono::milliseconds timeout) {
  FlushReleased();
  {
    std::lock_guard lock(mu_);
    if (!killed_ && !ready_receives_.empty()) {
      proto::Envelope e = std::move(ready_receives_.front());
      ready_receives_.pop_front();
      return e;
    }
  }
  // Waits on the inner transport even when dead, so a dead node's loop idles rather than spins.
  // A dropped or held message does not end the wait: the caller waits for the next one.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto wait = timeout;; wait = std::max(std::chrono::milliseconds(0),
                                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 deadline - std::chrono::steady_clock::now()))) {
    auto e = inner_.Receive(wait);
    if (!e) return std::nullopt;
    std::lock_guard lock(mu_);
    if (killed_) continue;
    switch (Decide(Direction::kReceive, e->sender(), *e)) {
      case Fate::kDrop:
        ++dropped_;
        continue;
      case Fate::kHold:
        held_receives_.push_back(std::move(*e));
        continue;
      case Fate::kTwice:
        ready_receives_.push_back(*e);
        return e;
      case Fate::kPass:
        return e;
    }
  }
}

}  // namespace strads
