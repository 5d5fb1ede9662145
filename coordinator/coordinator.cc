#include "coordinator/coordinator.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "common/counted_noun.h"
#include "common/protocol.h"
#include "common/wire_text.h"
#include "coordinator/admission.h"
#include "engine/job_spec.h"

namespace strads {
namespace {

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A recovery of a run of epoch `epoch`, lost `at_s` seconds into the job, resuming from the
// checkpoint after `checkpoint_round` (0: from scratch).
proto::Recovery NewRecovery(uint32_t epoch, const std::string& cause, double at_s,
                            uint64_t checkpoint_round) {
  proto::Recovery r;
  r.set_epoch(epoch);
  r.set_cause(cause);
  r.set_at_s(at_s);
  r.set_checkpoint_round(checkpoint_round);
  return r;
}

// What is kept of a spec journaled before specs were bounded (engine/job_spec.h): its app and
// numbers, and the start of its data path; no flags, engine or app parameters.
proto::JobSpec TrimmedSpec(const proto::JobSpec& spec) {
  constexpr size_t kKeptPathBytes = 256;
  proto::JobSpec kept;
  kept.set_app(spec.app().substr(0, kMaxJobNameBytes));
  kept.set_data_path(spec.data_path().size() > kKeptPathBytes
                         ? spec.data_path().substr(0, kKeptPathBytes) + "..."
                         : spec.data_path());
  kept.set_max_seconds(spec.max_seconds());
  kept.set_schedulers(spec.schedulers());
  kept.set_workers(spec.workers());
  kept.set_seed(spec.seed());
  *kept.mutable_recovery() = spec.recovery();
  return kept;
}

}  // namespace

Coordinator::Coordinator(Transport& transport, CoordinatorOptions options, const AppRegistry& apps,
                         Logger log, Clock::time_point started)
    : transport_(transport),
      options_(std::move(options)),
      apps_(apps),
      log_(std::move(log)),
      started_(started) {
  if (!options_.work_dir.empty()) Recover(started);
}

double Coordinator::WallSeconds(Clock::time_point now) const {
  return options_.started_unix_s + Seconds(now - started_);
}

void Coordinator::Recover(Clock::time_point now) {
  journal_.emplace(options_.work_dir, options_.file_writer);
  checkpoints_.emplace(options_.work_dir, options_.file_writer);
  auto recovered = journal_->Recover();
  if (!recovered.ok()) {
    journal_status_ =
        Status::IoError("the job journal is unusable: " + recovered.status().message());
    log_->critical("{}", journal_status_.message());
    return;
  }
  for (const auto& p : recovered->problems) {
    log_->error("journal: skipped {}: {}", p.file, p.reason);
  }
  if (recovered->removed_temp_files > 0) {
    log_->warn("removed {} left by interrupted writes",
               CountedNoun(recovered->removed_temp_files, "temporary file"));
  }
  next_job_id_ = recovered->next_job_id;
  size_t finished = 0, requeued = 0, interrupted = 0, invalid = 0;
  std::vector<uint64_t> resumed;
  for (auto& durable : recovered->records) {
    const uint64_t id = durable.info().job_id();
    JobRecord& record = jobs_[id];
    record.info = durable.info();
    record.submitted = now;
    record.durable = std::move(durable);
    if (const size_t bytes = record.info.spec().ByteSizeLong(); bytes > kMaxJobSpecBytes) {
      // Journaled before specs were bounded: such a spec made every status reply huge. Kept in
      // part, here and in the journal; a job that would run again fails instead.
      *record.info.mutable_spec() = TrimmedSpec(record.info.spec());
      log_->warn("job {}: its spec of {} bytes is above the limit of {}; only its start is kept",
                 id, bytes, kMaxJobSpecBytes);
      if (!IsFinal(record.info.state())) {
        Finish(record, proto::JOB_FAILED,
               fmt::format("its spec of {} bytes is above the limit of {} bytes on a job spec",
                           bytes, kMaxJobSpecBytes),
               now);
        ++invalid;
        continue;
      }
      (void)Persist(record, now);
    }
    // A job that would run again must be one this coordinator accepts: a journal written by
    // another version may hold a spec it cannot read (before protocol version 8, the app's
    // parameters under tags this version has reserved).
    if (!IsFinal(record.info.state())) {
      if (Status st = ValidateJobSpec(apps_, record.info.spec()); !st.ok()) {
        log_->error("job {}: its spec is not valid after the restart: {}", id, st.message());
        Finish(record, proto::JOB_FAILED,
               "its spec is not valid after the restart: " + st.message(), now);
        ++invalid;
        continue;
      }
    }
    switch (record.info.state()) {
      case proto::JOB_QUEUED:
        queue_.push_back(id);
        ++requeued;
        break;
      case proto::JOB_LOADING:
      case proto::JOB_RUNNING:
      case proto::JOB_RECOVERING: {
        // Its members have forgotten it (or will on their next JobStart): it runs again as the
        // next epoch, from its checkpoint on disk if it has one.
        const auto& rs = record.info.spec().recovery();
        if (static_cast<uint32_t>(record.info.recoveries_size()) >= rs.max_recoveries()) {
          Finish(record, proto::JOB_FAILED,
                 rs.max_recoveries() ? "coordinator restarted (no recoveries left)"
                                     : "coordinator restarted",
                 now);
          ++interrupted;
          break;
        }
        std::vector<std::string> skipped;
        auto checkpoint = checkpoints_->Read(id, &skipped);
        for (const auto& why : skipped) {
          log_->error("job {}: skipped a checkpoint: {}", id, why);
        }
        if (checkpoint.ok()) {
          record.resume = std::move(*checkpoint);
        } else if (checkpoint.status().code() != StatusCode::kNotFound) {
          log_->error("job {}: its checkpoint is unusable, it starts over: {}", id,
                      checkpoint.status().message());
        }
        // The work redone is not known: what was done after the checkpoint died with the
        // coordinator (the journal's progress is as of the last state change). It stays 0.
        *record.info.add_recoveries() =
            NewRecovery(record.info.epoch(), "coordinator restarted",
                        WallSeconds(now) - record.durable.started_unix_s(),
                        record.resume ? record.resume->progress() : 0);
        record.info.set_state(proto::JOB_RECOVERING);
        (void)Persist(record, now);
        resumed.push_back(id);
        break;
      }
      default:
        ++finished;
    }
  }
  // Interrupted jobs go first, in the order they were submitted.
  queue_.insert(queue_.begin(), resumed.begin(), resumed.end());
  log_->info(
      "journal {}: recovered {}: {} finished, {} queued again, {} to resume, {} failed as "
      "they were running, {} failed as their spec is not valid; next job id {}",
      (std::filesystem::path(options_.work_dir) / "journal").string(),
      CountedNoun(jobs_.size(), "job"), finished, requeued, resumed.size(), interrupted, invalid,
      next_job_id_);
}

Status Coordinator::Persist(JobRecord& record, Clock::time_point now) {
  if (!journal_) return Status::Ok();
  const uint64_t id = record.info.job_id();
  *record.durable.mutable_info() = record.info;
  Status st = journal_->Write(record.durable);
  if (!st.ok()) {
    log_->debug("job {}: cannot journal it: {}", id, st.message());
    unsaved_.insert(id);
    NoteStoreError(st);
    return st;
  }
  // Results unsaved by a predecessor (no files in memory) cannot be written by this coordinator.
  if (record.durable.results_unsaved().empty() || record.files.empty()) {
    unsaved_.erase(id);
  } else {
    unsaved_.insert(id);
  }
  if (unsaved_.empty() && !store_status_.ok()) {
    log_->info("the work dir takes writes again: every job's state is on disk");
    store_status_ = Status::Ok();
  }
  return Status::Ok();
}

void Coordinator::NoteStoreError(const Status& st) {
  if (store_status_.ok()) {
    log_->error(
        "the work dir cannot be written ({}): new jobs are refused, and the states not written "
        "are kept in memory and written again every second",
        st.message());
  }
  store_status_ = st;
}

Status Coordinator::SaveResults(JobRecord& record) {
  auto dir = journal_->WriteResults(record.info.job_id(), record.files);
  if (!dir.ok()) {
    record.durable.set_results_unsaved(dir.status().message());
    NoteStoreError(dir.status());
    return dir.status();
  }
  record.durable.set_result_dir(*dir);
  record.durable.clear_result_files();
  for (const auto& f : record.files) record.durable.add_result_files(f.name());
  record.durable.clear_results_unsaved();
  return Status::Ok();
}

void Coordinator::RetryUnsaved(Clock::time_point now, bool force) {
  if (unsaved_.empty() || !journal_) return;
  if (!force && now - last_store_retry_ < std::chrono::seconds(1)) return;
  last_store_retry_ = now;
  const std::vector<uint64_t> ids(unsaved_.begin(), unsaved_.end());  // Persist edits unsaved_
  for (uint64_t id : ids) {
    JobRecord& record = jobs_[id];
    if (!record.durable.results_unsaved().empty() && !record.files.empty()) {
      if (!SaveResults(record).ok()) return;
      log_->info("job {}: its result files are written", id);
    }
    if (!Persist(record, now).ok()) return;
  }
}

Status Coordinator::FlushStore(Clock::time_point now) {
  RetryUnsaved(now, /*force=*/true);
  for (uint64_t id : unsaved_) {
    const JobRecord& record = jobs_[id];
    log_->critical("job {} ({}): {} not on disk and will be lost: {}", id,
                   JobStateName(record.info.state()),
                   record.durable.results_unsaved().empty() ? "its state is" : "its results are",
                   store_status_.message());
  }
  return store_status_;
}

void Coordinator::Finish(JobRecord& record, proto::JobState state, const std::string& cause,
                         Clock::time_point now) {
  record.info.set_state(state);
  record.info.set_error(cause);
  record.durable.set_finished_unix_s(WallSeconds(now));
  (void)Persist(record, now);
}

void Coordinator::Reply(const proto::Envelope& request, proto::Envelope reply) {
  if (Status st = transport_.Send(request.sender(), reply); !st.ok()) {
    log_->warn("cannot answer {} of {}: {}", BodyName(request), request.sender(), st.message());
  }
}

void Coordinator::ReplyError(const proto::Envelope& request, const std::string& message,
                             proto::ErrorKind kind) {
  auto e = MakeEnvelope(transport_.id(), request.job_id());
  e.mutable_error()->set_message(WireText(message));
  e.mutable_error()->set_kind(kind);
  Reply(request, std::move(e));
}

void Coordinator::OnMessage(const proto::Envelope& e, Clock::time_point now) {
  switch (e.body_case()) {
    case proto::Envelope::kRegister:
      return HandleRegister(e, now);
    case proto::Envelope::kHeartbeat: {
      auto it = members_.find(e.sender());
      if (it == members_.end()) return ReplyError(e, "not registered");
      it->second.last_heartbeat = now;
      *it->second.info.mutable_traffic() = e.heartbeat().traffic();
      return;
    }
    case proto::Envelope::kSubmit:
      return HandleSubmit(e, now);
    case proto::Envelope::kCancel:
      return HandleCancel(e, now);
    case proto::Envelope::kStatusRequest:
      return HandleStatus(e, now);
    case proto::Envelope::kResultRequest:
      return HandleResult(e, now);
    case proto::Envelope::kShutdownCluster:
      return HandleShutdown(e, now);
    case proto::Envelope::kReady:
    case proto::Envelope::kJobFailed:
    case proto::Envelope::kChord:
    case proto::Envelope::kColumnPartials:
    case proto::Envelope::kColumnCounts:
    case proto::Envelope::kLossReport:
    case proto::Envelope::kCheckReport:
    case proto::Envelope::kModelSlice:
    case proto::Envelope::kSubRoundDone:
    case proto::Envelope::kPassDone:
    case proto::Envelope::kStaticOutput:
      if (running_ && e.job_id() == running_id_) {
        running_->OnMessage(e, now);
        CollectFinishedJob(now);
      } else {
        log_->debug("dropping {} of job {} from {}", BodyName(e), e.job_id(), e.sender());
      }
      return;
    default:
      if (auto line = unexpected_log_.Note(
              fmt::format("unexpected {} from {}", BodyName(e), e.sender()), Clock::now())) {
        log_->warn("{}", *line);
      }
      if (e.body_case() == proto::Envelope::BODY_NOT_SET) ReplyError(e, "empty message");
  }
}

void Coordinator::HandleRegister(const proto::Envelope& e, Clock::time_point now) {
  const auto& r = e.register_();
  if (r.role() != proto::ROLE_SCHEDULER && r.role() != proto::ROLE_WORKER) {
    return ReplyError(e, "only schedulers and workers register");
  }
  // Every status reply lists the members: their texts are bounded like a job spec's.
  for (const auto& [text, what] :
       {std::pair{&r.host(), "host"}, {&r.endpoint(), "endpoint"}, {&e.sender(), "id"}}) {
    if (text->size() > kMaxMemberTextBytes) {
      return ReplyError(e, fmt::format("a member's {} is {} bytes long: at most {} (the limit on "
                                       "a member's host, endpoint and id)",
                                       what, text->size(), kMaxMemberTextBytes));
    }
  }
  Member& m = members_[e.sender()];
  const bool fresh = m.info.id().empty();
  m.info.set_id(e.sender());
  m.info.set_role(r.role());
  m.info.set_host(r.host());
  m.info.set_pid(r.pid());
  m.info.set_endpoint(r.endpoint());
  m.last_heartbeat = now;
  m.suspected_at.reset();  // registering: a live process
  if (fresh) {
    log_->info("{} {} registered (host {}, pid {}, endpoint {})", RoleName(r.role()), e.sender(),
               r.host(), r.pid(), r.endpoint());
  }
  auto ack = MakeEnvelope(transport_.id());
  ack.mutable_register_ack()->set_heartbeat_interval_s(options_.heartbeat_interval_s);
  Reply(e, std::move(ack));
  TryStartNext(now);
}

void Coordinator::HandleSubmit(const proto::Envelope& e, Clock::time_point now) {
  const proto::JobSpec& spec = e.submit().spec();
  if (Status st = ValidateJobSpec(apps_, spec); !st.ok()) return ReplyError(e, st.message());
  if (!journal_status_.ok()) {
    return ReplyError(e, journal_status_.message(), proto::ERROR_KIND_STORAGE);
  }
  RetryUnsaved(now, /*force=*/true);
  if (!unsaved_.empty()) {
    return ReplyError(
        e,
        fmt::format("the coordinator cannot write its work dir ({}); new jobs are refused until "
                    "it can ({} kept in memory meanwhile)",
                    store_status_.message(), CountedNoun(unsaved_.size(), "job state")),
        proto::ERROR_KIND_STORAGE);
  }
  if (Status st = CheckCapacity(spec); !st.ok()) return ReplyError(e, st.message());
  const uint64_t id = next_job_id_++;
  JobRecord& record = jobs_[id];
  record.submitted = now;
  record.info.set_job_id(id);
  record.info.set_app(spec.app());
  record.info.set_state(proto::JOB_QUEUED);
  record.info.set_violation(-1);  // not measured
  *record.info.mutable_spec() = spec;
  record.durable.set_submitter(e.sender());
  record.durable.set_submitted_unix_s(WallSeconds(now));
  // Acknowledged only once durable: a job the client was told about survives a crash.
  if (Status st = Persist(record, now); !st.ok()) {
    jobs_.erase(id);
    unsaved_.erase(id);
    next_job_id_ = id;  // never acknowledged, nothing of it on disk: the id is free again
    return ReplyError(e, "cannot journal the job: " + st.message(), proto::ERROR_KIND_STORAGE);
  }
  queue_.push_back(id);
  log_->info("job {} submitted by {}: {} on {}", id, e.sender(), spec.app(), spec.data_path());
  auto reply = MakeEnvelope(transport_.id(), id);
  reply.mutable_submit_reply()->set_job_id(id);
  Reply(e, std::move(reply));
  TryStartNext(now);
}

void Coordinator::HandleCancel(const proto::Envelope& e, Clock::time_point now) {
  auto it = jobs_.find(e.job_id());
  if (it == jobs_.end()) return ReplyError(e, fmt::format("no job {}", e.job_id()));
  JobRecord& record = it->second;
  const bool had_ended = IsFinal(record.info.state());
  if (running_ && running_id_ == e.job_id()) {
    running_->Cancel(now);
    CollectFinishedJob(now);
  } else if (record.info.state() == proto::JOB_QUEUED) {
    std::erase(queue_, e.job_id());
    Finish(record, proto::JOB_CANCELLED, "cancelled before it started", now);
  } else if (record.info.state() == proto::JOB_RECOVERING) {
    std::erase(queue_, e.job_id());
    DropCheckpoint(record, e.job_id());
    Finish(record, proto::JOB_CANCELLED, "cancelled while recovering", now);
  }
  log_->info("job {}: cancel requested by {}, now {}", e.job_id(), e.sender(),
             JobStateName(record.info.state()));
  auto reply = MakeEnvelope(transport_.id(), e.job_id());
  reply.mutable_cancel_reply()->set_state(record.info.state());
  reply.mutable_cancel_reply()->set_had_ended(had_ended);
  Reply(e, std::move(reply));
  Publish(now, true, e.job_id());
}

proto::StatusReply Coordinator::Snapshot(Clock::time_point now, uint64_t first_job_id,
                                         uint32_t max_jobs) {
  proto::StatusReply s;
  s.set_coordinator(transport_.id());
  s.set_uptime_s(Seconds(now - started_));
  s.set_status_endpoint(options_.status_endpoint);
  if (const TrafficCounter* traffic = transport_.traffic()) {
    traffic->Export(*s.mutable_coordinator_traffic());
  }
  if (!journal_status_.ok()) s.set_store_problem(journal_status_.message());
  if (!store_status_.ok()) {
    s.set_store_problem(
        fmt::format("{}; new jobs are refused until it is written ({} kept in "
                    "memory)",
                    store_status_.message(), CountedNoun(unsaved_.size(), "job state")));
  }
  for (auto& [id, m] : members_) {
    proto::Member* out = s.add_members();
    *out = m.info;
    out->set_heartbeat_age_s(Seconds(now - m.last_heartbeat));
  }
  const uint32_t page_jobs = max_jobs == 0 ? kStatusPageJobs : std::min(max_jobs, kStatusPageJobs);
  size_t bytes = 0;
  uint32_t listed = 0;
  for (auto it = jobs_.lower_bound(first_job_id); it != jobs_.end(); ++it) {
    const auto& [id, record] = *it;
    proto::JobInfo info = (running_ && id == running_id_) ? running_->Info(now) : record.info;
    const size_t size = info.ByteSizeLong();
    // At least one job a page, so that every job can be read.
    if (listed == page_jobs || (listed > 0 && bytes + size > kStatusPageBytes)) {
      s.set_next_job_id(id);
      break;
    }
    bytes += size;
    ++listed;
    *s.add_jobs() = std::move(info);
  }
  return s;
}

void Coordinator::HandleStatus(const proto::Envelope& e, Clock::time_point now) {
  const auto& request = e.status_request();
  auto reply = MakeEnvelope(transport_.id());
  *reply.mutable_status_reply() = Snapshot(now, request.first_job_id(), request.max_jobs());
  Reply(e, std::move(reply));
  if (request.subscribe()) subscribers_[e.sender()] = now;
}

Status Coordinator::CheckCapacity(const proto::JobSpec& spec) const {
  size_t registered[2] = {0, 0};  // schedulers, workers
  for (const auto& [id, m] : members_) {
    if (m.info.role() == proto::ROLE_SCHEDULER) ++registered[0];
    if (m.info.role() == proto::ROLE_WORKER) ++registered[1];
  }
  const struct {
    uint32_t asked;
    uint32_t announced;
    size_t registered;
    const char* flag;
    const char* noun;
  } groups[] = {
      {spec.schedulers(), options_.expect_schedulers, registered[0], "--schedulers", "scheduler"},
      {spec.workers(), options_.expect_workers, registered[1], "--workers", "worker"},
  };
  for (const auto& g : groups) {
    const size_t size = std::max<size_t>(g.announced, g.registered);
    // With nothing registered or announced the cluster's size is unknown: the job waits.
    if (size == 0 || g.asked <= size) continue;
    return Status::InvalidArgument(
        fmt::format("{} {} can never be met: the cluster has {} ({} registered, {} announced "
                    "by the launcher)",
                    g.flag, g.asked, CountedNoun(size, g.noun), g.registered, g.announced));
  }
  return Status::Ok();
}

void Coordinator::HandleResult(const proto::Envelope& e, Clock::time_point now) {
  auto it = jobs_.find(e.job_id());
  if (it == jobs_.end()) return ReplyError(e, fmt::format("no job {}", e.job_id()));
  const JobRecord& record = it->second;
  if (!IsFinal(record.info.state())) {
    return ReplyError(e, fmt::format("job {} is {}; results exist once it has finished", e.job_id(),
                                     JobStateName(record.info.state())));
  }
  auto reply = MakeEnvelope(transport_.id(), e.job_id());
  auto* r = reply.mutable_result_reply();
  *r->mutable_job() = record.info;
  if (record.files.empty() && !record.durable.results_unsaved().empty()) {
    // It finished before this coordinator started, whose predecessor could not write its files.
    return ReplyError(e,
                      fmt::format("job {}'s result files were not written before the coordinator "
                                  "restarted: {}",
                                  e.job_id(), record.durable.results_unsaved()),
                      proto::ERROR_KIND_STORAGE);
  }
  if (record.files.empty() && record.durable.result_files_size() > 0 && journal_) {
    // A job finished before this coordinator started: its files are on disk only.
    auto files = journal_->ReadResults(record.durable);
    if (!files.ok()) return ReplyError(e, files.status().message(), proto::ERROR_KIND_STORAGE);
    for (auto& f : *files) *r->add_files() = std::move(f);
  }
  for (const auto& f : record.files) *r->add_files() = f;
  Reply(e, std::move(reply));
}

void Coordinator::HandleShutdown(const proto::Envelope& e, Clock::time_point now) {
  log_->info("shutdown requested by {}", e.sender());
  if (running_) {
    running_->Fail("the cluster was shut down", now);
    CollectFinishedJob(now);
  }
  for (uint64_t id : queue_)
    Finish(jobs_[id], proto::JOB_CANCELLED, "the cluster was shut down", now);
  queue_.clear();
  auto bye = MakeEnvelope(transport_.id());
  bye.mutable_shutdown();
  for (const auto& [id, m] : members_) {
    if (Status st = transport_.Send(id, bye); !st.ok()) {
      log_->warn("cannot tell {} to shut down: {}", id, st.message());
    }
  }
  auto reply = MakeEnvelope(transport_.id());
  reply.mutable_shutdown_cluster();
  Reply(e, std::move(reply));
  finished_ = true;
}

std::vector<const Coordinator::Member*> Coordinator::Available(proto::Role role,
                                                               Clock::time_point now) const {
  std::vector<const Member*> out;
  for (const auto& [id, m] : members_) {
    if (m.info.role() != role || m.info.busy() || !Alive(m, now)) continue;
    // Suspected by a peer: only once it has beaten well after the suspicion (a heartbeat sent
    // just before it died may still arrive).
    if (m.suspected_at &&
        Seconds(m.last_heartbeat - *m.suspected_at) <= options_.heartbeat_interval_s)
      continue;
    out.push_back(&m);
  }
  return out;
}

void Coordinator::TryStartNext(Clock::time_point now) {
  while (StartHead(now) == HeadOutcome::kNext) {
  }
}

Coordinator::HeadOutcome Coordinator::StartHead(Clock::time_point now) {
  if (running_ || queue_.empty()) return HeadOutcome::kSettled;
  const uint64_t id = queue_.front();
  JobRecord& record = jobs_[id];
  const proto::JobSpec& spec = record.info.spec();
  const auto schedulers = Available(proto::ROLE_SCHEDULER, now);
  const auto workers = Available(proto::ROLE_WORKER, now);
  // The registration deadline runs from when the job is first able to start: the head of the
  // queue with no job running.
  if (!record.at_head) record.at_head = now;
  const bool recovering = record.info.state() == proto::JOB_RECOVERING;
  AdmissionInput in;
  in.asked_schedulers = spec.schedulers();
  in.asked_workers = spec.workers();
  in.announced_schedulers = seen_full_cluster_ ? 0 : options_.expect_schedulers;
  in.announced_workers = seen_full_cluster_ ? 0 : options_.expect_workers;
  in.available_schedulers = schedulers.size();
  in.available_workers = workers.size();
  in.recovering = recovering;
  in.last_schedulers = record.info.schedulers();
  in.last_workers = record.info.workers();
  in.recovery_wait_s = spec.recovery().recovery_wait_s();
  in.waited_s = Seconds(now - *record.at_head);
  in.register_timeout_s = options_.register_timeout_s;
  const Admission admission = Admit(in);
  if (admission.decision == Admission::Decision::kWait) return HeadOutcome::kSettled;
  if (admission.decision == Admission::Decision::kFail) {
    auto ids = [](const std::vector<const Member*>& v) {
      std::vector<std::string> out;
      for (const auto* m : v) out.push_back(m->info.id());
      return out;
    };
    const std::string cause = AdmissionFailure(in, admission, ids(schedulers), ids(workers));
    log_->error("job {} {}", id, cause);
    queue_.pop_front();
    Finish(record, proto::JOB_FAILED, cause, now);
    Publish(now, true, id);
    return HeadOutcome::kNext;
  }
  if (admission.replanned) {
    log_->warn("job {}: no replacement within {:.0f} s; re-planned over {} and {} (had {} and {})",
               id, in.recovery_wait_s, CountedNoun(admission.schedulers, "scheduler"),
               CountedNoun(admission.workers, "worker"), std::max<uint32_t>(1, in.last_schedulers),
               std::max<uint32_t>(1, in.last_workers));
  }
  if (schedulers.size() >= options_.expect_schedulers && workers.size() >= options_.expect_workers)
    seen_full_cluster_ = true;
  queue_.pop_front();
  std::vector<JobMember> job_schedulers, job_workers;
  for (size_t i = 0; i < admission.schedulers; ++i) {
    job_schedulers.push_back({schedulers[i]->info.id(), schedulers[i]->info.endpoint()});
  }
  for (size_t i = 0; i < admission.workers; ++i) {
    job_workers.push_back({workers[i]->info.id(), workers[i]->info.endpoint()});
  }
  const Incarnation incarnation = NextIncarnation(record, now);
  // Building a job allocates per-job state sized by the spec; if that fails the job fails, and
  // the queue and the members are left as they were for the next job.
  auto job = MakeJob(id, spec, job_schedulers, job_workers, incarnation, now);
  if (!job.ok()) {
    log_->error("job {} {}", id, job.status().message());
    Finish(record, proto::JOB_FAILED, job.status().message(), now);
    Publish(now, true, id);
    return HeadOutcome::kNext;
  }
  running_ = std::move(job).value();
  for (const auto* group : {&job_schedulers, &job_workers}) {
    for (const auto& m : *group) members_[m.id].info.set_busy(true);
  }
  running_id_ = id;
  record.info.set_state(proto::JOB_LOADING);
  record.info.set_epoch(incarnation.epoch);
  // Journaled: a recovery after a coordinator restart waits for as many members.
  record.info.set_schedulers(static_cast<uint32_t>(job_schedulers.size()));
  record.info.set_workers(static_cast<uint32_t>(job_workers.size()));
  *record.info.mutable_recoveries() = {incarnation.recoveries.begin(),
                                       incarnation.recoveries.end()};
  if (record.info.recoveries_size() == 0) record.durable.set_started_unix_s(WallSeconds(now));
  (void)Persist(record, now);
  last_checkpoint_ = now;
  checkpoints_written_ = 0;
  running_->Start(now);
  if (running_->done() && !running_->unreachable().empty()) {
    // A member we believed alive is gone: drop it and start the job again on the others (it
    // waits for members like any queued job). Bounded: each retry drops at least one member.
    for (auto& [member_id, m] : members_) {
      if (running_->Involves(member_id)) m.info.set_busy(false);
    }
    for (const auto& gone : running_->unreachable()) {
      log_->warn("dropped {}: unreachable when job {} started", gone, id);
      members_.erase(gone);
    }
    running_.reset();
    running_id_ = 0;
    record.info.set_state(recovering ? proto::JOB_RECOVERING : proto::JOB_QUEUED);
    (void)Persist(record, now);
    queue_.push_front(id);
    return HeadOutcome::kNext;
  }
  CollectFinishedJob(now);
  Publish(now, true);
  return HeadOutcome::kSettled;
}

Incarnation Coordinator::NextIncarnation(const JobRecord& record, Clock::time_point now) const {
  // Epoch k is the run after the k-th recovery (a member loss or a coordinator restart).
  Incarnation incarnation;
  const bool rerun = record.info.recoveries_size() > 0;
  incarnation.epoch = static_cast<uint32_t>(record.info.recoveries_size());
  if (rerun) {
    incarnation.seconds_before = std::max(0.0, WallSeconds(now) - record.durable.started_unix_s());
  }
  incarnation.resume = record.resume;
  incarnation.recoveries.assign(record.info.recoveries().begin(), record.info.recoveries().end());
  if (!incarnation.recoveries.empty()) {
    incarnation.recoveries.back().set_restarted_at_s(incarnation.seconds_before);
  }
  return incarnation;
}

Result<std::unique_ptr<Job>> Coordinator::MakeJob(uint64_t id, const proto::JobSpec& spec,
                                                  const std::vector<JobMember>& schedulers,
                                                  const std::vector<JobMember>& workers,
                                                  const Incarnation& incarnation,
                                                  Clock::time_point now) {
  try {
    // Submitted specs were validated, so the app is registered.
    const App* app = apps_.Find(spec.app()).value();
    if (const StaticApp* static_app = app->AsStatic()) {
      return std::unique_ptr<Job>(std::make_unique<StaticJob>(transport_, id, spec, static_app,
                                                              schedulers, workers, log_, now,
                                                              options_.deadlines, incarnation));
    }
    return std::unique_ptr<Job>(std::make_unique<DynamicJob>(transport_, id, spec, app->AsDynamic(),
                                                             schedulers, workers, log_, now,
                                                             options_.deadlines, incarnation));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot set up the job: ") + e.what());
  }
}

void Coordinator::CollectFinishedJob(Clock::time_point now) {
  if (!running_ || !running_->done()) return;
  JobRecord& record = jobs_[running_id_];
  if (running_->lost_member() && TryRecover(record, now)) return;
  record.info = running_->Info(now);
  DropCheckpoint(record, running_id_);
  record.files = running_->ResultFiles();  // partial ones for a job that did not succeed
  if (!record.files.empty() && journal_) {
    // Files first, then the record that names them: a record never points at missing files. If
    // the files cannot be written, the record (small, and the final state) is written without
    // them, saying why; the files are written again with the record until they are on disk.
    if (Status st = SaveResults(record); !st.ok()) {
      log_->error("job {}: cannot write its results (written again every second): {}",
                  record.info.job_id(), st.message());
    }
  }
  record.durable.set_finished_unix_s(WallSeconds(now));
  if (Status st = Persist(record, now); !st.ok()) {
    log_->error(
        "job {}: cannot journal its final state {} (kept in memory, written again every "
        "second): {}",
        record.info.job_id(), JobStateName(record.info.state()), st.message());
  }
  for (auto& [id, m] : members_) {
    if (running_->Involves(id)) m.info.set_busy(false);
  }
  for (const auto& id : running_->unreachable()) {
    // A member we could not send to is gone or stuck; if it is alive its next heartbeat is
    // answered with "not registered" and it registers again.
    if (members_.erase(id)) log_->warn("dropped {}: unreachable", id);
  }
  const uint64_t finished = running_id_;
  running_.reset();
  running_id_ = 0;
  Publish(now, true, finished);
  TryStartNext(now);
}

bool Coordinator::TryRecover(JobRecord& record, Clock::time_point now) {
  const uint64_t id = running_id_;
  proto::JobInfo info = running_->Info(now);
  const proto::RecoverySpec& rs = info.spec().recovery();
  if (info.state() != proto::JOB_FAILED) return false;
  if (static_cast<uint32_t>(info.recoveries_size()) >= rs.max_recoveries()) {
    if (rs.max_recoveries() > 0) {
      log_->error("job {}: lost a member after {} recoveries (--max-recoveries {}): it fails", id,
                  info.recoveries_size(), rs.max_recoveries());
    }
    return false;
  }
  std::optional<proto::Checkpoint> checkpoint = running_->TakeCheckpoint(now);
  proto::Recovery r = NewRecovery(info.epoch(), info.error(), info.seconds(),
                                  checkpoint ? checkpoint->progress() : 0);
  r.set_work_redone(running_->Progress() - std::min(running_->Progress(), r.checkpoint_round()));
  if (checkpoint && checkpoints_) {
    if (Status st = checkpoints_->Write(*checkpoint); !st.ok()) {
      log_->error("job {}: cannot write its checkpoint: {}", id, st.message());
    }
  }
  log_->warn("job {}: epoch {} lost a member ({}); recovering ({} of at most {}) from {}", id,
             info.epoch(), info.error(), info.recoveries_size() + 1, rs.max_recoveries(),
             checkpoint ? fmt::format("the checkpoint after {} (work redone: {})",
                                      checkpoint->progress(), r.work_redone())
                        : std::string("scratch (no checkpoint yet)"));
  *info.add_recoveries() = r;
  info.set_state(proto::JOB_RECOVERING);
  info.set_error("");
  record.info = std::move(info);
  record.resume = std::move(checkpoint);
  record.at_head = now;  // the recovery wait starts now
  (void)Persist(record, now);
  for (auto& [member_id, m] : members_) {
    if (running_->Involves(member_id)) m.info.set_busy(false);
  }
  for (const auto& gone : running_->unreachable()) {
    if (members_.erase(gone)) log_->warn("dropped {}: unreachable", gone);
  }
  for (const auto& suspect : running_->suspects()) {
    // Its heartbeats decide: dropped when they stop, taken again after the next one.
    if (auto it = members_.find(suspect); it != members_.end()) it->second.suspected_at = now;
  }
  running_.reset();
  running_id_ = 0;
  queue_.push_front(id);
  Publish(now, true, id);
  TryStartNext(now);
  return true;
}

void Coordinator::DropCheckpoint(JobRecord& record, uint64_t id) {
  record.resume.reset();
  if (checkpoints_) checkpoints_->Remove(id);
}

void Coordinator::MaybeCheckpoint(Clock::time_point now) {
  if (!running_ || !checkpoints_ || running_->done()) return;
  if (running_->PacesCheckpoints()) {
    // Written as soon as collected: a loss then redoes at most one interval.
    if (running_->checkpoints_collected() == checkpoints_written_) return;
    checkpoints_written_ = running_->checkpoints_collected();
  } else {
    const double every = jobs_[running_id_].info.spec().recovery().checkpoint_every_s();
    if (every <= 0 || Seconds(now - last_checkpoint_) < every) return;
    last_checkpoint_ = now;
  }
  auto checkpoint = running_->TakeCheckpoint(now);
  if (!checkpoint) return;
  const auto started = Clock::now();
  if (Status st = checkpoints_->Write(*checkpoint); !st.ok()) {
    log_->error("job {}: cannot write its checkpoint: {}", running_id_, st.message());
    return;
  }
  JobRecord& record = jobs_[running_id_];
  if (record.durable.checkpoint().empty()) {
    record.durable.set_checkpoint(checkpoints_->PathOf(running_id_).string());
    (void)Persist(record, now);
  }
  log_->info("job {}: checkpoint at {} written in {:.1f} ms", running_id_, checkpoint->progress(),
             Seconds(Clock::now() - started) * 1e3);
}

bool Coordinator::Alive(const Member& m, Clock::time_point now) const {
  return Seconds(now - m.last_heartbeat) <= options_.heartbeat_timeout_s;
}

void Coordinator::CheckHeartbeats(Clock::time_point now) {
  // Collect first: failing a job may start the next one, which may drop members too.
  std::vector<std::string> expired;
  for (const auto& [id, m] : members_) {
    if (!Alive(m, now)) expired.push_back(id);
  }
  for (const auto& id : expired) {
    auto it = members_.find(id);
    if (it == members_.end()) continue;
    const proto::Member& m = it->second.info;
    const double age = Seconds(now - it->second.last_heartbeat);
    const std::string who =
        fmt::format("{} {} (host {}, pid {})", RoleName(m.role()), m.id(), m.host(), m.pid());
    log_->error("{} sent no heartbeat for {:.1f} s; dropped", who, age);
    if (running_ && running_->Involves(m.id())) {
      running_->LoseMember(
          fmt::format("{} stopped responding: no heartbeat for {:.1f} s", who, age), now);
    }
    members_.erase(it);
  }
  if (!expired.empty()) CollectFinishedJob(now);
}

void Coordinator::Publish(Clock::time_point now, bool force, uint64_t job_id) {
  Observe(now, force);
  if (subscribers_.empty()) return;
  const proto::JobInfo* info = nullptr;
  proto::JobInfo live;
  if (running_ && (job_id == 0 || job_id == running_id_)) {
    live = running_->Info(now);
    info = &live;
  } else if (auto it = jobs_.find(job_id); it != jobs_.end()) {
    info = &it->second.info;
  }
  if (!info) return;
  if (!force && now - last_publish_ < std::chrono::milliseconds(250)) return;
  last_publish_ = now;
  auto e = MakeEnvelope(transport_.id(), info->job_id());
  *e.mutable_progress()->mutable_job() = *info;
  for (auto it = subscribers_.begin(); it != subscribers_.end();) {
    if (transport_.Send(it->first, e).ok()) {
      ++it;
    } else {
      log_->debug("status subscriber {} went away", it->first);
      it = subscribers_.erase(it);
    }
  }
}

void Coordinator::Observe(Clock::time_point now, bool force) {
  if (!observer_) return;
  if (!force && now - last_observe_ < std::chrono::milliseconds(250)) return;
  last_observe_ = now;
  // The newest jobs: the dashboard shows what runs and what ran last, never the whole table.
  auto first = jobs_.rbegin();
  for (size_t k = 1; k < kDashboardJobs && first != jobs_.rend(); ++k) ++first;
  observer_->OnStatus(Snapshot(now, first == jobs_.rend() ? 0 : first->first, kDashboardJobs));
}

void Coordinator::PruneSubscribers(Clock::time_point now) {
  // Once a second is often enough for a 30 s lease, and keeps ticks cheap with many subscribers.
  if (now - last_prune_ < std::chrono::seconds(1)) return;
  last_prune_ = now;
  std::erase_if(subscribers_, [&](const auto& s) {
    return Seconds(now - s.second) > options_.subscription_ttl_s;
  });
}

void Coordinator::OnTick(Clock::time_point now) {
  CheckHeartbeats(now);
  RetryUnsaved(now, /*force=*/false);
  PruneSubscribers(now);
  if (running_) {
    running_->OnTick(now);
    CollectFinishedJob(now);
  }
  MaybeCheckpoint(now);
  TryStartNext(now);
  Publish(now, false);
}

}  // namespace strads
