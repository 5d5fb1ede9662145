#include "common/member_session.h"

#include "common/protocol.h"

namespace strads {

MemberSession::MemberSession(Transport& transport, MemberIdentity identity, Logger log)
    : transport_(transport), identity_(std::move(identity)), log_(std::move(log)) {}

Status MemberSession::SendToCoordinator(const proto::Envelope& envelope) {
  Status st = transport_.Send(identity_.coordinator_id, envelope);
  if (!st.ok()) {
    // Rate-limited by the time of the last tick: the session reads no clock of its own.
    if (!last_warning_ || last_tick_ - *last_warning_ > std::chrono::seconds(5)) {
      last_warning_ = last_tick_;
      log_->warn("cannot reach the coordinator: {}", st.message());
    }
  }
  return st;
}

void MemberSession::OnTick(Clock::time_point now, uint64_t job_id) {
  last_tick_ = now;
  if (!registered_) {
    if (now - last_register_ < std::chrono::seconds(1)) return;
    last_register_ = now;
    auto e = MakeEnvelope(transport_.id());
    auto* r = e.mutable_register_();
    r->set_role(identity_.role);
    r->set_host(identity_.host);
    r->set_pid(identity_.pid);
    r->set_endpoint(identity_.endpoint);
    (void)SendToCoordinator(e);
    return;
  }
  if (std::chrono::duration<double>(now - last_heartbeat_).count() < heartbeat_interval_s_) return;
  last_heartbeat_ = now;
  auto e = MakeEnvelope(transport_.id(), job_id);
  e.mutable_heartbeat();
  (void)SendToCoordinator(e);
}

bool MemberSession::OnMessage(const proto::Envelope& e) {
  if (e.body_case() == proto::Envelope::kShutdown) {
    log_->info("shutdown requested");
    shutdown_requested_ = true;
    return true;
  }
  if (e.body_case() == proto::Envelope::kRegisterAck) {
    if (!registered_) log_->info("registered with the coordinator");
    registered_ = true;
    heartbeat_interval_s_ = e.register_ack().heartbeat_interval_s();
    return true;
  }
  if (e.body_case() == proto::Envelope::kError) {
    log_->warn("coordinator: {}; registering again", e.error().message());
    registered_ = false;
    last_register_ = {};
    return true;
  }
  return false;
}

}  // namespace strads
