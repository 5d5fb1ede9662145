#include "worker/dynamic_worker_job.h"

#include <algorithm>
#include <chrono>
#include <span>

#include <fmt/format.h>

#include "common/column_selection.h"
#include "common/data_loader.h"
#include "common/event_loop.h"
#include "common/partitioner.h"
#include "common/protocol.h"
#include "engine/dynamic_spec.h"
#include "engine/feature_grouping.h"

namespace strads {
Result<CountedColumns> DynamicWorkerJob::Count(const DataSource& source, uint32_t rank,
                                               uint32_t workers) {
  try {
    CountedColumns out;
    STRADS_ASSIGN_OR_RETURN(auto counts, CountColumnEntriesPart(source, rank, workers, &out.rows));
    out.entries = std::move(counts);
    return out;
  } catch (const std::exception& e) {
    return Status::Internal(source.path + ": cannot count the columns: " + e.what());
  }
}

Result<DynamicWorkerJob::Loaded> DynamicWorkerJob::LoadColumns(const DataSource& source,
                                                               const proto::JobSpec& spec,
                                                               uint32_t rank, uint32_t schedulers,
                                                               uint32_t workers,
                                                               const CountedColumns& counted) {
  try {
    // The columns' entry counts give the blocks (the same on every member), then only this
    // worker's columns are kept, so it never holds the whole matrix. A range that its scheduler
    // may group (the same test from the same counts on both sides) is kept whole until Begin says
    // which of its columns are this worker's.
    const std::vector<uint64_t>& counts = counted.entries;
    Loaded out;
    out.owners = ColumnOwners(counts, schedulers, workers);
    std::vector<ColumnRange> kept;
    out.active_ranges.assign(schedulers, 0);
    for (uint32_t s = 0; s < schedulers; ++s) {
      const ColumnRange r = out.owners.RangeOf(s);
      uint64_t nonzeros = 0;
      for (uint64_t j = r.begin; j < r.end && j < counts.size(); ++j) nonzeros += counts[j];
      out.active_ranges[s] = ActiveWorkerOf(s, workers) == rank &&
                             RangeHasActiveWorker(spec.dynamic(), nonzeros, r.end - r.begin);
      if (out.active_ranges[s]) {
        kept.push_back(r);  // every column: any non-zero parameter of the range is this worker's
      } else if (MayGroupRange(spec.dynamic(), workers, counted.rows, counts, r)) {
        kept.push_back(r);
        out.whole_ranges.push_back(s);
      } else {
        kept.push_back(out.owners.SpanOf(s, rank));
      }
    }
    auto data = strads::LoadColumns(source, kept, counts, counted.rows);
    if (!data.ok()) return WithWorkersCounts(data.status());
    out.data = std::move(data).value();
    return out;
  } catch (const std::exception& e) {
    return Status::Internal(spec.data_path() + ": cannot load the columns: " + e.what());
  }
}

DynamicWorkerJob::DynamicWorkerJob(const JobContext& context, const DynamicApp* app)
    : DynamicMemberJob(context, app) {
  ConnectPeers(context.start.scheduler_ids(), context.start.scheduler_endpoints());
  if (spec_.dynamic().aggregation() == proto::AGGREGATION_TREE) {
    // Its tree neighbours, connected while the data loads (as the schedulers are).
    tree_.emplace(num_workers_, spec_.dynamic().fan_in());
    const auto& ids = context.start.worker_ids();
    const auto& endpoints = context.start.worker_endpoints();
    auto connect = [&](uint32_t rank) -> std::string {
      if (rank >= static_cast<uint32_t>(ids.size()) ||
          rank >= static_cast<uint32_t>(endpoints.size())) {
        errors_.Report(fmt::format("the job names {} workers' endpoints for {} workers",
                                   std::min(ids.size(), endpoints.size()), num_workers_));
        return "";
      }
      if (Status st = transport_.Connect(ids.Get(rank), endpoints.Get(rank)); !st.ok()) {
        log_->error("job {}: {}", id_, st.message());
      }
      return ids.Get(rank);
    };
    if (const auto parent = tree_->Parent(rank_)) parent_id_ = connect(*parent);
    for (uint32_t child : tree_->Children(rank_)) child_ids_.push_back(connect(child));
  }
  log_->info("job {}: loading columns {}/{} of {}", id_, rank_, num_workers_, spec_.data_path());
  if (source_.ok()) {
    count_.Start(Count, source_.value(), rank_, num_workers_);
  } else {
    errors_.Report(source_.status().message());
  }
}

DynamicWorkerJob::~DynamicWorkerJob() = default;

proto::JobSpec DynamicWorkerJob::ModelSpec() const {
  proto::JobSpec spec = spec_;
  spec.set_workers(num_workers_);  // the job's, where the submitted spec may say 0 (= all)
  return spec;
}

void DynamicWorkerJob::OnTick() {
  if (auto counted = count_.Poll()) FinishCounting(std::move(*counted));
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
}

void DynamicWorkerJob::FinishCounting(Result<CountedColumns> counted) {
  if (!counted.ok()) return errors_.Report(counted.status().message());
  log_->info("job {}: counted the columns of part {}/{} of the file ({} rows)", id_, rank_,
             num_workers_, counted->rows);
  auto e = JobEnvelope();
  e.mutable_column_counts()->set_rows(counted->rows);
  e.mutable_column_counts()->mutable_counts()->Assign(counted->entries.begin(),
                                                      counted->entries.end());
  (void)session_.SendToCoordinator(std::move(e));
  counted_ = true;
  MaybeLoadColumns();
}

void DynamicWorkerJob::HandleColumnCounts(const proto::Envelope& e) {
  const proto::ColumnCounts& c = e.column_counts();
  if (totals_ || load_.running() || columns_) return LogUnexpected(e);
  totals_ = CountedColumns{{c.counts().begin(), c.counts().end()}, c.rows()};
  MaybeLoadColumns();
}

void DynamicWorkerJob::MaybeLoadColumns() {
  if (!counted_ || !totals_) return;
  load_.Start(LoadColumns, source_.value(), spec_, rank_, num_schedulers_, num_workers_,
              std::move(*totals_));
}

void DynamicWorkerJob::FinishLoading(Result<Loaded> loaded) {
  if (!loaded.ok()) return errors_.Report(loaded.status().message());
  auto reply = JobEnvelope();
  auto* ready = reply.mutable_ready();
  Dataset& shard = loaded->data;
  active_ranges_ = std::move(loaded->active_ranges);
  if (!loaded->whole_ranges.empty()) {
    // Ranges a scheduler may group are held whole until Begin; the model starts on this worker's
    // blocks (what it keeps where no range is grouped): at the start every replica is the same
    // whatever the columns. (Moves and swaps: Eigen's sparse matrices copy on assignment.)
    owners_ = std::move(loaded->owners);
    whole_ranges_ = std::move(loaded->whole_ranges);
    whole_ = std::make_unique<Dataset>(std::move(shard));
    shard = KeepColumns(*whole_, owners_.Mask(rank_));
  } else {
    owners_ = std::move(loaded->owners);
  }
  ready->set_num_rows(static_cast<uint64_t>(shard.x.rows()));
  ready->set_num_features(static_cast<uint64_t>(shard.x.cols()));
  ready->set_nonzeros(static_cast<uint64_t>(shard.x.nonZeros()));
  // A scheduler without a filter has no columns and needs their norms; one with a filter ignores
  // them. Whether a scheduler filters is its own decision (rho_if_dense: by its partition's
  // density), so the norms always go, once.
  norms_unsent_ = true;
  auto model = app_->MakeColumnModel(std::move(shard), ModelSpec());
  if (!model.ok()) return errors_.Report(model.status().message());
  columns_ = std::move(model).value();
  change_ = std::make_unique<DeltaAccumulator>(columns_->shared_size());
  if (tree_) combiner_ = std::make_unique<ShareCombiner>(*tree_, rank_, columns_->shared_size());
  // The coordinator keeps a replica too (the objective, the step length); every replica starts
  // the same.
  if (rank_ == 0) columns_->ExportShared(*ready->mutable_shared());
  log_->info("job {}: columns loaded ({} rows, {} nonzeros)", id_, ready->num_rows(),
             ready->nonzeros());
  (void)session_.SendToCoordinator(reply);
}

void DynamicWorkerJob::Handle(const proto::Envelope& e) {
  switch (e.body_case()) {
    case proto::Envelope::kBegin:
      return HandleBegin(e);
    case proto::Envelope::kChord:
      pending_[e.round()] = e.chord();
      return ComputeEligibleChords();
    case proto::Envelope::kSharedUpdate:
      return HandleSharedUpdate(e);
    case proto::Envelope::kColumnPartials:
      return HandleChildShare(e);
    case proto::Envelope::kLossReport:
      return HandleChildReport(e);
    case proto::Envelope::kRestore:
      return HandleRestore(e);
    case proto::Envelope::kCheckRequest:
      return HandleCheck(e);
    default:
      LogUnexpected(e);
  }
}

Status DynamicWorkerJob::AdoptGroupings(const proto::Begin& begin) {
  if (begin.owners_size() != 0 && begin.owners_size() != static_cast<int>(num_schedulers_)) {
    return Status::InvalidArgument(fmt::format("Begin carries the owners of {} ranges for {}",
                                               begin.owners_size(), num_schedulers_));
  }
  uint32_t grouped = 0;
  for (int s = 0; s < begin.owners_size(); ++s) {
    const proto::RangeOwners& owners = begin.owners(s);
    if (!owners.grouped()) continue;
    const auto rank = static_cast<uint32_t>(s);
    if (std::find(whole_ranges_.begin(), whole_ranges_.end(), rank) == whole_ranges_.end()) {
      return Status::FailedPrecondition(fmt::format(
          "scheduler {} grouped its parameters, but this worker did not keep their columns "
          "(its grouping budget or --group-rho differs: one build and one spec on every member?)",
          s));
    }
    std::vector<uint32_t> workers(owners.worker().begin(), owners.worker().end());
    if (Status st = owners_.Group(rank, std::move(workers)); !st.ok()) {
      return Status::InvalidArgument("scheduler " + std::to_string(s) +
                                     "'s grouping: " + st.message());
    }
    ++grouped;
  }
  // This worker's columns are now known: the model starts over on them (nothing has moved it
  // since Ready), and the whole ranges are let go, before the new model: never three copies.
  std::unique_ptr<Dataset> whole = std::move(whole_);
  whole_ranges_.clear();
  if (grouped > 0) {
    const std::vector<char> mask = owners_.Mask(rank_);
    Dataset mine = KeepColumns(*whole, mask);
    whole.reset();
    const auto nonzeros = static_cast<uint64_t>(mine.x.nonZeros());
    columns_.reset();
    STRADS_ASSIGN_OR_RETURN(auto model, app_->MakeColumnModel(std::move(mine), ModelSpec()));
    columns_ = std::move(model);
    log_->info(
        "job {}: {} of {} parameter ranges grouped by their schedulers: {} columns ({} "
        "nonzeros) are this worker's",
        id_, grouped, num_schedulers_, std::count(mask.begin(), mask.end(), char{1}), nonzeros);
  }
  return Status::Ok();
}

void DynamicWorkerJob::HandleBegin(const proto::Envelope& e) {
  const auto& begin = e.begin();
  partition_starts_.assign(begin.partition_starts().begin(), begin.partition_starts().end());
  // The schedulers' ranges must be those this worker's columns follow.
  if (partition_starts_ != owners_.scheduler_starts()) {
    return errors_.Report("the schedulers' parameter ranges disagree with the columns");
  }
  if (Status st = AdoptGroupings(begin); !st.ok()) return errors_.Report(st.message());
  scheduler_ids_.assign(begin.scheduler_ids().begin(), begin.scheduler_ids().end());
  for (int s = 0; s < begin.scheduler_ids_size() && s < begin.scheduler_endpoints_size(); ++s) {
    if (Status st = transport_.Connect(begin.scheduler_ids(s), begin.scheduler_endpoints(s));
        !st.ok()) {
      log_->error("job {}: {}", id_, st.message());
    }
  }
  if (deferred_check_) {
    const proto::Envelope check = std::move(*deferred_check_);
    deferred_check_.reset();
    HandleCheck(check);
  }
}

void DynamicWorkerJob::ComputeEligibleChords() {
  // A share is exact coordinate descent against the replica, so round t waits for every shared
  // update before it; a depth D > 1 lets the chords come ahead (requested while earlier rounds
  // run, which hides the request's round trip). The dual pipeline's stale lane alone may go one
  // round early: computed while the round before it is committed, against a replica without that
  // round (the coordinator line-searches its step).
  for (auto it = pending_.begin(); it != pending_.end();) {
    const uint64_t t = it->first;
    const uint64_t early = it->second.stale_lane() ? 1 : 0;
    // And every commit the chord's values reflect.
    if (t > applied_ + early || applied_ < it->second.min_applied()) return;
    ComputeColumnShare(t, it->second);
    it = pending_.erase(it);
  }
}

void DynamicWorkerJob::ComputeColumnShare(uint64_t round, const proto::Chord& chord) {
  // The ids this worker owns in the chord's scheduler range.
  const uint32_t s = chord.scheduler_rank();
  if (s >= owners_.schedulers() || chord.values_size() != chord.ids_size()) {
    return errors_.Report("malformed chord of round " + std::to_string(round));
  }
  const ColumnRange range = owners_.RangeOf(s);
  // An assigned share (--active-worker) is all this worker's, whoever owns the columns (it holds
  // every column); otherwise the ids it owns.
  const bool assigned = chord.assigned();
  const bool holds_range = s < active_ranges_.size() && active_ranges_[s];
  std::vector<uint64_t> ids;
  std::vector<double> values;
  for (int k = 0; k < chord.ids_size(); ++k) {
    const uint64_t j = chord.ids(k);
    if (j < range.begin || j >= range.end) continue;
    if (owners_.WorkerIn(s, j) != rank_) {
      if (!assigned) continue;
      // Only the range's active worker holds columns it does not own.
      if (!holds_range) {
        return errors_.Report(fmt::format(
            "round {}: the chord assigns parameter {} to worker {}, which does not hold its column",
            round, j, rank_));
      }
    }
    ids.push_back(j);
    values.push_back(chord.values(k));
  }
  const Clock::time_point started = Clock::now();
  std::vector<double> updated;
  updated.reserve(ids.size());
  columns_->Update(ids, values, updated, *change_);
  auto e = JobEnvelope(round);
  auto* partials = e.mutable_column_partials();
  partials->mutable_ids()->Assign(ids.begin(), ids.end());
  partials->mutable_values()->Assign(updated.begin(), updated.end());
  change_->Take(*partials->mutable_change());
  partials->set_applied_through(applied_);  // no loss: the coordinator sums its replica's
  partials->set_compute_seconds(std::chrono::duration<double>(Clock::now() - started).count());
  if (!combiner_) return (void)session_.SendToCoordinator(std::move(e));
  if (auto up = combiner_->AddOwn(round, std::move(*partials))) SendShareUp(round, std::move(*up));
}

void DynamicWorkerJob::HandleChildShare(const proto::Envelope& e) {
  if (!combiner_) return LogUnexpected(e);
  const auto it = std::find(child_ids_.begin(), child_ids_.end(), e.sender());
  if (it == child_ids_.end()) {
    return errors_.Report(
        fmt::format("a share of round {} from {}, which is not a child of this "
                    "worker in the aggregation tree",
                    e.round(), e.sender()));
  }
  const uint32_t child = combiner_->children()[static_cast<size_t>(it - child_ids_.begin())];
  auto up = combiner_->AddChild(e.round(), child, e.column_partials());
  if (!up.ok()) return errors_.Report(up.status().message());
  if (*up) SendShareUp(e.round(), std::move(**up));
}

void DynamicWorkerJob::SendShareUp(uint64_t round, proto::ColumnPartials share) {
  auto e = JobEnvelope(round);
  *e.mutable_column_partials() = std::move(share);
  if (parent_id_.empty()) return (void)session_.SendToCoordinator(std::move(e));
  if (Status st = transport_.SendOwned(parent_id_, std::move(e)); !st.ok()) {
    errors_.ReportLostPeer(parent_id_, "cannot send the share of round " + std::to_string(round) +
                                           " to " + parent_id_ + ": " + st.message());
  }
}

void DynamicWorkerJob::HandleRestore(const proto::Envelope& e) {
  const auto& restore = e.restore();
  if (e.round() != 0 || applied_ != 0 || restore.ids_size() != restore.values_size()) {
    return errors_.Report("malformed restore of round " + std::to_string(e.round()));
  }
  // The checkpointed parameters this worker owns.
  std::vector<uint64_t> ids;
  std::vector<double> values;
  for (int k = 0; k < restore.ids_size(); ++k) {
    const uint64_t j = restore.ids(k);
    if (owners_.Worker(j) != rank_) continue;
    ids.push_back(j);
    values.push_back(restore.values(k));
  }
  columns_->Shift(ids, values, *change_);
  auto out = JobEnvelope(0);
  auto* partials = out.mutable_column_partials();
  partials->mutable_ids()->Assign(ids.begin(), ids.end());
  partials->mutable_values()->Assign(values.begin(), values.end());
  change_->Take(*partials->mutable_change());
  partials->set_applied_through(applied_);
  log_->info("job {}: restored {} parameters of the checkpoint", id_, ids.size());
  (void)session_.SendToCoordinator(std::move(out));
}

bool DynamicWorkerJob::InOrder(const proto::Envelope& e) {
  if (e.round() == applied_) return true;
  errors_.Report(BodyName(e) + " of round " + std::to_string(e.round()) +
                 " arrived while expecting round " + std::to_string(applied_));
  return false;
}

void DynamicWorkerJob::HandleSharedUpdate(const proto::Envelope& e) {
  if (!InOrder(e)) return;
  const auto& change = e.shared_update().change();
  if (Status st = CheckDelta(change, columns_->shared_size()); !st.ok()) {
    return errors_.Report("shared update of round " + std::to_string(e.round()) + ": " +
                          st.message());
  }
  // Down the tree first: the children's next shares wait for it, not for this replica.
  if (!ForwardDown(e)) return;
  columns_->ApplyShared(change);
  ++applied_;
  ComputeEligibleChords();
}

bool DynamicWorkerJob::ForwardDown(const proto::Envelope& e) {
  for (const std::string& child : child_ids_) {
    proto::Envelope down = e;
    down.set_sender(transport_.id());
    if (Status st = transport_.SendOwned(child, std::move(down)); !st.ok()) {
      errors_.ReportLostPeer(child, "cannot send the " + BodyName(e) + " of round " +
                                        std::to_string(e.round()) + " to " + child + ": " +
                                        st.message());
      return false;
    }
  }
  return true;
}

void DynamicWorkerJob::HandleCheck(const proto::Envelope& e) {
  // In a tree the request comes from the parent, Begin from the coordinator: the request can come
  // first (the first check's), and waits for it.
  if (tree_ && partition_starts_.empty()) {
    deferred_check_ = e;
    return;
  }
  if (e.round() != applied_) {
    return errors_.Report("check at round " + std::to_string(e.round()) + " but " +
                          std::to_string(applied_) + " rounds applied");
  }
  if (scheduler_ids_.size() + 1 != partition_starts_.size()) {
    return errors_.Report("check before the parameter partition is known");
  }
  if (!ForwardDown(e)) return;  // a tree: the children check meanwhile
  const auto& starts = partition_starts_;
  std::vector<double> slice;
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    // Only the span of the partition that holds this worker's parameters (its gradient, and its
    // columns' norms, are 0 elsewhere).
    const ColumnRange span = owners_.SpanOf(static_cast<uint32_t>(s), rank_);
    const uint64_t first = std::clamp<uint64_t>(span.begin, starts[s], starts[s + 1]);
    const uint64_t end = std::clamp<uint64_t>(span.end, first, starts[s + 1]);
    slice.assign(end - first, 0.0);
    columns_->Gradient(first, end, slice);
    auto g = JobEnvelope(e.round());
    g.mutable_gradient_slice()->set_worker_rank(rank_);
    g.mutable_gradient_slice()->set_first(first - starts[s]);
    g.mutable_gradient_slice()->mutable_values()->Assign(slice.begin(), slice.end());
    if (norms_unsent_) {
      auto* norms = g.mutable_gradient_slice()->mutable_sq_norms();
      norms->Reserve(static_cast<int>(end - first));
      for (uint64_t j = first; j < end; ++j) norms->Add(columns_->SquaredNorm(j));
    }
    if (Status st = transport_.SendOwned(scheduler_ids_[s], std::move(g)); !st.ok()) {
      return errors_.ReportLostPeer(
          scheduler_ids_[s], "cannot send gradient to " + scheduler_ids_[s] + ": " + st.message());
    }
  }
  norms_unsent_ = false;  // sent
  auto loss = JobEnvelope(e.round());
  loss.mutable_loss_report();
  // Every replica holds the whole loss and metrics; the coordinator sums the loss on its own
  // replica, and rank 0 reports the metrics for all.
  if (rank_ == 0) {
    std::map<std::string, double> metrics;
    columns_->Metrics(metrics);
    for (const auto& [name, value] : metrics)
      (*loss.mutable_loss_report()->mutable_metrics())[name] = value;
  }
  if (!tree_) return (void)session_.SendToCoordinator(loss);
  AddReport(e.round(), loss.loss_report());
}

void DynamicWorkerJob::HandleChildReport(const proto::Envelope& e) {
  if (!tree_) return LogUnexpected(e);
  if (std::find(child_ids_.begin(), child_ids_.end(), e.sender()) == child_ids_.end()) {
    return errors_.Report(
        fmt::format("a loss report of round {} from {}, which is not a child "
                    "of this worker in the aggregation tree",
                    e.round(), e.sender()));
  }
  AddReport(e.round(), e.loss_report());
}

void DynamicWorkerJob::AddReport(uint64_t round, const proto::LossReport& report) {
  ReportsUp& up = reports_up_[round];
  for (const auto& [name, value] : report.metrics()) up.metrics[name] += value;
  if (++up.in < child_ids_.size() + 1) return;
  auto e = JobEnvelope(round);
  auto& metrics = *e.mutable_loss_report()->mutable_metrics();
  for (const auto& [name, value] : up.metrics) metrics[name] = value;
  reports_up_.erase(round);
  if (parent_id_.empty()) return (void)session_.SendToCoordinator(std::move(e));
  if (Status st = transport_.SendOwned(parent_id_, std::move(e)); !st.ok()) {
    errors_.ReportLostPeer(parent_id_, "cannot send the loss report of round " +
                                           std::to_string(round) + " to " + parent_id_ + ": " +
                                           st.message());
  }
}

}  // namespace strads
