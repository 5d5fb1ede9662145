// A cluster member's session with the coordinator: registration, re-registration, heartbeats.
//
// Shared by schedulers and workers. Until the coordinator acknowledges, Register is re-sent every
// second (the coordinator may not be up yet); an ErrorReply (the coordinator forgot this member,
// e.g. after a restart) starts registration again. Heartbeats go out at the interval the
// coordinator asked for. Failures to reach the coordinator are logged, never fatal: daemons stay
// up. Thread-compatibility: used by the member's event loop only.
#pragma once

#include <optional>
#include <string>

#include "common/data_roots.h"
#include "common/event_loop.h"
#include "common/logging.h"
#include "common/transport.h"

namespace strads {

struct MemberIdentity {
  proto::Role role = proto::ROLE_UNSPECIFIED;
  std::string host;
  uint32_t pid = 0;
  std::string endpoint;  // this member's inbox
  std::string coordinator_id = "coordinator";
  DataRoots data_roots;  // the only places job files may be read from (empty: anywhere)
};

class MemberSession {
 public:
  MemberSession(Transport& transport, MemberIdentity identity, Logger log);

  // Registers or sends a heartbeat when due. `job_id` is the job the member is running (0: none).
  void OnTick(Clock::time_point now, uint64_t job_id);

  // Consumes RegisterAck, ErrorReply and Shutdown; returns false for every other message.
  bool OnMessage(const proto::Envelope& envelope);

  // Sends to the coordinator; a failure is logged (at most once per 5 s of tick time) and
  // returned.
  Status SendToCoordinator(const proto::Envelope& envelope);

  bool registered() const { return registered_; }
  const MemberIdentity& identity() const { return identity_; }
  // True once the coordinator told this member to exit (its actor is then Finished).
  bool shutdown_requested() const { return shutdown_requested_; }

 private:
  Transport& transport_;
  MemberIdentity identity_;
  Logger log_;
  bool registered_ = false;
  bool shutdown_requested_ = false;
  double heartbeat_interval_s_ = 0.5;
  Clock::time_point last_register_{};
  Clock::time_point last_heartbeat_{};
  Clock::time_point last_tick_{};  // the `now` of the last OnTick
  std::optional<Clock::time_point> last_warning_;
};

}  // namespace strads
