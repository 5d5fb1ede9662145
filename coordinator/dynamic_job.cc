#include "coordinator/dynamic_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/protocol.h"
#include "coordinator/dynamic_result.h"
#include "coordinator/share_merge.h"
#include "engine/dynamic_spec.h"
#include "engine/step_length.h"
#include "engine/vector_delta.h"

namespace strads {
namespace {

// A repeated double field as the span the app's batch methods take.
std::span<const double> Values(const google::protobuf::RepeatedField<double>& field) {
  return {field.data(), static_cast<size_t>(field.size())};
}

}  // namespace

DynamicJob::DynamicJob(Transport& transport, uint64_t id, proto::JobSpec spec,
                       const DynamicApp* app, std::vector<JobMember> schedulers,
                       std::vector<JobMember> workers, Logger log, Clock::time_point now,
                       JobDeadlines deadlines, Incarnation incarnation, Stopwatch stopwatch)
    : EngineJob(transport, id, std::move(spec), std::move(schedulers), std::move(workers),
                std::move(log), now, deadlines, std::move(incarnation)),
      app_(app),
      stopwatch_(std::move(stopwatch)),
      loaded_(schedulers_.size() + workers_.size()),
      counted_(workers_.size()),
      ranges_(schedulers_.size()),
      range_owners_(schedulers_.size()),
      exhausted_(schedulers_.size(), 0),
      tree_(spec_.dynamic().aggregation() == proto::AGGREGATION_TREE) {
  if (const auto& resume = incarnation_.resume) {
    // The trace so far goes on; the rows of this run say its epoch.
    if (!resume->trace().empty()) trace_.Continue(resume->trace());
  }
}

std::string DynamicJob::Waiting() const {
  std::vector<std::string> who;
  auto missing = [&](const AnswerSet& answers, const std::vector<JobMember>& members,
                     size_t offset) {
    for (size_t r = 0; r < members.size(); ++r) {
      if (!answers.Has(offset + r)) who.push_back(members[r].id);
    }
  };
  switch (phase_) {
    case Phase::kRestoring:
      for (size_t w = 0; w < workers_.size(); ++w) {
        if (!restored_.Has(w)) who.push_back(workers_[w].id + " (restore)");
      }
      break;
    case Phase::kLoading:
      if (!counts_forwarded_) {  // everyone waits for them
        for (size_t w = 0; w < workers_.size(); ++w) {
          if (!counted_.Has(w)) who.push_back(workers_[w].id + " (column counts)");
        }
        break;
      }
      missing(loaded_, schedulers_, 0);
      missing(loaded_, workers_, schedulers_.size());
      break;
    case Phase::kChecking:
      for (size_t s = 0; s < schedulers_.size(); ++s) {
        if (!tally_.answered_scheduler(s)) who.push_back(schedulers_[s].id);
      }
      for (size_t w = 0; w < PartialsPerRound(); ++w) {
        if (!tally_.answered_worker(w))
          who.push_back(workers_[w].id + (tree_ ? " (the tree)" : ""));
      }
      break;
    case Phase::kModel:
      missing(model_slices_, schedulers_, 0);
      break;
    case Phase::kRunning: {
      auto it = rounds_.find(next_commit_);
      if (it == rounds_.end() || !it->second.chord) {
        who.push_back(schedulers_[next_commit_ % schedulers_.size()].id + " (chord " +
                      std::to_string(next_commit_) + ")");
      }
      // A tree's root sends once it has every worker's share: it names the round's wait.
      for (size_t w = 0; w < (tree_ ? 1 : workers_.size()); ++w) {
        if (it == rounds_.end() || it->second.seen.empty() || !it->second.seen[w]) {
          who.push_back(workers_[w].id + (tree_ ? " (the tree's partials " : " (partials ") +
                        std::to_string(next_commit_) + ")");
        }
      }
      break;
    }
    case Phase::kDone:
      break;
  }
  std::string out;
  for (const auto& w : who) out += (out.empty() ? "" : ", ") + w;
  return out;
}

bool DynamicJob::Handle(const proto::Envelope& e, Clock::time_point now) {
  bool handled = false;
  Timed(now, [&] { handled = Dispatch(e, now); });
  return handled;
}

template <class Body>
void DynamicJob::Timed(Clock::time_point now, Body&& body) {
  // The time since the last mark went to what the job waited for; what `body` takes is the
  // coordinator's own (two readings of the stopwatch). The solve starts with the handling of the
  // message that ends the first check.
  const auto started = stopwatch_();
  const bool solving = waits_.state() != WaitLedger::Wait::kNone;
  if (solving) waits_.Mark(now, WaitLedger::Wait::kCoordinator);
  body();
  const WaitLedger::Wait next = WaitState();
  // Not solving before or after: the handling's time is no state's that is reported, and a mark
  // at now + its time would run ahead of the next message's `now` where that is not the
  // stopwatch's clock.
  if (!solving) {
    if (next == WaitLedger::Wait::kNone) return waits_.Mark(now, next);
    waits_.Mark(now, WaitLedger::Wait::kCoordinator);
  }
  waits_.Mark(now + (stopwatch_() - started), next);
}

bool DynamicJob::Dispatch(const proto::Envelope& e, Clock::time_point now) {
  switch (e.body_case()) {
    case proto::Envelope::kReady:
      HandleReady(e, now);
      return true;
    case proto::Envelope::kColumnCounts:
      HandleColumnCounts(e, now);
      return true;
    case proto::Envelope::kChord:
      HandleChord(e, now);
      return true;
    case proto::Envelope::kColumnPartials:
      HandleColumnPartials(e, now);
      return true;
    case proto::Envelope::kLossReport:
      HandleLossReport(e, now);
      return true;
    case proto::Envelope::kCheckReport:
      HandleCheckReport(e, now);
      return true;
    case proto::Envelope::kModelSlice:
      HandleModelSlice(e, now);
      return true;
    default:
      return false;
  }
}

WaitLedger::Wait DynamicJob::WaitState() const {
  using Wait = WaitLedger::Wait;
  // The solve starts once the first check (which holds the start) is done.
  if (done() || !start_checked_) return Wait::kNone;
  switch (phase_) {
    case Phase::kChecking:
      return tally_.workers_done() ? Wait::kCheckSchedulers : Wait::kCheckWorkers;
    case Phase::kRunning: {
      if (next_commit_ == next_issue_) return Wait::kOther;
      // Rounds commit in order: the oldest one out decides. Without its chord the job waits on
      // its scheduler (a worker starts a round only after the commit before it).
      const auto oldest = rounds_.find(next_commit_);
      if (oldest != rounds_.end() && oldest->second.chord) return Wait::kWorkers;
      return Wait::kChord;
    }
    default:
      return Wait::kNone;
  }
}

void DynamicJob::OnTick(Clock::time_point now) {
  EngineJob::OnTick(now);
  if (done()) return waits_.Mark(now, WaitLedger::Wait::kNone);
  Timed(now, [&] {
    if (phase_ == Phase::kRunning && LimitReached(now)) MaybeStartCheck(now);
    Trace(now, false);
  });
}

void DynamicJob::HandleColumnCounts(const proto::Envelope& e, Clock::time_point now) {
  // Each worker's counts of its part of the file, once per load; their sum goes to every
  // scheduler and worker (who wait for it to load).
  if (phase_ != Phase::kLoading || counts_forwarded_) return;
  const int rank = Rank(e.sender(), proto::ROLE_WORKER);
  if (rank < 0) return Fail("column counts from " + e.sender() + ", which is not a worker", now);
  if (!counted_.Take(static_cast<size_t>(rank))) return;
  last_progress_ = now;
  const proto::ColumnCounts& part = e.column_counts();
  if (static_cast<size_t>(part.counts_size()) > count_sum_.size()) {
    count_sum_.resize(part.counts_size(), 0);
  }
  for (int j = 0; j < part.counts_size(); ++j) count_sum_[j] += part.counts(j);
  rows_counted_ += part.rows();
  if (!counted_.complete()) return;
  if (count_sum_.empty()) return Fail("the workers counted no column in " + spec_.data_path(), now);
  counts_forwarded_ = true;
  auto out = Out();
  out.mutable_column_counts()->set_rows(rows_counted_);
  out.mutable_column_counts()->mutable_counts()->Assign(count_sum_.begin(), count_sum_.end());
  std::vector<uint64_t>().swap(count_sum_);
  Broadcast(schedulers_, out, now);
  Broadcast(workers_, std::move(out), now);
}

void DynamicJob::HandleReady(const proto::Envelope& e, Clock::time_point now) {
  const auto& r = e.ready();
  if (phase_ != Phase::kLoading) return;
  const size_t slot = size_t(Slot(e.sender()));
  if (!loaded_.Take(slot)) return;
  last_progress_ = now;
  if (slot < schedulers_.size()) {
    ranges_[slot] = {r.first_param(), r.end_param()};
    range_owners_[slot] = r.owners();
    grouped_ranges_ += r.owners().grouped();
    chord_size_ = std::max(chord_size_, r.chord_size());
    candidates_ = std::max(candidates_, r.candidates());
    num_features_ = std::max(num_features_, r.num_features());
  } else {
    // Every worker holds every row.
    num_rows_ = std::max(num_rows_, r.num_rows());
    if (slot == schedulers_.size()) {
      if (Status st = replica_.Reset(r.shared(), r.num_rows(), app_->CentresShared(spec_));
          !st.ok()) {
        return Fail(e.sender() + ": " + st.message(), now);
      }
    }
  }
  if (!loaded_.complete()) return;

  // The schedulers' ranges must tile [0, J) in rank order.
  uint64_t expect = 0;
  for (size_t s = 0; s < ranges_.size(); ++s) {
    if (ranges_[s].first != expect) {
      return Fail(fmt::format("scheduler {} owns [{}, {}), expected it to start at {}",
                              schedulers_[s].id, ranges_[s].first, ranges_[s].second, expect),
                  now);
    }
    expect = ranges_[s].second;
  }
  if (expect != num_features_) {
    return Fail(fmt::format("schedulers cover {} of {} parameters", expect, num_features_), now);
  }
  // The time rule is for the priorities a check refreshes: the other schedules draw without them
  // (a check only tells them when to stop), so they check every J updates, as before.
  const proto::Schedule schedule = spec_.dynamic().schedule();
  pacer_ = CheckPacer(
      spec_.dynamic().check_every(), num_features_,
      /*by_time=*/schedule == proto::SCHEDULE_DYNAMIC || schedule == proto::SCHEDULE_UNSPECIFIED);
  auto begin = Out();
  auto* b = begin.mutable_begin();
  b->set_num_features(num_features_);
  for (const auto& range : ranges_) b->add_partition_starts(range.first);
  b->add_partition_starts(num_features_);
  // A range's grouping (worker of each parameter) goes to the workers, who keep their columns.
  for (proto::RangeOwners& owners : range_owners_) b->add_owners()->Swap(&owners);
  for (const auto& s : schedulers_) {
    b->add_scheduler_ids(s.id);
    b->add_scheduler_endpoints(s.endpoint);
  }
  Broadcast(workers_, begin, now);
  committed_.assign(num_features_, 0.0);
  state_ = proto::JOB_RUNNING;
  if (incarnation_.resume) return StartRestore(now);
  log_->info("job {}: {} rows x {} parameters loaded; first optimality check", id_, num_rows_,
             num_features_);
  MaybeStartCheck(now);
}

void DynamicJob::StartRestore(Clock::time_point now) {
  const proto::Checkpoint& cp = *incarnation_.resume;
  if (cp.ids_size() != cp.values_size()) return Fail("malformed checkpoint", now);
  for (uint64_t j : cp.ids()) {
    if (j >= num_features_) {
      return Fail(
          fmt::format("the checkpoint holds parameter {} but the data has {}", j, num_features_),
          now);
    }
  }
  lambda_max_ = cp.lambda_max();
  updates_ = cp.updates();  // the restore's check starts the count from here
  checks_ = cp.checks();
  // committed_ holds zeros: HandleReady sized it just before.
  for (int k = 0; k < cp.ids_size(); ++k) committed_[cp.ids(k)] = cp.values(k);
  penalty_ = app_->PenaltySum(Values(cp.values()), spec_);
  log_->info(
      "job {}: {} rows x {} parameters loaded; restoring {} nonzero parameters of the "
      "checkpoint after {} updates",
      id_, num_rows_, num_features_, cp.ids_size(), cp.updates());
  phase_ = Phase::kRestoring;
  next_issue_ = 1;  // round 0 is the restore
  restore_shares_.assign(workers_.size(), {});
  restored_.Reset(workers_.size());
  auto e = Out(0);
  e.mutable_restore()->mutable_ids()->CopyFrom(cp.ids());
  e.mutable_restore()->mutable_values()->CopyFrom(cp.values());
  Broadcast(workers_, e, now);
}

void DynamicJob::HandleRestoreShare(const proto::Envelope& e, Clock::time_point now) {
  const int rank = Rank(e.sender(), proto::ROLE_WORKER);
  if (rank < 0 || e.round() != 0 || !restored_.Take(static_cast<size_t>(rank))) return;
  const auto& p = e.column_partials();
  if (p.ids_size() != p.values_size() || !CheckDelta(p.change(), num_rows_).ok()) {
    return Fail("malformed restore share from " + e.sender(), now);
  }
  last_progress_ = now;
  restore_shares_[rank] = p;
  if (!restored_.complete()) return;
  // Every restored parameter is owned by exactly one worker.
  DeltaAccumulator sum(num_rows_);
  size_t restored = 0;
  for (const auto& share : restore_shares_) {
    (void)sum.Add(share.change());  // checked on arrival
    restored += static_cast<size_t>(share.ids_size());
  }
  if (restored != static_cast<size_t>(incarnation_.resume->ids_size())) {
    return Fail(fmt::format("restore: the workers own {} of the {} checkpointed parameters",
                            restored, incarnation_.resume->ids_size()),
                now);
  }
  restore_shares_.clear();
  auto shared = Out(0);
  proto::VectorDelta& change = *shared.mutable_shared_update()->mutable_change();
  sum.Take(change);
  replica_.Apply(change);
  SendSharedUpdate(std::move(shared), now);
  FinishRestore(now);
}

void DynamicJob::FinishRestore(Clock::time_point now) {
  // Each scheduler gets its range's values (and priorities from them, refreshed at the check).
  const proto::Checkpoint& cp = *incarnation_.resume;
  for (size_t s = 0; s < schedulers_.size(); ++s) {
    auto e = Out(0);
    auto* commit = e.mutable_commit();
    commit->set_scheduler_rank(static_cast<uint32_t>(s));
    for (int k = 0; k < cp.ids_size(); ++k) {
      if (cp.ids(k) < ranges_[s].first || cp.ids(k) >= ranges_[s].second) continue;
      commit->add_ids(cp.ids(k));
      commit->add_values(cp.values(k));
      commit->add_deltas(cp.values(k));
    }
    SendTo(schedulers_[s].id, e, now);
  }
  if (done()) return;
  next_commit_ = next_issue_ = 1;
  phase_ = Phase::kRunning;
  WantCheck(now);
  log_->info("job {}: checkpoint restored; optimality check", id_);
  MaybeStartCheck(now);
}

std::optional<proto::Checkpoint> DynamicJob::TakeCheckpoint(Clock::time_point now) {
  if (!lambda_max_) return std::nullopt;
  proto::Checkpoint cp;
  cp.set_job_id(id_);
  cp.set_epoch(epoch());
  cp.set_seconds(Elapsed(now));
  cp.set_trace(trace_.Text());
  cp.set_round(next_commit_);
  cp.set_updates(updates_);
  cp.set_progress(updates_);
  cp.set_lambda_max(*lambda_max_);
  cp.set_checks(checks_);
  for (uint64_t j = 0; j < committed_.size(); ++j) {
    if (committed_[j] == 0.0) continue;
    cp.add_ids(j);
    cp.add_values(committed_[j]);
  }
  return cp;
}

bool DynamicJob::LimitReached(Clock::time_point now) const {
  if (spec_.dynamic().max_updates() && updates_ >= spec_.dynamic().max_updates()) return true;
  if (spec_.max_seconds() > 0 && Elapsed(now) >= spec_.max_seconds()) return true;
  return false;
}

void DynamicJob::Issue(Clock::time_point now, std::optional<proto::Envelope> commit) {
  const size_t schedulers = schedulers_.size();
  // The held commit goes out before anything else this scheduler is sent, as it always did.
  auto send_commit = [&] {
    if (!commit) return;
    SendTo(schedulers_[commit->round() % schedulers].id, std::move(*commit), now);
    commit.reset();
  };
  const uint64_t depth = std::max<uint32_t>(1, spec_.dynamic().pipeline_depth());
  // While the next commit makes a check due, one round a scheduler: a second round of the same
  // scheduler would run on the priorities that check is about to refresh. (One round in all
  // failed a job whose first scheduler had nothing to schedule, e.g. --eta 0, the others never
  // asked before the check that found no progress.)
  const uint64_t ahead =
      pacer_.DueAfterNextRound() ? std::min<uint64_t>(depth, schedulers_.size()) : depth;
  while (phase_ == Phase::kRunning && !check_wanted_ && next_issue_ < next_commit_ + ahead) {
    if (pacer_.Due(updates_, now) || LimitReached(now)) {
      WantCheck(now);
      break;
    }
    const uint64_t t = next_issue_++;
    log_->trace("job {}: request chord {} from {}", id_, t, schedulers_[t % schedulers].id);
    if (commit && commit->round() % schedulers == t % schedulers) {
      commit->mutable_commit()->set_requests_chord(true);  // the request rides on the commit
      commit->mutable_commit()->set_chord_round(t);
      send_commit();
      continue;
    }
    send_commit();
    auto e = Out(t);
    e.mutable_chord_request();
    SendTo(schedulers_[t % schedulers].id, std::move(e), now);
  }
  send_commit();
  MaybeStartCheck(now);
}

void DynamicJob::HandleChord(const proto::Envelope& e, Clock::time_point now) {
  const auto& c = e.chord();
  const uint64_t t = e.round();
  // While checking: the round asked for with the check, kept for the check's end.
  const bool checking = phase_ == Phase::kChecking;
  if ((phase_ != Phase::kRunning && !checking) || t < next_commit_ || t >= next_issue_) return;
  const int rank = Rank(e.sender(), proto::ROLE_SCHEDULER);
  if (rank < 0 || size_t(rank) != t % schedulers_.size() || rounds_[t].chord) {
    return Fail(fmt::format("chord {} from {}, which does not own that round", t, e.sender()), now);
  }
  if (c.ids_size() != c.values_size()) {
    return Fail("malformed chord from " + e.sender(), now);
  }
  for (uint64_t j : c.ids()) {
    if (j < ranges_[rank].first || j >= ranges_[rank].second) {
      return Fail(fmt::format("chord {} from {} holds parameter {} outside its range [{}, {})", t,
                              e.sender(), j, ranges_[rank].first, ranges_[rank].second),
                  now);
    }
  }
  last_progress_ = now;
  log_->trace("job {}: chord {} from {} ({} ids)", id_, e.round(), e.sender(), c.ids_size());
  Round& round = rounds_[e.round()];
  round.chord = c;
  if (checking) return;  // FinishCheck takes it up
  OnChordIn(rank, round, now);
  TryCommit(now);
}

void DynamicJob::OnChordIn(int rank, Round& round, Clock::time_point now) {
  round.chord_in = now;
  if (round.chord->exhausted()) {  // nothing left to schedule: measure
    exhausted_[rank] = 1;
    WantCheck(now);
  }
}

DynamicJob::Round* DynamicJob::AcceptPartials(const proto::Envelope& e, int rank,
                                              Clock::time_point now) {
  // While checking: partials of the round asked for with the check, committed after it.
  if ((phase_ != Phase::kRunning && phase_ != Phase::kChecking) || rank < 0 ||
      e.round() < next_commit_ || e.round() >= next_issue_) {
    return nullptr;
  }
  Round& round = rounds_[e.round()];
  if (round.seen.empty()) round.seen.assign(workers_.size(), 0);
  if (round.seen[rank]) return nullptr;
  round.seen[rank] = 1;
  ++round.partials;
  last_progress_ = now;
  log_->trace("job {}: partials {} from {} ({} of {})", id_, e.round(), e.sender(), round.partials,
              workers_.size());
  return &round;
}

void DynamicJob::HandleColumnPartials(const proto::Envelope& e, Clock::time_point now) {
  const int rank = Rank(e.sender(), proto::ROLE_WORKER);
  if (phase_ == Phase::kRestoring) return HandleRestoreShare(e, now);
  if (tree_ && rank > 0) {
    return Fail(fmt::format("partials of round {} from {}, which is not the aggregation tree's "
                            "root (--aggregation tree: one build and one spec on every member?)",
                            e.round(), e.sender()),
                now);
  }
  Round* round = AcceptPartials(e, rank, now);
  if (!round) return;
  const auto& p = e.column_partials();
  if (p.ids_size() != p.values_size() || CheckDelta(p.change(), num_rows_).ok() == false) {
    return Fail(fmt::format("malformed column partials of round {} from {}", e.round(), e.sender()),
                now);
  }
  if (round->shares.empty()) round->shares.resize(PartialsPerRound());
  round->shares[rank] = p;
  TryCommit(now);
}

void DynamicJob::TryCommit(Clock::time_point now) {
  // The last commit is held back for Issue, which may add the next chord request to it.
  std::optional<proto::Envelope> held;
  while (!done() && phase_ == Phase::kRunning) {
    auto it = rounds_.find(next_commit_);
    if (it == rounds_.end() || !it->second.chord || it->second.partials < PartialsPerRound()) {
      break;
    }
    auto e = Out(next_commit_);
    e.mutable_commit()->set_scheduler_rank(it->second.chord->scheduler_rank());
    // On failure the job is done and sends nothing more: `held` is rightly dropped.
    if (!CommitColumns(it->second, e, now)) return;
    CorrectRoundWaits(it->second, now);
    const auto& commit = e.commit();
    penalty_ += app_->PenaltySum(Values(commit.values()), spec_) -
                app_->PenaltySum(Values(it->second.chord->values()), spec_);
    for (int k = 0; k < commit.ids_size(); ++k) {
      committed_[commit.ids(k)] = commit.values(k);  // HandleChord checked the id is in [0, J)
    }
    updates_ += static_cast<uint64_t>(commit.ids_size());
    if (held) SendTo(schedulers_[held->round() % schedulers_.size()].id, std::move(*held), now);
    held = std::move(e);
    rounds_.erase(it);
    ++next_commit_;
  }
  // The requests go out before the trace's row: its objective is a pass over the replica, and the
  // members wait for nothing in it.
  Issue(now, std::move(held));
  Trace(now, false);
}

bool DynamicJob::CommitColumns(Round& round, proto::Envelope& e, Clock::time_point now) {
  const proto::Chord& chord = *round.chord;
  if (!sum_) sum_.emplace(num_rows_);
  DeltaAccumulator& sum = *sum_;
  auto merged = tree_ ? MergeTreeShare(next_commit_, chord, round.shares[0],
                                       static_cast<uint32_t>(workers_.size()), sum)
                      : MergeShares(next_commit_, chord, round.shares, sum);
  if (!merged.ok()) {
    Fail(merged.status().message(), now);
    return false;
  }
  std::vector<double>& deltas = merged->deltas;
  const uint32_t moved = merged->moved;
  auto shared = Out(next_commit_);
  proto::VectorDelta& change = *shared.mutable_shared_update()->mutable_change();
  sum.Take(change);
  // One worker's share is exact coordinate descent: taken whole. Shares of several workers may
  // interfere: the step along their sum is line-searched (engine/step_length.h).
  // Never below 1/moved: b + d/P is the mean of the P points b + d_w, each no worse than b, so by
  // convexity that step never increases the objective, and near the optimum, where the slopes are
  // at rounding level, the search can mistake a descent direction for a flat one (a 2-worker run
  // on the diabetes data stalled at alpha ~ 1e-4 without this floor).
  // A stale-lane share (the dual pipeline) was computed against a replica one round behind: no
  // share of it need decrease the objective alone, so its step is searched on [0, 1], even for
  // one worker.
  const double alpha =
      chord.stale_lane()
          ? (moved > 0 ? CombinedStepLength(chord, deltas, change) : 1.0)
          : (moved > 1 ? std::max(CombinedStepLength(chord, deltas, change), 1.0 / moved) : 1.0);
  if (alpha != 1.0) {
    for (double& d : deltas) d *= alpha;
    for (double& v : *change.mutable_values()) v *= alpha;
    ++damped_rounds_;
  }
  stale_rounds_ += chord.stale_lane();
  step_sum_ += alpha;
  auto* commit = e.mutable_commit();
  commit->mutable_ids()->Reserve(chord.ids_size());
  commit->mutable_values()->Reserve(chord.ids_size());
  commit->mutable_deltas()->Reserve(chord.ids_size());
  for (int k = 0; k < chord.ids_size(); ++k) {
    commit->add_ids(chord.ids(k));
    commit->add_values(chord.values(k) + deltas[k]);
    commit->add_deltas(deltas[k]);
  }
  replica_.Apply(change);
  SendSharedUpdate(std::move(shared), now);
  return true;
}

void DynamicJob::SendSharedUpdate(proto::Envelope&& e, Clock::time_point now) {
  if (tree_) return SendTo(workers_[0].id, std::move(e), now);  // down the tree from the root
  Broadcast(workers_, std::move(e), now);
}

void DynamicJob::CorrectRoundWaits(const Round& round, Clock::time_point now) {
  using Wait = WaitLedger::Wait;
  double compute = 0;
  for (const proto::ColumnPartials& share : round.shares) {
    if (std::isfinite(share.compute_seconds()))
      compute = std::max(compute, share.compute_seconds());
  }
  const double chord = waits_.Seconds(Wait::kChord) - chord_s_at_commit_;
  if (round.chord_in) {
    const double seen = std::chrono::duration<double>(now - *round.chord_in).count();
    waits_.Move(Wait::kChord, Wait::kWorkers, std::min(chord, compute - seen));
  }
  chord_s_at_commit_ = waits_.Seconds(Wait::kChord);
}

double DynamicJob::CombinedStepLength(const proto::Chord& chord, const std::vector<double>& deltas,
                                      const proto::VectorDelta& change) const {
  return StepLength([&](double alpha, int side) {
    return replica_.LossSlope(change, alpha, *app_) +
           app_->PenaltySlopeAlong(Values(chord.values()), deltas, alpha, side, spec_);
  });
}

void DynamicJob::WantCheck(Clock::time_point now) {
  check_wanted_ = true;
  pacer_.Wanted(now);
}

void DynamicJob::MaybeStartCheck(Clock::time_point now) {
  if (done()) return;
  if (phase_ == Phase::kLoading) {
    pacer_.Wanted(now);  // the first check, at beta = 0
  } else if (phase_ == Phase::kRunning) {
    if (!check_wanted_ && !LimitReached(now)) return;
    WantCheck(now);
    if (next_commit_ < next_issue_) return;  // drain first
  } else {
    return;
  }
  phase_ = Phase::kChecking;
  check_wanted_ = false;
  auto e = Out(next_commit_);
  e.mutable_check_request();
  // A tree's root forwards it down the tree, behind the shared updates it forwarded.
  if (tree_) {
    SendTo(workers_[0].id, e, now);
  } else {
    Broadcast(workers_, e, now);
  }
  // Behind the commits, so they evaluate with every value. The round after the check is asked
  // for with it (CheckRequest.requests_chord) unless a limit makes this check the last: its
  // chord and partials may come before the check's end, and wait for it (HandleChord, TryCommit).
  const bool ask = !LimitReached(now);
  const size_t asked = next_issue_ % schedulers_.size();
  for (size_t s = 0; s < schedulers_.size(); ++s) {
    auto request = e;
    if (ask && s == asked) {
      request.mutable_check_request()->set_requests_chord(true);
      request.mutable_check_request()->set_chord_round(next_issue_);
    }
    SendTo(schedulers_[s].id, std::move(request), now);
  }
  if (ask) {
    log_->trace("job {}: request chord {} from {} with the check", id_, next_issue_,
                schedulers_[asked].id);
    ++next_issue_;
  }
  // The loss is that of the shared vector, which this replica holds bit for bit as every worker
  // does (the margin apps sum it with the function a worker's ExactLoss uses; Lasso's sum may
  // differ from a worker's in the last bits). Summed here while the workers compute their
  // gradients, it is off their path. (No answer can come before this returns.)
  tally_.Begin(PartialsPerRound(), schedulers_.size(), replica_.Loss(*app_));
}

void DynamicJob::HandleLossReport(const proto::Envelope& e, Clock::time_point now) {
  const int rank = Rank(e.sender(), proto::ROLE_WORKER);
  if (phase_ != Phase::kChecking || rank < 0 || e.round() != next_commit_) return;
  if (tree_ && rank > 0) {
    return Fail(
        fmt::format("a loss report from {}, which is not the aggregation tree's root", e.sender()),
        now);
  }
  if (!tally_.AddWorker(static_cast<size_t>(rank), e.loss_report())) return;
  last_progress_ = now;
  FinishCheck(now);
}

void DynamicJob::HandleCheckReport(const proto::Envelope& e, Clock::time_point now) {
  const int rank = Rank(e.sender(), proto::ROLE_SCHEDULER);
  if (phase_ != Phase::kChecking || rank < 0 || e.round() != next_commit_) return;
  if (!tally_.AddScheduler(static_cast<size_t>(rank), e.check_report())) return;
  last_progress_ = now;
  FinishCheck(now);
}

void DynamicJob::FinishCheck(Clock::time_point now) {
  if (phase_ != Phase::kChecking || !tally_.complete()) return;
  if (!lambda_max_) lambda_max_ = tally_.max_abs_gradient();  // the first check is at beta = 0
  penalty_ = tally_.penalty();
  objective_ = tally_.objective();
  violation_ = *lambda_max_ > 0 ? tally_.max_violation() / *lambda_max_ : 0.0;
  converged_ = violation_ <= spec_.dynamic().tolerance();
  // The first check of a run holds the members' start (Begin: models, groupings), many times a
  // check's time, and with its time as the measure the first rounds ran on the first check's
  // priorities. (A resumed run's first check comes after the restore, which followed the start:
  // it is measured.)
  const bool measured = start_checked_ || incarnation_.resume;
  pacer_.Done(updates_, now, measured);
  // The row of this state written when the check started (Trace) keeps its time and takes this
  // check's objective (the same loss; the penalty summed by the schedulers rather than the
  // running sum).
  const bool written = start_checked_ && trace_.last_updates() == updates_;
  start_checked_ = true;
  ++checks_;
  // At info level at most once a second (and for the last check): paced checks can come tens of
  // times a second.
  const bool last = converged_ || LimitReached(now);
  const bool loud = last || !check_logged_at_ || now - *check_logged_at_ >= std::chrono::seconds(1);
  if (loud) check_logged_at_ = now;
  log_->log(loud ? spdlog::level::info : spdlog::level::debug,
            "job {}: check after {} updates: objective {:.10g}, violation {:.3g}, {} nonzeros "
            "({:.3g} ms)",
            id_, updates_, objective_, violation_, tally_.nonzeros(),
            1e3 * pacer_.last_check_seconds());
  if (written) {
    AddTraceRow(last_row_at_, objective_);
  } else {
    Trace(now, true);
  }
  if (!std::isfinite(objective_) || !std::isfinite(violation_)) {
    return Fail(fmt::format("diverged: the objective is {} after {} updates (parallel updates of "
                            "dependent parameters; try a smaller --chord-size or --rho, or the "
                            "dynamic schedule)",
                            objective_, updates_),
                now);
  }
  if (converged_ || LimitReached(now)) return RequestModel(now);
  // A check without progress since the last one comes only from an exhausted chord (the pacer
  // never asks for one without updates; a restore's check is the first of its run), which asks
  // for it at once, before the other schedulers were asked (at depth 1 one round is out at a
  // time). They may still have parameters to move (e.g. --eta 0, where a scheduler whose
  // parameters all satisfy the optimality conditions has no positive priority). So such a check
  // fails the job only once every scheduler has said it has nothing.
  const bool all_exhausted = std::ranges::all_of(exhausted_, [](uint8_t e) { return e != 0; });
  const bool stalled = checks_ > 1 && updates_ == updates_at_previous_check_;
  if (!stalled) std::ranges::fill(exhausted_, 0);
  if (stalled && all_exhausted) {
    return Fail(fmt::format("no parameter could be scheduled although the optimality violation "
                            "is {:.3g} (> --tolerance {:.3g})",
                            violation_, spec_.dynamic().tolerance()),
                now);
  }
  updates_at_previous_check_ = updates_;
  phase_ = Phase::kRunning;
  // The round asked for with the check (the only one out): its chord may be in already.
  if (const auto it = rounds_.find(next_commit_); it != rounds_.end() && it->second.chord) {
    OnChordIn(static_cast<int>(next_commit_ % schedulers_.size()), it->second, now);
  }
  TryCommit(now);  // commits it if complete, and issues the next rounds
}

void DynamicJob::RequestModel(Clock::time_point now) {
  phase_ = Phase::kModel;
  model_slices_.Reset(schedulers_.size());
  model_.clear();
  auto e = Out(next_commit_);
  e.mutable_model_request();
  Broadcast(schedulers_, e, now);
}

void DynamicJob::HandleModelSlice(const proto::Envelope& e, Clock::time_point now) {
  const int rank = Rank(e.sender(), proto::ROLE_SCHEDULER);
  if (phase_ != Phase::kModel || rank < 0 || !model_slices_.Take(static_cast<size_t>(rank))) return;
  last_progress_ = now;
  const auto& m = e.model_slice();
  if (m.ids_size() != m.values_size()) return Fail("malformed model from " + e.sender(), now);
  for (int k = 0; k < m.ids_size(); ++k) model_.emplace_back(m.ids(k), m.values(k));
  if (!model_slices_.complete()) return;
  std::sort(model_.begin(), model_.end());
  Finish(proto::JOB_SUCCEEDED, "", now);
}

void DynamicJob::OnFinished(proto::JobState state, Clock::time_point now) {
  if (state == proto::JOB_SUCCEEDED) {
    Trace(now, true);
  } else if (phase_ != Phase::kLoading && trace_.last_updates() != updates_) {
    // The coefficients of an unfinished job are its committed values, which can be past the last
    // row (a job cancelled during a check: its commit wrote no estimated row): one more, estimated.
    AddTraceRow(now, ApproxObjective());
  }
  phase_ = Phase::kDone;
  waits_.Mark(now, WaitLedger::Wait::kNone);
  using Wait = WaitLedger::Wait;
  const double solving = waits_.Solving();
  auto ms = [&](Wait w) { return 1e3 * waits_.Seconds(w); };
  log_->info(
      "job {}: {} updates in {} rounds; of {:.1f} ms solving, waited {:.1f} ms on chords, "
      "{:.1f} on the workers' shares, {:.1f} on checks ({:.1f} of it the schedulers'), "
      "{:.1f} in the coordinator ({:.1f} ms moved from chords to the workers by their compute "
      "times); the schedulers' share {:.1f} %",
      id_, updates_, next_commit_, 1e3 * solving, ms(Wait::kChord), ms(Wait::kWorkers),
      ms(Wait::kCheckWorkers) + ms(Wait::kCheckSchedulers), ms(Wait::kCheckSchedulers),
      ms(Wait::kCoordinator), 1e3 * waits_.moved(), 100 * waits_.SchedulersShare());
}

double DynamicJob::ApproxObjective() const {
  // The loss of the coordinator's replica, current with every commit.
  return replica_.empty() ? penalty_ : replica_.Loss(*app_) + penalty_;
}

void DynamicJob::Trace(Clock::time_point now, bool force) {
  if (phase_ == Phase::kLoading) return;
  // A timed row for the state of the last row would replace that row (TraceLog) with a later
  // time, and the trace would say the state came later than it did: a row was also added when a
  // round's first partials arrived, before its commit.
  if (!force && trace_.last_updates() == updates_) return;
  // A check (not the first) has just started at this state, and summed the loss of the replica
  // (MaybeStartCheck), which no commit changes while it runs. The row costs nothing, whatever
  // the rate, and it is the state's time: the job knew the objective at the commit. Its check's
  // row, the same loss, came one check later (the workers' gradients and the schedulers'
  // evaluation); FinishCheck keeps this row's time and gives it the check's objective.
  if (!force && phase_ == Phase::kChecking && start_checked_) {
    return AddTraceRow(now, tally_.loss() + penalty_);
  }
  const double every = spec_.dynamic().trace_every_s() > 0 ? spec_.dynamic().trace_every_s() : 1.0;
  if (!force && now - last_row_at_ < std::chrono::duration<double>(every)) return;
  // A check is running or coming for this state (or a later one, once the rounds in flight
  // commit): its row will carry the exact objective, and the estimate (a pass over the replica)
  // would take a core from the workers while they compute the next shares. (The check's row
  // replaced the estimate's anyway, TraceLog.)
  if (!force && (check_wanted_ || phase_ == Phase::kChecking)) return;
  // At a check the objective is exact; between checks it is the replica's loss plus the running
  // penalty of the committed values. A row's time is when it is written: for a check's row, when
  // the check measured the state, not the commit that reached it: the trace says when the job
  // knew, as a tool that stops says when it stopped.
  AddTraceRow(now, force ? objective_ : ApproxObjective());
}

void DynamicJob::AddTraceRow(Clock::time_point now, double objective) {
  last_row_at_ = now;
  trace_.Add(updates_,
             fmt::format("{:.6f},{},{},{:.17g},{},{}", Elapsed(now), next_commit_, updates_,
                         objective, ScheduleName(spec_.dynamic().schedule()), epoch()));
}

proto::JobInfo DynamicJob::Info(Clock::time_point now) const {
  proto::JobInfo info;
  info.set_job_id(id_);
  info.set_app(spec_.app());
  info.set_state(state_);
  info.set_round(next_commit_);
  info.set_updates(updates_);
  info.set_objective(phase_ == Phase::kRunning ? ApproxObjective() : objective_);
  const double seconds = Elapsed(now);
  info.set_seconds(seconds);
  info.set_updates_per_s(seconds > 0 ? static_cast<double>(updates_) / seconds : 0.0);
  info.set_converged(converged_);
  info.set_error(error_);
  *info.mutable_spec() = spec_;
  info.set_schedulers(static_cast<uint32_t>(schedulers_.size()));
  info.set_workers(static_cast<uint32_t>(workers_.size()));
  info.set_violation(violation_);
  AddIncarnation(info);
  return info;
}

std::vector<proto::ResultFile> DynamicJob::ResultFiles() const {
  std::vector<proto::ResultFile> files;
  if (!HasResults()) return files;
  auto add = [&](const std::string& name, std::string content) {
    proto::ResultFile f;
    f.set_name(name);
    f.set_content(std::move(content));
    files.push_back(std::move(f));
  };
  // An unfinished job has no model from the schedulers: its coefficients are the committed values.
  const bool partial = state_ != proto::JOB_SUCCEEDED;
  std::vector<std::pair<uint64_t, double>> model = model_;
  if (partial) {
    model.clear();
    for (uint64_t j = 0; j < committed_.size(); ++j) {
      if (committed_[j] != 0) model.emplace_back(j, committed_[j]);
    }
  }
  add("coefficients.tsv", CoefficientsTsv(model));
  add("trace.csv", trace_.Text());

  nlohmann::ordered_json summary;
  summary["app"] = spec_.app();
  summary["job_id"] = id_;
  AddOutcome(summary);
  summary["objective"] = objective_;
  summary["converged"] = converged_;
  summary["violation"] = violation_;
  summary["lambda_max"] = lambda_max_.value_or(0.0);
  // The intercept a centring job fitted: the mean of the shared vector (lasso: of y - X beta).
  if (app_->CentresShared(spec_) && !replica_.empty()) summary["intercept"] = replica_.Mean();
  summary["rounds"] = next_commit_;
  summary["updates"] = updates_;
  // Rounds whose combined step was shortened (engine/step_length.h), and the mean step.
  summary["damped_rounds"] = damped_rounds_;
  if (spec_.dynamic().dual_pipeline()) summary["stale_lane_rounds"] = stale_rounds_;
  summary["mean_step_length"] = next_commit_ ? step_sum_ / double(next_commit_) : 1.0;
  summary["seconds"] = Duration();
  // What the solve waited for (coordinator/wait_ledger.h): how much of it the schedulers held.
  summary["waits"] = waits_.Json();
  summary["nonzeros"] = model.size();
  summary["rows"] = num_rows_;
  summary["features"] = num_features_;
  summary["schedulers"] = schedulers_.size();
  summary["workers"] = workers_.size();
  summary["data"] = spec_.data_path();
  app_->Summarize(tally_.metrics(), summary);
  // The settings the job ran with, the app's and the engine's defaults resolved (the flags below
  // say 0 for "by default").
  DynamicRunSettings run;
  run.chord_size = chord_size_;
  run.candidates = candidates_;
  run.inner_passes =
      SharePassesOf(spec_.dynamic(), static_cast<uint32_t>(workers_.size())).max_passes;
  run.grouped_ranges = grouped_ranges_;
  if (!pacer_.timed()) run.check_every = pacer_.every();
  run.checks = checks_;
  summary["engine"] = DynamicEngineJson(spec_.dynamic(), run);
  summary["flags"] = FlagsJson();
  add("summary.json",
      summary.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  return files;
}

}  // namespace strads
