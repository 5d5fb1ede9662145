#include "common/member_session.h"

#include <algorithm>

#include "common/protocol.h"

namespace strads {
namespace {

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Clock::duration FromSeconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

MemberSession::MemberSession(Transport& transport, MemberIdentity identity, Logger log)
    : transport_(transport),
      identity_(std::move(identity)),
      log_(std::move(log)),
      retry_s_(identity_.reconnect.first_retry_s) {}

Status MemberSession::SendToCoordinator(const proto::Envelope& envelope) {
  return SendToCoordinator(proto::Envelope(envelope));
}

Status MemberSession::SendToCoordinator(proto::Envelope&& envelope) {
  Status st = transport_.SendOwned(identity_.coordinator_id, std::move(envelope));
  // Without a coordinator, failures are expected and reported by the back-off's own lines.
  if (!st.ok() && registered_) {
    // Rate-limited by the time of the last tick: the session reads no clock of its own.
    if (!last_warning_ || last_tick_ - *last_warning_ > std::chrono::seconds(5)) {
      last_warning_ = last_tick_;
      log_->warn("cannot reach the coordinator: {}", st.message());
    }
  }
  return st;
}

void MemberSession::Lost(const std::string& why) {
  const ReconnectPolicy& p = identity_.reconnect;
  registered_ = false;
  unregistered_since_ = last_tick_;
  next_register_.reset();
  retry_s_ = p.first_retry_s;
  if (p.give_up_s > 0) {
    log_->warn(
        "lost the coordinator ({}); registering again every {:g} s doubling to {:g} s, giving up "
        "after {:g} s",
        why, p.first_retry_s, p.max_retry_s, p.give_up_s);
  } else {
    log_->warn("lost the coordinator ({}); registering again every {:g} s doubling to {:g} s", why,
               p.first_retry_s, p.max_retry_s);
  }
}

void MemberSession::TryRegister(Clock::time_point now) {
  const ReconnectPolicy& p = identity_.reconnect;
  if (!unregistered_since_) unregistered_since_ = now;
  const double without = Seconds(now - *unregistered_since_);
  if (p.give_up_s > 0 && without >= p.give_up_s) {
    gave_up_ = true;
    log_->error("no coordinator for {:.0f} s (limit {:g} s): giving up", without, p.give_up_s);
    return;
  }
  if (next_register_ && now < *next_register_) return;
  auto e = MakeEnvelope(transport_.id());
  auto* r = e.mutable_register_();
  r->set_role(identity_.role);
  r->set_host(identity_.host);
  r->set_pid(identity_.pid);
  r->set_endpoint(identity_.endpoint);
  const Status st = SendToCoordinator(e);
  // An attempt that is not acknowledged before the next one counts as failed too (a coordinator
  // that is up but stuck), so the delay grows whether or not the send itself failed.
  next_register_ = now + FromSeconds(retry_s_);
  if (retry_s_ < p.max_retry_s && without > 0) {
    log_->info("no coordinator for {:.0f} s{}; next attempt in {:g} s", without,
               st.ok() ? "" : " (" + st.message() + ")", retry_s_);
  }
  retry_s_ = std::min(retry_s_ * 2, p.max_retry_s);
}

void MemberSession::OnTick(Clock::time_point now, uint64_t job_id) {
  last_tick_ = now;
  if (gave_up_ || shutdown_requested_) return;
  if (!registered_) return TryRegister(now);
  if (Seconds(now - last_heartbeat_) < heartbeat_interval_s_) return;
  last_heartbeat_ = now;
  auto e = MakeEnvelope(transport_.id(), job_id);
  e.mutable_heartbeat();
  if (const TrafficCounter* traffic = transport_.traffic()) {
    traffic->Export(*e.mutable_heartbeat()->mutable_traffic());
  }
  if (Status st = SendToCoordinator(e); !st.ok()) {
    Lost(st.message());
    TryRegister(now);
  }
}

bool MemberSession::OnMessage(const proto::Envelope& e) {
  if (e.body_case() == proto::Envelope::kShutdown) {
    log_->info("shutdown requested");
    shutdown_requested_ = true;
    return true;
  }
  if (e.body_case() == proto::Envelope::kRegisterAck) {
    if (!registered_) {
      if (registrations_ == 0) {
        log_->info("registered with the coordinator");
      } else {
        log_->info("registered with the coordinator again, after {:.1f} s without",
                   unregistered_since_ ? Seconds(last_tick_ - *unregistered_since_) : 0.0);
      }
      ++registrations_;
    }
    registered_ = true;
    unregistered_since_.reset();
    retry_s_ = identity_.reconnect.first_retry_s;
    heartbeat_interval_s_ = e.register_ack().heartbeat_interval_s();
    return true;
  }
  if (e.body_case() == proto::Envelope::kError) {
    if (registered_) Lost("it answered: " + e.error().message());
    return true;
  }
  return false;
}

}  // namespace strads
