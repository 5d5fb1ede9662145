// Member: a cluster member daemon's logic (scheduler or worker), the same for both roles.
//
// Driven by envelopes and the clock (an Actor; see common/event_loop.h), it keeps the session with
// the coordinator (registration, heartbeats, shutdown; common/member_session.h) and runs one job
// at a time in its JobSlot: on JobStart it ends the current job and builds the new one with the
// role's factory (a job the factory cannot build, e.g. an unknown engine or app, is reported as
// the job's error); every other message of the current job goes to it, JobEnd ends it; messages
// of other jobs are dropped. When the session registers again (the coordinator was lost, and has
// failed or forgotten the job), the current job ends. What a role does in a job is in its
// MemberJob classes.
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include "common/event_loop.h"
#include "common/logging.h"
#include "common/member_session.h"
#include "common/transport.h"
#include "engine/job_slot.h"
#include "engine/member_job.h"

namespace strads {

class Member : public Actor {
 public:
  // `identity.role` is set to `role`.
  // `apps` must outlive the member: the app of each JobStart is found in it.
  Member(Transport& transport, proto::Role role, MemberIdentity identity, const AppRegistry& apps,
         Logger log, MemberJobFactory factory);
  ~Member() override;

  void OnMessage(const proto::Envelope& envelope, Clock::time_point now) override;
  void OnTick(Clock::time_point now) override;
  bool Finished() const override { return session_.shutdown_requested() || session_.gave_up(); }
  // True when the member stopped because it was without a coordinator for too long.
  bool gave_up() const { return session_.gave_up(); }
  bool Polling() const override { return jobs_.Polling(); }

  // The job running now (nullptr: none), for tests.
  MemberJob* job() const { return jobs_.get(); }

 private:
  void StartJob(const proto::Envelope& e);

  Transport& transport_;
  const AppRegistry& apps_;
  Logger log_;
  MemberSession session_;
  MemberJobFactory factory_;
  uint64_t registrations_seen_ = 0;  // the session's count when last looked at
  JobSlot jobs_;                     // last member: its jobs go before the session they use
};

// A role's member (scheduler/scheduler.h, worker/worker.h): a Member of role `kRole` whose jobs
// `kMakeJob` builds (a MemberJobFactory function). `apps` must outlive it: the app of each
// JobStart is found in it.
template <proto::Role kRole, auto kMakeJob>
class RoleMember : public Member {
 public:
  RoleMember(Transport& transport, MemberIdentity identity, const AppRegistry& apps, Logger log)
      : Member(transport, kRole, std::move(identity), apps, std::move(log), kMakeJob) {}
};

}  // namespace strads
