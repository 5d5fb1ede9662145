#include "coordinator/engine_job.h"

#include <fmt/format.h>

#include "common/counted_noun.h"
#include "common/protocol.h"
#include "common/wire_text.h"
#include "coordinator/status_json.h"

namespace strads {

EngineJob::EngineJob(Transport& transport, uint64_t id, proto::JobSpec spec,
                     std::vector<JobMember> schedulers, std::vector<JobMember> workers, Logger log,
                     Clock::time_point now, JobDeadlines deadlines, Incarnation incarnation)
    : transport_(transport),
      id_(id),
      spec_(std::move(spec)),
      schedulers_(std::move(schedulers)),
      workers_(std::move(workers)),
      log_(std::move(log)),
      started_(now),
      deadlines_(deadlines),
      incarnation_(std::move(incarnation)),
      last_progress_(now) {
  for (size_t s = 0; s < schedulers_.size(); ++s) scheduler_rank_[schedulers_[s].id] = int(s);
  for (size_t w = 0; w < workers_.size(); ++w) worker_rank_[workers_[w].id] = int(w);
}

proto::Envelope EngineJob::Out(uint64_t round) const {
  auto e = MakeEnvelope(transport_.id(), id_, round);
  e.set_epoch(incarnation_.epoch);
  return e;
}

int EngineJob::Rank(const std::string& sender, proto::Role role) const {
  const auto& index = role == proto::ROLE_SCHEDULER ? scheduler_rank_ : worker_rank_;
  auto it = index.find(sender);
  return it == index.end() ? -1 : it->second;
}

int EngineJob::Slot(const std::string& sender) const {
  if (int s = Rank(sender, proto::ROLE_SCHEDULER); s >= 0) return s;
  if (int w = Rank(sender, proto::ROLE_WORKER); w >= 0) return int(schedulers_.size()) + w;
  return -1;
}

bool EngineJob::Involves(const std::string& member_id) const { return Slot(member_id) >= 0; }

double EngineJob::Elapsed(Clock::time_point now) const {
  return incarnation_.seconds_before +
         std::chrono::duration<double>(ended_.value_or(now) - started_).count();
}

double EngineJob::Duration() const { return ended_ ? Elapsed(*ended_) : 0.0; }

void EngineJob::SendTo(const std::string& to, const proto::Envelope& e, Clock::time_point now) {
  SendTo(to, proto::Envelope(e), now);
}

void EngineJob::SendTo(const std::string& to, proto::Envelope&& e, Clock::time_point now) {
  if (done()) return;
  const std::string what = BodyName(e);
  if (Status st = transport_.SendOwned(to, std::move(e)); !st.ok()) {
    unreachable_.push_back(to);
    LoseMember("cannot send " + what + " to " + to + ": " + st.message(), now);
  }
}

void EngineJob::Broadcast(const std::vector<JobMember>& to, proto::Envelope&& e,
                          Clock::time_point now) {
  for (size_t k = 0; k + 1 < to.size(); ++k) SendTo(to[k].id, e, now);
  if (!to.empty()) SendTo(to.back().id, std::move(e), now);
}

void EngineJob::Broadcast(const std::vector<JobMember>& to, const proto::Envelope& e,
                          Clock::time_point now) {
  Broadcast(to, proto::Envelope(e), now);
}

void EngineJob::Start(Clock::time_point now) {
  log_->info("job {}: starting {} on {} and {}{}", id_, spec_.app(),
             CountedNoun(schedulers_.size(), "scheduler"), CountedNoun(workers_.size(), "worker"),
             incarnation_.epoch > 0 ? fmt::format(" (epoch {}{})", incarnation_.epoch,
                                                  incarnation_.resume ? ", from a checkpoint" : "")
                                    : "");
  for (const auto* group : {&schedulers_, &workers_}) {
    for (size_t r = 0; r < group->size(); ++r) {
      auto e = Out();
      auto* start = e.mutable_job_start();
      start->set_epoch(incarnation_.epoch);
      *start->mutable_spec() = spec_;
      start->set_rank(static_cast<uint32_t>(r));
      start->set_num_schedulers(static_cast<uint32_t>(schedulers_.size()));
      start->set_num_workers(static_cast<uint32_t>(workers_.size()));
      for (const auto& w : workers_) {
        start->add_worker_ids(w.id);
        start->add_worker_endpoints(w.endpoint);
      }
      for (const auto& s : schedulers_) {
        start->add_scheduler_ids(s.id);
        start->add_scheduler_endpoints(s.endpoint);
      }
      start->set_coordinator_id(transport_.id());
      start->set_engine(engine());
      SendTo((*group)[r].id, e, now);
    }
  }
}

void EngineJob::OnMessage(const proto::Envelope& e, Clock::time_point now) {
  if (done()) return;
  if (Slot(e.sender()) < 0) {
    log_->warn("job {}: ignoring {} from {}, not a member of the job", id_, BodyName(e),
               e.sender());
    return;
  }
  if (e.epoch() != incarnation_.epoch) {
    // A member declared dead that came back, still in an earlier run of the job: fenced.
    if (fenced_++ == 0 || fenced_ % 1000 == 0) {
      log_->warn("job {}: refused {} from {} of epoch {} (this run is epoch {}; {} refused)", id_,
                 BodyName(e), e.sender(), e.epoch(), incarnation_.epoch, fenced_);
    }
    return;
  }
  if (e.has_job_failed()) {  // in any phase, of either engine
    const proto::JobFailed& f = e.job_failed();
    if (!f.lost_peer().empty())
      return LoseMember(e.sender() + ": " + f.error(), now, f.lost_peer());
    return Fail(e.sender() + ": " + f.error(), now);
  }
  if (!Handle(e, now)) log_->warn("job {}: unexpected {} from {}", id_, BodyName(e), e.sender());
}

void EngineJob::OnTick(Clock::time_point now) {
  if (done()) return;
  const double quiet = std::chrono::duration<double>(now - last_progress_).count();
  const double limit = Loading() ? deadlines_.load_s : deadlines_.stall_s;
  if (quiet > limit) {
    Fail(fmt::format("no progress for {:.0f} s ({}); waiting for: {}", quiet,
                     Loading() ? "loading" : "running", Waiting()),
         now);
  }
}

void EngineJob::Cancel(Clock::time_point now) { Finish(proto::JOB_CANCELLED, "cancelled", now); }

void EngineJob::Fail(const std::string& cause, Clock::time_point now) {
  log_->error("job {} failed: {}", id_, cause);
  Finish(proto::JOB_FAILED, cause, now);
}

void EngineJob::LoseMember(const std::string& cause, Clock::time_point now,
                           const std::string& suspect) {
  if (done()) return;
  lost_member_ = true;
  if (Slot(suspect) >= 0) suspects_.push_back(suspect);
  // Failed for now; the coordinator may recover it (RECOVERING) and says so.
  log_->error("job {} (epoch {}) lost a member: {}", id_, incarnation_.epoch, cause);
  Finish(proto::JOB_FAILED, cause, now);
}

void EngineJob::Finish(proto::JobState state, const std::string& error, Clock::time_point now) {
  if (done()) return;
  ended_ = now;
  ran_ = !Loading();
  OnFinished(state, now);
  state_ = state;
  error_ = WireText(error);
  auto e = Out();
  e.mutable_job_end()->set_reason(state == proto::JOB_SUCCEEDED ? "finished" : error_);
  // Best effort: a member that cannot be reached is already gone.
  for (const auto* group : {&schedulers_, &workers_}) {
    for (const auto& m : *group) (void)transport_.Send(m.id, e);
  }
  log_->info("job {}: {} after {:.3f} s", id_, JobStateName(state), Elapsed(now));
}

bool EngineJob::HasResults() const { return state_ == proto::JOB_SUCCEEDED || (done() && ran_); }

void EngineJob::AddIncarnation(proto::JobInfo& info) const {
  info.set_epoch(incarnation_.epoch);
  for (const auto& r : incarnation_.recoveries) *info.add_recoveries() = r;
}

void EngineJob::AddOutcome(nlohmann::ordered_json& summary) const {
  summary["state"] = JobStateName(state_);
  summary["partial"] = state_ != proto::JOB_SUCCEEDED;
  summary["epoch"] = incarnation_.epoch;
  nlohmann::ordered_json recoveries = nlohmann::ordered_json::array();
  for (const auto& r : incarnation_.recoveries) recoveries.push_back(RecoveryJson(r));
  summary["recoveries"] = std::move(recoveries);
  summary["fenced_messages"] = fenced_;
}

nlohmann::ordered_json EngineJob::FlagsJson() const {
  nlohmann::ordered_json flags = nlohmann::ordered_json::object();
  const std::map<std::string, std::string> sorted(spec_.flags().begin(), spec_.flags().end());
  for (const auto& [k, v] : sorted) flags[k] = v;
  return flags;
}

}  // namespace strads
