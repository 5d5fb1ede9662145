#include "coordinator/static_job.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/protocol.h"
#include "engine/static_wire.h"

namespace strads {

StaticJob::StaticJob(Transport& transport, uint64_t id, proto::JobSpec spec, const StaticApp* app,
                     std::vector<JobMember> schedulers, std::vector<JobMember> workers, Logger log,
                     Clock::time_point now, JobDeadlines deadlines, Incarnation incarnation)
    : EngineJob(transport, id, std::move(spec), std::move(schedulers), std::move(workers),
                std::move(log), now, deadlines, std::move(incarnation)),
      app_(app),
      plan_(static_cast<uint32_t>(workers_.size()),
            std::max<uint32_t>(1, spec_.static_engine().blocks_per_worker())),
      passes_(app_->PassesPerIteration(spec_)),
      seen_(schedulers_.size() + workers_.size(), 0),
      next_part_(schedulers_.size() + workers_.size(), 0),
      aggregates_(app_->NumAggregates(spec_), 0.0),
      sub_round_seconds_(workers_.size(), 0.0) {
  trace_ = app_->TraceHeader() + "\n";
}

std::string StaticJob::Waiting() const {
  std::string out;
  auto add = [&](const std::string& who) { out += (out.empty() ? "" : ", ") + who; };
  for (size_t s = 0; s < schedulers_.size(); ++s) {
    if (!seen_[s]) add(schedulers_[s].id);
  }
  for (size_t w = 0; w < workers_.size(); ++w) {
    if (!seen_[schedulers_.size() + w]) add(workers_[w].id);
  }
  if (phase_ == Phase::kRunning) {
    out += fmt::format(" (iteration {}, pass {}, sub-round {})", iteration_, pass_, sub_round_);
  }
  return out;
}

void StaticJob::Start(Clock::time_point now) {
  log_->info("job {}: {} blocks, {} passes per iteration", id_, plan_.blocks(), passes_);
  EngineJob::Start(now);
}

bool StaticJob::Handle(const proto::Envelope& e, Clock::time_point now) {
  switch (e.body_case()) {
    case proto::Envelope::kReady:
      HandleReady(e, now);
      return true;
    case proto::Envelope::kSubRoundDone:
      HandleSubRoundDone(e, now);
      return true;
    case proto::Envelope::kPassDone:
      HandlePassDone(e, now);
      return true;
    case proto::Envelope::kStaticOutput:
      HandleOutput(e, now);
      return true;
    default:
      return false;
  }
}

void StaticJob::HandleReady(const proto::Envelope& e, Clock::time_point now) {
  const auto& r = e.ready();
  if (phase_ != Phase::kLoading) return;
  const size_t slot = size_t(Slot(e.sender()));
  if (seen_[slot]) return;
  seen_[slot] = 1;
  last_progress_ = now;
  if (Rank(e.sender(), proto::ROLE_WORKER) >= 0) {
    if (static_cast<size_t>(r.aggregates_size()) != aggregates_.size()) {
      return Fail(fmt::format("{} reported {} initial aggregates, expected {}", e.sender(),
                              r.aggregates_size(), aggregates_.size()),
                  now);
    }
    for (size_t a = 0; a < aggregates_.size(); ++a) aggregates_[a] += r.aggregates(int(a));
    rows_ += r.num_rows();
    total_work_ += r.nonzeros();
    items_ = std::max(items_, r.num_features());
  }
  if (++ready_ < schedulers_.size() + workers_.size()) return;

  auto begin = Out();
  auto* b = begin.mutable_begin();
  b->set_num_features(items_);
  for (const auto& sch : schedulers_) {
    b->add_scheduler_ids(sch.id);
    b->add_scheduler_endpoints(sch.endpoint);
  }
  Broadcast(workers_, begin, now);
  state_ = proto::JOB_RUNNING;
  phase_ = Phase::kRunning;
  log_->info("job {}: {} rows, {} items, {} work units loaded; {} blocks, {} passes per iteration",
             id_, rows_, items_, total_work_, plan_.blocks(), passes_);
  last_checkpoint_s_ = Elapsed(now);
  if (incarnation_.resume && app_->Checkpoints(spec_)) return Resume(now);
  StartPass(0, passes_ - 1, now);
}

void StaticJob::Resume(Clock::time_point now) {
  const proto::Checkpoint& cp = *incarnation_.resume;
  if (static_cast<size_t>(cp.aggregates_size()) != aggregates_.size()) {
    return Fail(fmt::format("the checkpoint has {} aggregates, the app {}", cp.aggregates_size(),
                            aggregates_.size()),
                now);
  }
  // In messages of at most kStaticChunkBytes; each member keeps its part and restores after the
  // last.
  auto chunks = ChunkPieces(cp.pieces());
  for (size_t i = 0; i < chunks.size() && !done(); ++i) {
    auto e = Out();
    auto* restore = e.mutable_static_restore();
    for (auto& piece : chunks[i]) *restore->add_pieces() = std::move(piece);
    restore->set_more(i + 1 < chunks.size());
    restore->set_part(static_cast<uint32_t>(i));
    Broadcast(schedulers_, e, now);
    Broadcast(workers_, e, now);
  }
  if (done()) return;
  aggregates_.assign(cp.aggregates().begin(), cp.aggregates().end());
  work_ = cp.updates();
  trace_ = cp.trace();
  iterations_done_ = iteration_ = cp.iteration();
  log_->info("job {}: resuming after iteration {} from the checkpoint", id_, cp.iteration());
  evaluated_ = false;
  StartPass(cp.iteration() + 1, 0, now);
}

bool StaticJob::CheckpointDue(Clock::time_point now) const {
  const double every = spec_.recovery().checkpoint_every_s();
  return every > 0 && app_->Checkpoints(spec_) && Elapsed(now) - last_checkpoint_s_ >= every;
}

bool StaticJob::NextPart(size_t slot, const proto::Envelope& e) {
  if (e.static_output().part() != next_part_[slot]) {
    log_->warn("job {}: dropped part {} of {}'s reply (expected part {})", id_,
               e.static_output().part(), e.sender(), next_part_[slot]);
    return false;
  }
  ++next_part_[slot];
  return true;
}

void StaticJob::AskEveryone(Phase phase, const proto::Envelope& e, Clock::time_point now) {
  phase_ = phase;
  std::fill(seen_.begin(), seen_.end(), 0);
  std::fill(next_part_.begin(), next_part_.end(), 0);
  outputs_ = 0;
  Broadcast(schedulers_, e, now);
  Broadcast(workers_, e, now);
}

void StaticJob::RequestState(Clock::time_point now) {
  pending_.Clear();
  state_requested_ = now;
  auto e = Out();
  e.mutable_state_request();
  AskEveryone(Phase::kCheckpoint, e, now);
}

void StaticJob::HandleState(const proto::Envelope& e, Clock::time_point now) {
  const size_t slot = size_t(Slot(e.sender()));
  if (seen_[slot] || !NextPart(slot, e)) return;
  last_progress_ = now;
  for (const auto& piece : e.static_output().pieces()) *pending_.add_pieces() = piece;
  if (e.static_output().more()) return;  // the member's next message goes on
  seen_[slot] = 1;
  if (++outputs_ < schedulers_.size() + workers_.size()) return;
  pending_.set_job_id(id_);
  pending_.set_epoch(epoch());
  pending_.set_seconds(Elapsed(now));
  pending_.set_trace(trace_);
  pending_.set_iteration(iterations_done_);
  pending_.set_progress(iterations_done_);
  pending_.set_updates(work_);
  pending_.mutable_aggregates()->Assign(aggregates_.begin(), aggregates_.end());
  checkpoint_ = std::move(pending_);
  ++checkpoints_collected_;
  pending_.Clear();
  last_checkpoint_s_ = Elapsed(now);
  log_->info("job {}: checkpoint after iteration {} ({} pieces, {} bytes) collected in {:.1f} ms",
             id_, iterations_done_, checkpoint_->pieces_size(), checkpoint_->ByteSizeLong(),
             std::chrono::duration<double, std::milli>(now - state_requested_).count());
  phase_ = Phase::kRunning;
  evaluated_ = false;
  StartPass(iteration_ + 1, 0, now);
}

void StaticJob::StartPass(uint64_t iteration, uint32_t pass, Clock::time_point now) {
  iteration_ = iteration;
  pass_ = pass;
  sub_round_ = 0;
  pass_dones_ = 0;
  sub_rounds_over_ = false;
  pass_metrics_.clear();
  std::fill(seen_.begin(), seen_.end(), 0);
  auto e = Out();
  e.mutable_pass_start()->set_iteration(iteration);
  e.mutable_pass_start()->set_pass(pass);
  Broadcast(schedulers_, e, now);
  StartSubRound(now);
}

void StaticJob::StartSubRound(Clock::time_point now) {
  sub_round_dones_ = 0;
  next_aggregates_ = aggregates_;
  std::fill(sub_round_seconds_.begin(), sub_round_seconds_.end(), 0.0);
  for (size_t w = 0; w < workers_.size(); ++w) seen_[schedulers_.size() + w] = 0;
  auto e = Out();
  auto* start = e.mutable_sub_round_start();
  start->set_iteration(iteration_);
  start->set_pass(pass_);
  start->set_sub_round(sub_round_);
  start->mutable_aggregates()->Assign(aggregates_.begin(), aggregates_.end());
  Broadcast(workers_, e, now);
}

void StaticJob::HandleSubRoundDone(const proto::Envelope& e, Clock::time_point now) {
  const auto& d = e.sub_round_done();
  const int w = Rank(e.sender(), proto::ROLE_WORKER);
  if (phase_ != Phase::kRunning || w < 0 || sub_rounds_over_ || d.iteration() != iteration_ ||
      d.pass() != pass_ || d.sub_round() != sub_round_) {
    return;
  }
  const size_t slot = schedulers_.size() + size_t(w);
  if (seen_[slot]) return;
  seen_[slot] = 1;
  last_progress_ = now;
  if (static_cast<size_t>(d.delta_size()) != aggregates_.size()) {
    return Fail(fmt::format("{} sent {} aggregate changes, expected {}", e.sender(), d.delta_size(),
                            aggregates_.size()),
                now);
  }
  const uint32_t expected_block = plan_.Block(sub_round_, static_cast<uint32_t>(w));
  if (d.block() != expected_block) {
    return Fail(fmt::format("{} worked on block {} in sub-round {}, the plan says {}", e.sender(),
                            d.block(), sub_round_, expected_block),
                now);
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) next_aggregates_[a] += d.delta(int(a));
  for (const auto& [name, value] : d.metrics()) pass_metrics_[name] += value;
  sub_round_seconds_[w] = d.seconds();
  if (!Evaluation()) {
    work_ += d.work();
    compute_seconds_ += d.seconds();
  }
  sub_rounds_csv_ += fmt::format("{},{},{},{},{},{:.6f},{}\n", iteration_, pass_, sub_round_, w,
                                 d.block(), d.seconds(), d.work());
  if (++sub_round_dones_ < workers_.size()) return;

  aggregates_.swap(next_aggregates_);  // next_aggregates_ is refilled by the next StartSubRound
  ++sub_rounds_done_;
  last_sub_round_seconds_ = sub_round_seconds_;
  double max = 0, sum = 0;
  for (double t : sub_round_seconds_) {
    max = std::max(max, t);
    sum += t;
  }
  max_sum_ += max;
  mean_sum_ += sum / static_cast<double>(workers_.size());
  if (sub_round_ + 1 < plan_.sub_rounds()) {
    ++sub_round_;
    return StartSubRound(now);
  }
  sub_rounds_over_ = true;
  MaybeEndPass(now);
}

void StaticJob::HandlePassDone(const proto::Envelope& e, Clock::time_point now) {
  const auto& d = e.pass_done();
  const int s = Rank(e.sender(), proto::ROLE_SCHEDULER);
  if (phase_ != Phase::kRunning || s < 0 || d.iteration() != iteration_ || d.pass() != pass_ ||
      seen_[s]) {
    return;
  }
  seen_[s] = 1;
  last_progress_ = now;
  for (const auto& [name, value] : d.metrics()) pass_metrics_[name] += value;
  ++pass_dones_;
  MaybeEndPass(now);
}

void StaticJob::MaybeEndPass(Clock::time_point now) {
  if (!sub_rounds_over_ || pass_dones_ < schedulers_.size()) return;
  if (Evaluation()) {
    metrics_ = pass_metrics_;
    evaluated_ = true;
    const double objective = app_->Objective(metrics_);
    objective_ = objective;
    trace_ += app_->TraceRow(Elapsed(now), iteration_, work_, metrics_) + "\n";
    note_ = app_->ProgressNote(metrics_);
    stopped_early_ = iteration_ < spec_.static_engine().iterations() &&
                     app_->StopsAfter(spec_, iteration_, metrics_);
    log_->info("job {}: iteration {}: {} {:.10g}{}{}", id_, iteration_, app_->ObjectiveName(),
               objective, note_.empty() ? "" : ", " + note_,
               stopped_early_ ? " (the app stops the job here)" : "");
    if (!std::isfinite(objective)) {
      const std::string advice = app_->DivergenceAdvice(spec_);
      return Fail(fmt::format("diverged: the {} is {} after iteration {}{}", app_->ObjectiveName(),
                              objective, iteration_, advice.empty() ? "" : " (" + advice + ")"),
                  now);
    }
  }
  const bool evaluates = EvaluatesIn(iteration_, spec_.static_engine().iterations(),
                                     spec_.static_engine().eval_every());
  const uint32_t end_pass = evaluates ? passes_ : passes_ - 1;
  if (!Evaluation() && pass_ + 1 < end_pass) return StartPass(iteration_, pass_ + 1, now);
  EndIteration(now);
}

void StaticJob::EndIteration(Clock::time_point now) {
  iterations_done_ = iteration_;
  if (mean_sum_ > 0) imbalance_ = max_sum_ / mean_sum_;
  max_sum_ = mean_sum_ = 0;
  const bool last =
      iteration_ >= spec_.static_engine().iterations() || LimitReached(now) || stopped_early_;
  if (last) {
    // Every run ends with a measured state.
    if (!evaluated_) return StartPass(iteration_, passes_ - 1, now);
    return RequestModel(now);
  }
  if (CheckpointDue(now)) return RequestState(now);
  evaluated_ = false;
  StartPass(iteration_ + 1, 0, now);
}

bool StaticJob::LimitReached(Clock::time_point now) const {
  return spec_.max_seconds() > 0 && Elapsed(now) >= spec_.max_seconds();
}

void StaticJob::RequestModel(Clock::time_point now) {
  pieces_.clear();
  auto e = Out();
  e.mutable_model_request();
  AskEveryone(Phase::kModel, e, now);
}

void StaticJob::HandleOutput(const proto::Envelope& e, Clock::time_point now) {
  if (e.static_output().state()) {
    if (phase_ == Phase::kCheckpoint) HandleState(e, now);
    return;
  }
  if (phase_ != Phase::kModel) return;
  const size_t slot = size_t(Slot(e.sender()));
  if (seen_[slot] || !NextPart(slot, e)) return;
  last_progress_ = now;
  for (const auto& piece : e.static_output().pieces()) pieces_.push_back(piece);
  if (e.static_output().more()) return;  // the member's next message goes on
  seen_[slot] = 1;
  if (++outputs_ < schedulers_.size() + workers_.size()) return;
  auto files = app_->Assemble(spec_, pieces_);
  pieces_.clear();
  if (!files.ok()) return Fail("cannot assemble the results: " + files.status().message(), now);
  files_ = std::move(files).value();
  Finish(proto::JOB_SUCCEEDED, "", now);
}

void StaticJob::OnFinished(proto::JobState state, Clock::time_point now) {
  phase_ = Phase::kDone;
  log_->info("job {}: {} iterations, {} sub-rounds", id_, iterations_done_, sub_rounds_done_);
}

proto::JobInfo StaticJob::Info(Clock::time_point now) const {
  proto::JobInfo info;
  info.set_job_id(id_);
  info.set_app(spec_.app());
  info.set_state(state_);
  info.set_round(sub_rounds_done_);
  info.set_updates(work_);
  info.set_objective(objective_.value_or(0.0));
  const double seconds = Elapsed(now);
  info.set_seconds(seconds);
  info.set_updates_per_s(seconds > 0 ? static_cast<double>(work_) / seconds : 0.0);
  info.set_converged(state_ == proto::JOB_SUCCEEDED);
  info.set_error(error_);
  *info.mutable_spec() = spec_;
  info.set_schedulers(static_cast<uint32_t>(schedulers_.size()));
  info.set_workers(static_cast<uint32_t>(workers_.size()));
  info.set_violation(-1);
  info.set_iteration(iterations_done_);
  info.set_imbalance(imbalance_);
  info.set_objective_name(app_->ObjectiveName());
  info.set_note(note_);
  info.set_stopped_early(stopped_early_);
  info.set_work_unit(app_->WorkUnit());
  info.mutable_worker_seconds()->Assign(last_sub_round_seconds_.begin(),
                                        last_sub_round_seconds_.end());
  AddIncarnation(info);
  return info;
}

std::vector<proto::ResultFile> StaticJob::ResultFiles() const {
  if (!HasResults()) return {};
  std::vector<proto::ResultFile> files = files_;  // the model files, once succeeded
  auto add = [&](const std::string& name, std::string content) {
    proto::ResultFile f;
    f.set_name(name);
    f.set_content(std::move(content));
    files.push_back(std::move(f));
  };
  add("trace.csv", trace_);
  add("subrounds.csv", sub_rounds_csv_);

  nlohmann::ordered_json summary;
  summary["app"] = spec_.app();
  summary["job_id"] = id_;
  AddOutcome(summary);
  summary[app_->ObjectiveName()] = objective_.value_or(0.0);
  summary["iterations"] = iterations_done_;
  summary["stopped_early"] = stopped_early_;
  const double seconds = Duration();
  summary["seconds"] = seconds;
  summary["work_units"] = work_;
  summary["work_per_second"] = seconds > 0 ? static_cast<double>(work_) / seconds : 0.0;
  summary["work_per_compute_second"] =
      compute_seconds_ > 0 ? static_cast<double>(work_) / compute_seconds_ : 0.0;
  summary["imbalance"] = imbalance_;
  summary["schedulers"] = schedulers_.size();
  summary["workers"] = workers_.size();
  summary["blocks"] = plan_.blocks();
  summary["balance"] =
      spec_.static_engine().balance().empty() ? "work" : spec_.static_engine().balance();
  summary["data"] = spec_.data_path();
  app_->Summarize(metrics_, summary);
  summary["flags"] = FlagsJson();
  add("summary.json",
      summary.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  return files;
}

}  // namespace strads
