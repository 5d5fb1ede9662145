// MemberJob: a member's part of one job, for either engine (dynamic, static) and either role
// (scheduler, worker).
//
// A member runs one job at a time, held in its JobSlot (engine/job_slot.h) and built from the
// job's JobStart by the role's factory (engine/member_job_factory.h). A job loads its data on a
// background thread from its constructor on, answers Ready when it is loaded, and reports any
// failure of its part through a JobErrorReport (engine/job_error_report.h): the first to the
// coordinator, which fails the job; later ones are only logged.
// Thread-compatibility: used by the member's event loop only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "common/background_load.h"
#include "common/logging.h"
#include "common/member_session.h"
#include "common/protocol.h"
#include "common/status.h"
#include "common/transport.h"
#include "engine/app_registry.h"
#include "engine/job_error_report.h"
#include "strads.pb.h"

namespace strads {

// What a job is built from: what it uses of its member — the transport (to peers), the session
// (to the coordinator) and the member's logger, which outlive every job of the member — and the
// job's id and JobStart (its epoch, the job's incarnation, is stamped on its every message).
struct JobContext {
  Transport& transport;
  MemberSession& session;
  const AppRegistry& apps;  // where a JobStart's app is found
  Logger log;
  uint64_t job_id;
  const proto::JobStart& start;  // read while the job is built, not kept
  // Where the job's loads and sub-rounds run: threads of their own, or inline (unit tests).
  Execution execution = Execution::kThreads;
  // With data roots: the job's files, opened beneath them, which `start` names by their
  // descriptors' paths; kept open as long as the job (null: none, the paths are the job's own).
  std::shared_ptr<const OpenedFiles> files = nullptr;
};

class MemberJob {
 public:
  virtual ~MemberJob() = default;
  MemberJob(const MemberJob&) = delete;
  MemberJob& operator=(const MemberJob&) = delete;

  uint64_t id() const { return id_; }
  uint32_t epoch() const { return epoch_; }
  // A message of this job (the slot handles JobStart and JobEnd). Malformed or unexpected
  // messages are reported or logged, never fatal.
  virtual void OnMessage(const proto::Envelope& e) = 0;
  // Polls the work running on other threads (the data load, a sub-round).
  virtual void OnTick() = 0;
  // The job has ended: the results of its loads still running are no longer wanted.
  void Abandon() { work_.Abandon(); }
  // True while work on another thread (abandoned or not) still runs: until then the job must not
  // be destroyed. By default, its loads.
  virtual bool Busy() { return work_.Busy(); }
  // True while the job waits for work on another thread that it polls in OnTick: the event loop
  // should then tick often. By default, while a load is fresh (BackgroundLoad::kFresh): at the
  // event loop's default 50 ms a small job's start waited up to that for each load.
  virtual bool Polling() const { return work_.fresh(); }

 protected:
  explicit MemberJob(const JobContext& context)
      : transport_(context.transport),
        session_(context.session),
        log_(context.log),
        id_(context.job_id),
        epoch_(context.start.epoch()),
        files_(context.files),
        errors_(context.session, context.transport.id(), id_, epoch_, context.log, files_),
        work_(context.execution) {}

  // An envelope of this job and incarnation from this member.
  proto::Envelope JobEnvelope(uint64_t round = 0) const {
    auto e = MakeEnvelope(transport_.id(), id_, round);
    e.set_epoch(epoch_);
    return e;
  }

  // Connects to each peer of `ids` (a role's members, by rank) at its endpoint, except this
  // member; a failure is only logged here (Begin connects again, and a worker's failure there, or
  // a send that then fails, is reported as the job's error). Connecting at the job's start, not
  // at its first message: ZeroMQ completes the TCP and ZMTP handshakes in the background while the
  // data loads, where a worker that connected to its schedulers at Begin sent the first check's
  // gradient slice through a cold connection (a ~0.2 ms hop in a diabetes job's first check, 1 x 1
  // on loopback, against ~0.05 ms warm).
  template <class Strings>
  void ConnectPeers(const Strings& ids, const Strings& endpoints) {
    for (int k = 0; k < ids.size() && k < endpoints.size(); ++k) {
      if (ids.Get(k) == transport_.id()) continue;
      if (Status st = transport_.Connect(ids.Get(k), endpoints.Get(k)); !st.ok()) {
        log_->error("job {}: {}", id_, st.message());
      }
    }
  }

  // For a message the job has no use for: logged, never fatal.
  void LogUnexpected(const proto::Envelope& e) const {
    log_->warn("job {}: unexpected {} from {}", id_, BodyName(e), e.sender());
  }

  Transport& transport_;
  MemberSession& session_;
  Logger log_;
  const uint64_t id_;
  const uint32_t epoch_;
  // Held open until the job is destroyed: its loads on other threads read them (Busy() keeps a
  // retired job alive until they are done).
  std::shared_ptr<const OpenedFiles> files_;
  JobErrorReport errors_;  // failures of this member's part go to the coordinator
  // The job's loads, each a BackgroundLoad<T> declared in the job with `{work_}` (so Abandon,
  // Busy and Polling cover it), and where they run.
  BackgroundWork work_;
};

// Builds a role's part of a job from its JobStart; an error (an engine or app this member does not
// know) is the job's error.
using MemberJobFactory =
    std::function<Result<std::unique_ptr<MemberJob>>(const JobContext& context)>;

}  // namespace strads
