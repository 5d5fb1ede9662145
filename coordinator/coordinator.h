// The coordinator: the cluster's front door and its clock.
//
// An Actor over one Transport (bound to the control and status endpoints when run as a daemon).
// It keeps
//  - the members: schedulers and workers that registered, with their last heartbeat; a member
//    silent for `heartbeat_timeout_s` is dropped, and a job it was part of fails with a cause
//    naming it;
//  - the jobs: one runs at a time (a DynamicJob or a StaticJob), the others wait in FIFO order; a
//  queued job that
//    cannot get its members within `register_timeout_s` fails, naming who is missing;
//  - the clients: requests (submit, cancel, status, jobs, result, shutdown) are answered to their
//    sender; specs and members' texts are bounded (engine/job_spec.h, kMaxMemberTextBytes) and
//    the job table is answered in pages (kStatusPageBytes); status subscribers get a Progress
//    stream (a few per second, and on every state change) until they go away or their subscription
//    lapses (`subscription_ttl_s` after their last StatusRequest; pruned on every tick, job or no
//    job).
// With a work dir, the job table is durable (coordinator/job_journal.h): every state change is
// journaled before it is acknowledged, and a coordinator constructed over the same work dir
// recovers it: finished jobs keep their results, queued jobs run again, and ids continue above
// every id used before.
// When the work dir stops taking writes (a full disk), nothing is lost while the coordinator
// runs: a job's state (a finished job's final state first, its result files after) is kept in
// memory and written again every second until it is on disk; meanwhile the store is degraded:
// status replies say why (StatusReply.store_problem) and every submit is refused with a storage
// error (ErrorReply.kind), rather than accept jobs it could lose. FlushStore() tries once more at
// exit and names what it could not write.
// Recovery (the job's RecoverySpec): a running job takes a checkpoint every checkpoint_every_s
// (coordinator/checkpoint_store.h, in the work dir). When it loses a member (no heartbeat, or a
// send fails), it is not failed but goes to RECOVERING at the head of the queue: it waits up to
// recovery_wait_s for as many members as it had, then runs on the members there are, as the next
// epoch, from its latest checkpoint (or from scratch if it has none). A job that was loading or
// running when the coordinator died resumes the same way from its checkpoint on disk. Past
// max_recoveries, or with recovery off, the job fails as before.
// An optional StatusObserver (the web dashboard's model) is shown the status document on every
// job state change and at most every 250 ms otherwise.
// Client input never takes the coordinator down: every request is validated and answered with a
// reply or an ErrorReply. A submit that can never run (more schedulers or workers than the
// cluster has registered or the launcher announced) is refused at once.
// Thread-compatibility: used by its event loop's thread only.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/event_loop.h"
#include "common/log_throttle.h"
#include "common/logging.h"
#include "common/transport.h"
#include "coordinator/checkpoint_store.h"
#include "coordinator/dynamic_job.h"
#include "coordinator/job.h"
#include "coordinator/job_journal.h"
#include "coordinator/static_job.h"
#include "coordinator/status_observer.h"
#include "engine/app_registry.h"

namespace strads {

// A status reply lists at most this many jobs, and no more than this many bytes of them (but at
// least one job): a large job table is read in pages (StatusRequest.first_job_id), so that no one
// reply holds the event loop, and the heartbeats it answers, for long.
inline constexpr uint32_t kStatusPageJobs = 1000;
inline constexpr size_t kStatusPageBytes = size_t{1} << 20;
// The dashboard (StatusObserver) is shown the newest this many jobs.
inline constexpr uint32_t kDashboardJobs = 200;
// A member's host, endpoint and id (Register), listed in every status reply.
inline constexpr size_t kMaxMemberTextBytes = 1024;

struct CoordinatorOptions {
  uint32_t expect_schedulers = 0;  // from the launcher; 0 = unknown
  uint32_t expect_workers = 0;
  double register_timeout_s = 60;
  double heartbeat_interval_s = 0.5;
  double heartbeat_timeout_s = 5;
  JobDeadlines deadlines;       // a job with no progress for this long fails, naming who is silent
  std::string work_dir;         // results are also written to work_dir/jobs/<id>/ (empty: not)
  std::string status_endpoint;  // told to clients so they can subscribe
  // The journal and the checkpoints write through it; null: the file system (tests inject disk
  // faults). Must outlive the coordinator.
  FileWriter* file_writer = nullptr;
  double started_unix_s = 0;  // wall-clock time at `started`, for the journal's times
  // A status subscription lapses this long after the client's last StatusRequest (clients that
  // watch renew it more often), whether or not a job runs.
  double subscription_ttl_s = 30;
};

class Coordinator : public Actor {
 public:
  // `apps` must outlive the coordinator: submitted specs are validated against it and a job's
  // engine is the engine of its app. `started` is the time the coordinator came up (status
  // reports uptime from it).
  Coordinator(Transport& transport, CoordinatorOptions options, const AppRegistry& apps, Logger log,
              Clock::time_point started);

  void OnMessage(const proto::Envelope& envelope, Clock::time_point now) override;
  void OnTick(Clock::time_point now) override;
  bool Finished() const override { return finished_; }

  // `observer` (null: none) must outlive the coordinator or be replaced first.
  void set_status_observer(StatusObserver* observer) { observer_ = observer; }

  // OK unless the work dir's journal could not be read or created; then every submission is
  // refused with this error (accepting jobs that a restart would lose, or ids it would reuse,
  // is worse than accepting none). The daemon's main() refuses to start.
  const Status& journal_status() const { return journal_status_; }
  // Ok, or why the work dir does not take the writes of some jobs' states, kept in memory until
  // it does.
  const Status& store_status() const { return store_status_; }
  // Writes what the store could not write yet (at exit); logs each job whose state or results
  // could still not be written, which a restart then loses. Ok when nothing is left unwritten.
  Status FlushStore(Clock::time_point now);
  // Live status subscriptions (for tests and status).
  size_t subscriber_count() const { return subscribers_.size(); }

 private:
  struct Member {
    proto::Member info;
    Clock::time_point last_heartbeat;
    // A peer could not reach it: not available to jobs until a heartbeat after this time.
    std::optional<Clock::time_point> suspected_at;
  };
  struct JobRecord {
    proto::JobInfo info;
    Clock::time_point submitted;
    std::optional<Clock::time_point> at_head;  // first time it could have started
    std::vector<proto::ResultFile> files;  // in memory; empty for jobs recovered from the journal
    proto::JobRecord durable;              // what the journal keeps (its `info` is not maintained)
    std::optional<proto::Checkpoint> resume;  // RECOVERING: where the next epoch starts from
  };

  void HandleRegister(const proto::Envelope& e, Clock::time_point now);
  void HandleSubmit(const proto::Envelope& e, Clock::time_point now);
  void HandleCancel(const proto::Envelope& e, Clock::time_point now);
  void HandleStatus(const proto::Envelope& e, Clock::time_point now);
  void HandleResult(const proto::Envelope& e, Clock::time_point now);
  void HandleShutdown(const proto::Envelope& e, Clock::time_point now);
  void Reply(const proto::Envelope& request, proto::Envelope reply);
  void ReplyError(const proto::Envelope& request, const std::string& message,
                  proto::ErrorKind kind = proto::ERROR_KIND_UNSPECIFIED);

  void CheckHeartbeats(Clock::time_point now);
  void PruneSubscribers(Clock::time_point now);
  // Ok, or why `spec` asks for more members than this cluster has (registered or announced).
  Status CheckCapacity(const proto::JobSpec& spec) const;
  // Starts queued jobs while the head of the queue can start (or fails it) and nothing runs.
  void TryStartNext(Clock::time_point now);
  // kNext: the head of the queue was failed, or put back after members proved unreachable, so
  // the (new) head is to be looked at; kSettled: a job runs, the head waits, or nothing is queued.
  enum class HeadOutcome { kSettled, kNext };
  // Acts on Admit (coordinator/admission.h) for the head of the queue.
  HeadOutcome StartHead(Clock::time_point now);
  // The run `record` starts next: its epoch, its time and checkpoint so far.
  Incarnation NextIncarnation(const JobRecord& record, Clock::time_point now) const;
  // The engine's job for `spec`; an error if setting it up throws.
  Result<std::unique_ptr<Job>> MakeJob(uint64_t id, const proto::JobSpec& spec,
                                       const std::vector<JobMember>& schedulers,
                                       const std::vector<JobMember>& workers,
                                       const Incarnation& incarnation, Clock::time_point now);
  void CollectFinishedJob(Clock::time_point now);
  // The running job lost a member: sends it to RECOVERING if its RecoverySpec allows; false if
  // it fails instead.
  bool TryRecover(JobRecord& record, Clock::time_point now);
  // Writes the running job's checkpoint when its interval has passed.
  void MaybeCheckpoint(Clock::time_point now);
  // Forgets job `id`'s checkpoint, in memory and on disk (its run is over).
  void DropCheckpoint(JobRecord& record, uint64_t id);
  // Wall-clock seconds since the epoch at `now` (the journal's times).
  double WallSeconds(Clock::time_point now) const;
  // Reads the journal back (constructor, with a work dir).
  void Recover(Clock::time_point now);
  // Journals `record` (a no-op without a work dir). A failure is returned, and the record is kept
  // in `unsaved_` to be written again (the store is degraded until it is).
  Status Persist(JobRecord& record, Clock::time_point now);
  // Writes a finished job's result files into the work dir and names them in its record (not
  // journaled here); on failure the record says why (JobRecord.results_unsaved).
  Status SaveResults(JobRecord& record);
  // Writes again what could not be written (at most once a second unless `force`); stops at the
  // first failure.
  void RetryUnsaved(Clock::time_point now, bool force);
  void NoteStoreError(const Status& st);
  // Ends a job that never ran or whose run is over: state, cause, journal.
  void Finish(JobRecord& record, proto::JobState state, const std::string& cause,
              Clock::time_point now);
  // Streams the state of `job_id` (0: the running job) to the subscribers; unless `force`, at
  // most every 250 ms.
  void Publish(Clock::time_point now, bool force, uint64_t job_id = 0);
  // Shows the observer the status: if `force`, else at most every 250 ms.
  void Observe(Clock::time_point now, bool force);
  bool Alive(const Member& m, Clock::time_point now) const;
  // The members and the page of jobs from `first_job_id` on, at most `max_jobs` (0: as many as
  // fit) of them (kStatusPageJobs, kStatusPageBytes).
  proto::StatusReply Snapshot(Clock::time_point now, uint64_t first_job_id = 0,
                              uint32_t max_jobs = 0);
  // Idle members of `role` whose heartbeats are current.
  std::vector<const Member*> Available(proto::Role role, Clock::time_point now) const;

  Transport& transport_;
  CoordinatorOptions options_;
  const AppRegistry& apps_;
  Logger log_;
  const Clock::time_point started_;
  bool finished_ = false;

  std::map<std::string, Member> members_;
  std::map<uint64_t, JobRecord> jobs_;
  std::deque<uint64_t> queue_;
  uint64_t next_job_id_ = 1;
  std::unique_ptr<Job> running_;
  uint64_t running_id_ = 0;

  std::map<std::string, Clock::time_point> subscribers_;  // client -> its last StatusRequest
  Clock::time_point last_publish_{};
  std::optional<JobJournal> journal_;           // with a work dir
  std::optional<CheckpointStore> checkpoints_;  // with a work dir
  Clock::time_point last_checkpoint_{};
  uint64_t checkpoints_written_ = 0;  // of the running job's run, when it paces them
  Status journal_status_;
  std::set<uint64_t> unsaved_;  // jobs whose latest state or result files are not on disk
  Status store_status_;         // the last write error while unsaved_ is not empty
  Clock::time_point last_store_retry_{};
  StatusObserver* observer_ = nullptr;
  Clock::time_point last_observe_{};
  Clock::time_point last_prune_{};
  bool seen_full_cluster_ = false;  // the launcher's expected counts were reached once
  LogThrottle unexpected_log_;      // messages a coordinator never takes, a line per 10 s
};

}  // namespace strads
