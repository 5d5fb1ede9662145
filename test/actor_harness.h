// A harness for unit tests of the coordinator and its jobs: the object under test sends over an
// in-process transport, each peer is a bare mailbox on the same hub that the test reads, and time
// is a fake clock the test advances. No threads, no sleeps.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/event_loop.h"
#include "common/inproc_transport.h"
#include "common/logging.h"
#include "common/protocol.h"

namespace strads::testing {

class ActorHarness {
 public:
  // `self` is the id of the node under test; `peers` are mailboxes the test reads and sends from.
  ActorHarness(const std::string& self, const std::vector<std::string>& peers)
      : transport_(hub_, self), log_(MakeLogger("test", self, "off")) {
    for (const auto& p : peers) peers_[p] = std::make_unique<InProcTransport>(hub_, p);
  }

  Transport& transport() { return transport_; }
  InProcHub& hub() { return hub_; }
  const Logger& log() const { return log_; }

  // The fake clock: starts at an arbitrary epoch, moves only when told.
  Clock::time_point now() const { return now_; }
  Clock::time_point Advance(double seconds) {
    now_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    return now_;
  }

  // Hands `e` to `target` (an Actor or a Job) as a message of job `job_id` from `from`, at now().
  template <typename Target>
  void Deliver(Target& target, const std::string& from, uint64_t job_id, proto::Envelope e) {
    e.set_sender(from);
    e.set_job_id(job_id);
    target.OnMessage(e, now_);
  }

  // Everything delivered to `peer` so far, oldest first (and removed from its mailbox).
  std::vector<proto::Envelope> Inbox(const std::string& peer) {
    std::vector<proto::Envelope> out;
    while (auto e = peers_.at(peer)->Receive(std::chrono::milliseconds(0))) out.push_back(*e);
    return out;
  }
  // The bodies of Inbox(peer), e.g. {kJobStart, kCommit}.
  std::vector<proto::Envelope::BodyCase> Kinds(const std::string& peer) {
    std::vector<proto::Envelope::BodyCase> out;
    for (const auto& e : Inbox(peer)) out.push_back(e.body_case());
    return out;
  }
  // Drops everything delivered so far to every peer.
  void ClearInboxes() {
    for (auto& [id, t] : peers_) Inbox(id);
  }
  // Removes `peer` from the hub: sends to it fail from now on, as to a dead process.
  void Remove(const std::string& peer) { peers_.erase(peer); }

 private:
  InProcHub hub_;
  InProcTransport transport_;
  std::map<std::string, std::unique_ptr<InProcTransport>> peers_;
  Logger log_;
  Clock::time_point now_ = Clock::time_point(std::chrono::hours(1000));
};

}  // namespace strads::testing
