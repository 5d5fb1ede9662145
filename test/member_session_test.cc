// MemberSession (common/member_session.h): registration with back-off, loss of the coordinator,
// re-registration and the give-up bound, over the in-process transport with a fake clock.
#include <catch2/catch.hpp>

#include <memory>

#include "common/inproc_transport.h"
#include "common/logging.h"
#include "common/member_session.h"
#include "common/protocol.h"

namespace strads {
namespace {

class SessionFixture {
 public:
  SessionFixture() : member_(hub_, "worker-0") {
    MemberIdentity identity;
    identity.role = proto::ROLE_WORKER;
    identity.reconnect = {/*first_retry_s=*/1, /*max_retry_s=*/4, /*give_up_s=*/30};
    session_ = std::make_unique<MemberSession>(member_, identity, MakeLogger("test", "w", "off"));
  }

  // Starts (or restarts) the coordinator's mailbox.
  void CoordinatorUp() { coordinator_ = std::make_unique<InProcTransport>(hub_, "coordinator"); }
  void CoordinatorDown() { coordinator_.reset(); }

  // Ticks every 100 ms for `seconds`; returns the Register messages the coordinator received.
  int Run(double seconds) {
    int registers = 0;
    for (int i = 0; i < static_cast<int>(seconds * 10 + 0.5); ++i) {
      now_ += std::chrono::milliseconds(100);
      session_->OnTick(now_, 0);
      while (coordinator_) {
        auto e = coordinator_->Receive(std::chrono::milliseconds(0));
        if (!e) break;
        registers += e->has_register_() ? 1 : 0;
      }
    }
    return registers;
  }
  void Answer(proto::Envelope e) {
    e.set_sender("coordinator");
    REQUIRE(session_->OnMessage(e));
  }
  // The coordinator comes up and acknowledges the first registration.
  void RegisterOnce() {
    CoordinatorUp();
    Run(0.2);
    Ack();
    REQUIRE(session_->registered());
  }
  void Ack() {
    auto e = MakeEnvelope("coordinator");
    e.mutable_register_ack()->set_heartbeat_interval_s(0.5);
    Answer(e);
  }

  InProcHub hub_;
  InProcTransport member_;
  std::unique_ptr<InProcTransport> coordinator_;
  std::unique_ptr<MemberSession> session_;
  Clock::time_point now_{};
};

}  // namespace

TEST_CASE("MemberSession: unanswered registrations back off 1, 2, 4, 4 s instead of every tick",
          "[session]") {
  SessionFixture f;
  f.CoordinatorUp();  // up but silent: attempts land and are not acknowledged
  // Attempts at 0.1, 1.1, 3.1, 7.1, 11.1, 15.1 s.
  CHECK(f.Run(0.5) == 1);
  CHECK(f.Run(1.0) == 1);
  CHECK(f.Run(2.0) == 1);
  CHECK(f.Run(4.0) == 1);
  CHECK(f.Run(8.0) == 2);
  f.Ack();
  CHECK(f.session_->registered());
  CHECK(f.session_->registrations() == 1);
}

TEST_CASE("MemberSession: a lost coordinator is found again when it returns, counting it",
          "[session][faults]") {
  SessionFixture f;
  f.RegisterOnce();
  f.CoordinatorDown();
  f.Run(10);  // heartbeats fail: lost, retrying with back-off
  CHECK_FALSE(f.session_->registered());
  CHECK_FALSE(f.session_->gave_up());
  f.CoordinatorUp();
  CHECK(f.Run(5) == 1);  // the next attempt reaches it
  f.Ack();
  CHECK(f.session_->registered());
  CHECK(f.session_->registrations() == 2);
}

TEST_CASE("MemberSession: a coordinator that forgot the member makes it register at once",
          "[session][faults]") {
  SessionFixture f;
  f.RegisterOnce();
  auto forgot = MakeEnvelope("coordinator");
  forgot.mutable_error()->set_message("not registered");
  f.Answer(forgot);
  CHECK_FALSE(f.session_->registered());
  CHECK(f.Run(0.1) == 1);
}

TEST_CASE("MemberSession: without a coordinator past the bound it gives up and sends nothing",
          "[session][faults]") {
  SessionFixture f;
  f.RegisterOnce();
  f.CoordinatorDown();
  f.Run(29);
  CHECK_FALSE(f.session_->gave_up());
  f.Run(2);
  CHECK(f.session_->gave_up());
  f.CoordinatorUp();
  CHECK(f.Run(10) == 0);
}

}  // namespace strads
