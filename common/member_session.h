// A cluster member's session with the coordinator: registration, re-registration, heartbeats.
//
// Shared by schedulers and workers. Until the coordinator acknowledges, Register is re-sent with
// exponential back-off (ReconnectPolicy: 1 s, 2 s, 4 s, ... capped at 5 s by default), so a
// member that starts before its coordinator, or outlives it, retries without flooding it or the
// log. The coordinator is lost when a heartbeat cannot be sent (it is gone) or when it answers
// with an ErrorReply (it restarted and forgot this member); registration then starts again at
// once, with back-off. A member that has been without a coordinator for `give_up_s` gives up:
// gave_up() turns true, it sends nothing more, and its daemon exits. Failures are logged at
// most once per back-off step, never every few seconds forever, and are never fatal before that
// bound. Thread-compatibility: used by the member's event loop only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/data_roots.h"
#include "common/event_loop.h"
#include "common/logging.h"
#include "common/memory_matrix.h"
#include "common/transport.h"

namespace strads {

// How a member looks for a coordinator it does not have (yet, or any more).
struct ReconnectPolicy {
  double first_retry_s = 1;  // delay after the first failed attempt; doubles after each
  double max_retry_s = 5;    // cap of the delay
  double give_up_s = 600;    // without a coordinator this long, give up; 0 = never
};

struct MemberIdentity {
  proto::Role role = proto::ROLE_UNSPECIFIED;
  std::string host;
  uint32_t pid = 0;
  std::string endpoint;  // this member's inbox
  std::string coordinator_id = "coordinator";
  DataRoots data_roots;  // the only places job files may be read from (empty: anywhere)
  // The matrices its jobs may name as "memory:NAME" (an embedded cluster's, handed over by the
  // process it runs in); null for a daemon.
  std::shared_ptr<const MemoryData> memory_data;
  ReconnectPolicy reconnect;
};

class MemberSession {
 public:
  MemberSession(Transport& transport, MemberIdentity identity, Logger log);

  // Registers or sends a heartbeat when due. `job_id` is the job the member is running (0: none).
  void OnTick(Clock::time_point now, uint64_t job_id);

  // Consumes RegisterAck, ErrorReply and Shutdown; returns false for every other message.
  bool OnMessage(const proto::Envelope& envelope);

  // Sends to the coordinator; a failure is returned, and logged (at most once per 5 s of tick
  // time) while registered.
  Status SendToCoordinator(const proto::Envelope& envelope);
  // The same for an envelope the caller gives up (Transport::SendOwned: no copy of its arrays).
  Status SendToCoordinator(proto::Envelope&& envelope);

  bool registered() const { return registered_; }
  const MemberIdentity& identity() const { return identity_; }
  // Acknowledged registrations so far: above 1, the coordinator was lost and found again (and
  // has forgotten whatever job this member was running for it).
  uint64_t registrations() const { return registrations_; }
  // True once the coordinator told this member to exit (its actor is then Finished).
  bool shutdown_requested() const { return shutdown_requested_; }
  // True once the member has been without a coordinator for ReconnectPolicy::give_up_s.
  bool gave_up() const { return gave_up_; }

 private:
  // Registration must start again: the coordinator is gone or has forgotten this member.
  void Lost(const std::string& why);
  void TryRegister(Clock::time_point now);

  Transport& transport_;
  MemberIdentity identity_;
  Logger log_;
  bool registered_ = false;
  bool shutdown_requested_ = false;
  bool gave_up_ = false;
  uint64_t registrations_ = 0;
  double heartbeat_interval_s_ = 0.5;
  std::optional<Clock::time_point> unregistered_since_;  // set by the first tick without one
  std::optional<Clock::time_point> next_register_;       // unset: at once
  double retry_s_ = 0;                                   // the delay after the next attempt
  Clock::time_point last_heartbeat_{};
  Clock::time_point last_tick_{};  // the `now` of the last OnTick
  std::optional<Clock::time_point> last_warning_;
};

}  // namespace strads
