#include "scheduler/dynamic_scheduler_job.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "common/column_selection.h"
#include "common/data_loader.h"
#include "common/partitioner.h"
#include "common/protocol.h"
#include "engine/chord_size.h"
#include "engine/dynamic_spec.h"
#include "engine/feature_grouping.h"

namespace strads {

DynamicSchedulerJob::DynamicSchedulerJob(const JobContext& context, const DynamicApp* app)
    : DynamicMemberJob(context, app),
      worker_ids_(context.start.worker_ids().begin(), context.start.worker_ids().end()) {
  ConnectPeers(context.start.worker_ids(), context.start.worker_endpoints());
  log_->info("job {}: waiting for the workers' column counts (scheduler {}/{})", id_, rank_,
             num_schedulers_);
}

void DynamicSchedulerJob::HandleColumnCounts(const proto::Envelope& e) {
  const proto::ColumnCounts& c = e.column_counts();
  if (load_.running() || builder_) return LogUnexpected(e);
  if (c.counts_size() == 0) return errors_.Report("the workers counted no column");
  log_->info("job {}: loading {} from the workers' counts of {} columns (scheduler {}/{})", id_,
             spec_.data_path(), c.counts_size(), rank_, num_schedulers_);
  if (!source_.ok()) return errors_.Report(source_.status().message());
  load_.Start(LoadPartition, source_.value(), spec_, rank_, num_schedulers_, num_workers_,
              CountedColumns{{c.counts().begin(), c.counts().end()}, c.rows()});
}

DynamicSchedulerJob::~DynamicSchedulerJob() = default;

void DynamicSchedulerJob::Send(const std::string& to, const proto::Envelope& e) {
  Send(to, proto::Envelope(e));
}

void DynamicSchedulerJob::Send(const std::string& to, proto::Envelope&& e) {
  // A failed job sends nothing more: each send to a peer that is gone waits out the transport's
  // timeout (1 s), and a chord's shares go to every worker, so a scheduler whose chord followed
  // a worker's death sat in its sends for seconds and missed the coordinator's shutdown, which
  // came and went meanwhile (cluster_recovery_exhausted_fails, seen twice).
  if (errors_.failed()) return;
  const std::string what = BodyName(e);
  if (Status st = transport_.SendOwned(to, std::move(e)); !st.ok()) {
    errors_.ReportLostPeer(to, "cannot send " + what + " to " + to + ": " + st.message());
  }
}

void DynamicSchedulerJob::OnTick() {
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
}

void DynamicSchedulerJob::Handle(const proto::Envelope& e) {
  switch (e.body_case()) {
    case proto::Envelope::kChordRequest:
      return BuildChord(e.round());
    case proto::Envelope::kCommit:
      return HandleCommit(e);
    case proto::Envelope::kGradientSlice:
      return HandleGradientSlice(e);
    case proto::Envelope::kCheckRequest:
      check_requested_ = e.round();
      if (e.check_request().requests_chord()) chord_after_check_ = e.check_request().chord_round();
      return MaybeFinishCheck();
    case proto::Envelope::kModelRequest:
      return HandleModelRequest(e);
    default:
      LogUnexpected(e);
  }
}

namespace {

// Why the default filter (rho_if_dense) does not run on a partition of `rows` x
// `cols` with `nonzeros` entries, or empty if it does: it runs only where its lists are cheap
// (dense data), and only where this scheduler can hold the partition's columns (loaded, then
// normalised: ~28 bytes an entry) and the dense matrices in a quarter of the memory available.
std::string DefaultFilterRefusal(uint64_t rows, uint64_t cols, uint64_t nonzeros) {
  if (!NeighbourLists::DenseWayFits(rows, cols, nonzeros, NeighbourLists::Budget{})) {
    return fmt::format(
        "no dependency filter: the partition ({:.1f}% non-zero) is not dense, or too large for "
        "dense neighbour lists; there the line search alone is faster (--rho sets one)",
        100.0 * double(nonzeros) / std::max(1.0, double(rows) * double(cols)));
  }
  const double bytes = 28.0 * double(nonzeros) + NeighbourLists::DenseBytes(rows, cols);
  if (bytes > double(AvailableMemoryBytes()) / 4) {
    return fmt::format(
        "no dependency filter: the partition's columns and neighbour lists would take {:.0f} MB, "
        "over a quarter of the memory available (--rho sets one)",
        bytes / 1e6);
  }
  return "";
}

}  // namespace

Result<DynamicSchedulerJob::Partition> DynamicSchedulerJob::LoadPartition(
    const DataSource& source, const proto::JobSpec& spec, uint32_t rank, uint32_t parts,
    uint32_t workers, CountedColumns given) {
  try {
    // The columns' entry counts (the workers', summed) give the partition, the same on every
    // member. The columns themselves are needed only by the dependency filter (rho < 1) and the
    // grouping; without them a scheduler needs their squared norms alone, which the workers, who
    // hold the columns, send with the first check's gradient (so it never reads the file). Only a
    // filtering or grouping scheduler holds columns: those of its partition.
    const proto::DynamicEngineSpec& d = spec.dynamic();
    // The filter runs only in the dynamic and static schedules, and checks nothing for one worker
    // at depth 1 (one group, nothing in flight).
    // (An unset schedule is dynamic.)
    const bool schedule_filters =
        d.schedule() != proto::SCHEDULE_RANDOM && d.schedule() != proto::SCHEDULE_CYCLIC;
    const bool filter_bites = !(workers == 1 && d.pipeline_depth() <= 1);
    bool filtered = d.rho() < 1.0 && schedule_filters && filter_bites;
    std::vector<uint64_t> weights = std::move(given.entries);
    uint64_t rows = given.rows;
    auto starts = PartitionByWeight(weights, parts);
    const uint64_t first = starts[rank], end = starts[rank + 1];
    uint64_t nonzeros = 0;
    for (uint64_t j = first; j < end; ++j) nonzeros += weights[j];
    Partition p;
    if (filtered && d.rho_if_dense()) {
      p.neighbours_note = DefaultFilterRefusal(rows, end - first, nonzeros);
      filtered = p.neighbours_note.empty();
    }
    p.filtered = filtered;
    const bool norms_from_workers = !filtered;
    // This range's columns: for the dependency filter, and for grouping the features.
    const bool groups = MayGroupRange(d, workers, rows, weights, {first, end});
    std::optional<Dataset> range_columns;
    if (filtered || groups) {
      const ColumnRange mine[] = {{first, end}};
      auto data = LoadColumns(source, mine, weights, rows);
      if (!data.ok()) return WithWorkersCounts(data.status());
      // The workers' counts are of their copies of the file: this one must be the same shape.
      if (static_cast<uint64_t>(data->x.cols()) != weights.size() ||
          static_cast<uint64_t>(data->x.rows()) != rows) {
        return Status::InvalidArgument(
            fmt::format("{}: {} rows x {} columns here, but the workers counted {} x {} in their "
                        "copies of the file",
                        spec.data_path(), data->x.rows(), data->x.cols(), rows, weights.size()));
      }
      rows = static_cast<uint64_t>(data->x.rows());
      range_columns = std::move(data).value();
    }
    std::unique_ptr<ColumnStore> store;
    if (filtered) {
      store = std::make_unique<ColumnStore>(range_columns->x, first, end);
    } else {
      store = std::make_unique<ColumnStore>(first, end, static_cast<int64_t>(rows),
                                            std::vector<double>(end - first, 0.0));
    }
    p.norms_pending = norms_from_workers;
    // The workers derive the same blocks from the counts (worker/dynamic_worker_job.h); a grouping
    // of this range is this scheduler's alone, and reaches them through its Ready and the
    // coordinator's Begin (engine/feature_grouping.h).
    p.owners = ColumnOwners(weights, parts, workers);
    if (groups) {
      p.owners_note = GroupRange(range_columns->x, weights, d.group_rho(), rank, p.owners);
    }
    if (filtered) {
      const auto start = std::chrono::steady_clock::now();
      auto lists = NeighbourLists::Build(*store, spec.dynamic().rho());
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (lists.ok()) {
        p.neighbours_note = fmt::format(
            "neighbour lists at rho {}: {} dependent pairs among {} parameters ({}, {:.2f} s)",
            spec.dynamic().rho(), lists->entries() / 2, end - first,
            lists->dense() ? "dense Gram matrix" : "sparse row walk", seconds);
        p.neighbours = std::make_unique<NeighbourLists>(std::move(lists).value());
      } else {
        p.neighbours_note = "no neighbour lists (" + lists.status().message() +
                            "): the dependency filter computes correlations as it goes";
        if (d.rho_if_dense()) {  // the default asked for the filter only where it is cheap
          p.filtered = false;
          p.neighbours_note = "no dependency filter: " + lists.status().message();
        }
      }
    }
    p.num_rows = rows;
    p.num_features = weights.size();
    p.first = first;
    p.end = end;
    p.nonzeros = nonzeros;
    p.store = std::move(store);
    return p;
  } catch (const std::exception& e) {
    // E.g. bad_alloc for a file whose largest feature id implies an enormous partition.
    return Status::Internal(spec.data_path() + ": cannot build the partition: " + e.what());
  }
}

void DynamicSchedulerJob::FinishLoading(Result<Partition> loaded) {
  if (!loaded.ok()) return errors_.Report(loaded.status().message());
  part_ = std::move(loaded).value();
  const Partition& p = part_;
  ChordPolicy policy;
  policy.schedule = spec_.dynamic().schedule();
  const proto::DynamicEngineSpec& d = spec_.dynamic();
  policy.chord_size = d.chord_size();
  policy.candidates = std::max(d.candidates(), d.chord_size());
  if (d.chord_size_adapts()) {
    policy.chord_size =
        AdaptedChordSize(d.chord_size(), {.nonzeros = p.nonzeros,
                                          .columns = p.end - p.first,
                                          .workers = num_workers_,
                                          .passes = SharePassesOf(d, num_workers_).max_passes});
    policy.candidates = AdaptedCandidates(d.candidates(), d.chord_size(), policy.chord_size);
    if (policy.chord_size < d.chord_size()) {
      log_->info(
          "job {}: chords of {} parameters from {} candidates: {:.0f} non-zeros a column, so a "
          "worker's share costs about a round's fixed cost (engine/chord_size.h; --chord-size "
          "sets one)",
          id_, policy.chord_size, policy.candidates,
          double(p.nonzeros) / double(std::max<uint64_t>(p.end - p.first, 1)));
    }
  }
  policy.rho = p.filtered ? d.rho() : 1.0;
  policy.eta = d.eta();
  policy.seed = spec_.seed() * 1000003 + rank_;
  policy.check_in_flight = d.pipeline_depth() > 1;
  policy.index_order = true;
  policy.dual_lanes = d.dual_pipeline();
  builder_ = std::make_unique<ChordBuilder>(*p.store, policy);
  if (p.filtered) {
    // The parameters of one worker form one group of the dependency filter (its updates of them
    // are sequential, exact); without a filter (rho 1) groups are never consulted.
    std::vector<uint32_t> group(p.end - p.first);
    for (uint64_t j = p.first; j < p.end; ++j) group[j - p.first] = p.owners.WorkerIn(rank_, j);
    builder_->SetGroups(std::move(group));
    // With an active worker a parameter's group is the worker that updates it: its owner while
    // it is zero, the active worker once it is not (updated at each commit).
    active_groups_ = RangeHasActiveWorker(d, p.nonzeros, p.end - p.first) && num_workers_ > 1;
  }
  if (p.neighbours) builder_->UseNeighbours(p.neighbours.get());
  if (!p.neighbours_note.empty()) log_->info("job {}: {}", id_, p.neighbours_note);
  if (!p.owners_note.empty()) log_->info("job {}: {}", id_, p.owners_note);
  if (spec_.dynamic().active_worker()) {
    const uint32_t active = ActiveWorkerOf(rank_, num_workers_);
    if (RangeHasActiveWorker(spec_.dynamic(), p.nonzeros, p.end - p.first)) {
      log_->info("job {}: the chords' non-zero parameters go to worker {}", id_, active);
    } else {
      log_->info("job {}: --active-worker off for this range: its columns would take over 1 GiB",
                 id_);
    }
  }
  values_.assign(p.end - p.first, 0.0);
  auto reply = JobEnvelope();
  auto* ready = reply.mutable_ready();
  ready->set_num_rows(p.num_rows);
  ready->set_num_features(p.num_features);
  ready->set_first_param(p.first);
  ready->set_end_param(p.end);
  ready->set_nonzeros(p.nonzeros);
  ready->set_chord_size(policy.chord_size);
  ready->set_candidates(policy.candidates);
  if (p.owners.grouped(rank_)) {
    // The workers loaded the whole range and keep their columns once Begin brings these.
    ready->mutable_owners()->set_grouped(true);
    const std::vector<uint32_t>& owners = p.owners.GroupOf(rank_);
    ready->mutable_owners()->mutable_worker()->Assign(owners.begin(), owners.end());
  }
  log_->info("job {}: owns parameters [{}, {}) of {}", id_, p.first, p.end, p.num_features);
  (void)session_.SendToCoordinator(reply);
}

void DynamicSchedulerJob::BuildChord(uint64_t round) {
  waiting_.push_back(round);
  ServeWaiting();
}

void DynamicSchedulerJob::ServeWaiting() {
  while (!waiting_.empty() && TrySendChord(waiting_.front(), /*prepare_next=*/true)) {
    waiting_.pop_front();
  }
}

bool DynamicSchedulerJob::TrySendChord(uint64_t round, bool prepare_next) {
  // The messages of a chord built ahead were made with it (see PrepareNext); Next returns that
  // chord, or builds one now.
  std::optional<ChordMessages> made = std::exchange(prepared_messages_, std::nullopt);
  std::vector<uint64_t> ids = builder_->Next();
  if (ids.empty() && builder_->in_flight() > 0) {
    log_->trace("job {}: chord {} waits for a commit ({} parameters in flight)", id_, round,
                builder_->in_flight());
    return false;
  }
  assert(!made || static_cast<size_t>(made->whole.chord().ids_size()) == ids.size());
  SendChord(made ? std::move(*made) : MakeChord(ids), round, builder_->last_was_stale());
  ++chords_since_check_;
  if (prepare_next) PrepareNext();
  return true;
}

void DynamicSchedulerJob::PrepareNext() {
  // The next chord is built ahead (the next request finds it ready) unless it is predicted to
  // be the first after a check, which drops it (its priorities are stale): when this chord is
  // the k-th since the last check and the interval between the two checks before held k chords.
  // Where checks come after every round (the pacer's rule on small problems: 336 checks in 362
  // rounds of 20,000 x 20,000 L1-LR), every chord built ahead was thrown away, and building it
  // took a core from the workers while they computed (~0.7 ms a round there). Where checks are
  // rare (the paper's shape: one in ~35 rounds) only the prepare a check would drop is skipped.
  // Nor is it built ahead where the chords in flight hold much of the partition: it could only
  // take what they left (ChordBuilder::AheadDrawsWhole).
  const bool ahead = chords_since_check_ != last_interval_ && builder_->AheadDrawsWhole();
  if (!ahead) return;
  builder_->Prepare();
  // Its messages are made now too, off the round's critical path (reading its values, a cache
  // miss each on a large partition, and splitting it into the workers' shares): its parameters
  // are in flight until it is sent, so no commit sets their values meanwhile.
  if (builder_->ready()) prepared_messages_ = MakeChord(builder_->prepared_chord());
}

void DynamicSchedulerJob::DropPrepared() {
  builder_->DropPrepared();
  prepared_messages_.reset();
}

DynamicSchedulerJob::ChordMessages DynamicSchedulerJob::MakeChord(
    std::span<const uint64_t> ids) const {
  const uint64_t first = part_.first;
  ChordMessages m;
  m.whole = JobEnvelope();
  auto* chord = m.whole.mutable_chord();
  chord->set_scheduler_rank(rank_);
  chord->set_exhausted(ids.empty() && builder_->in_flight() == 0);
  chord->mutable_ids()->Assign(ids.begin(), ids.end());
  chord->mutable_values()->Reserve(static_cast<int>(ids.size()));
  for (uint64_t j : ids) chord->add_values(values_[j - first]);
  const ColumnOwners& owners = part_.owners;
  if (owners.workers() != worker_ids_.size() || worker_ids_.size() < 2 ||
      owners.schedulers() <= rank_) {
    return m;  // every worker gets the whole chord
  }
  // Each worker gets the parameters it owns and no others, so a round's chord
  // bytes are O(B), not O(B x P) (docs/performance.md). A worker with none still gets its (empty)
  // share: the coordinator waits for every worker's partials.
  proto::Envelope header = m.whole;  // the chord's fields without its parameters
  header.mutable_chord()->clear_ids();
  header.mutable_chord()->clear_values();
  m.shares.assign(worker_ids_.size(), header);
  const proto::Chord& all = m.whole.chord();
  const int expected = all.ids_size() / static_cast<int>(worker_ids_.size()) * 5 / 4 + 16;
  for (proto::Envelope& share : m.shares) {
    share.mutable_chord()->mutable_ids()->Reserve(expected);
    share.mutable_chord()->mutable_values()->Reserve(expected);
  }
  // --active-worker: the non-zero parameters all go to one worker (this scheduler's rank mod P),
  // which holds every column and updates them in sequence; the zero ones to their owners.
  const bool active_worker =
      RangeHasActiveWorker(spec_.dynamic(), part_.nonzeros, part_.end - part_.first);
  const uint32_t active = ActiveWorkerOf(rank_, static_cast<uint32_t>(worker_ids_.size()));
  for (int k = 0; k < all.ids_size(); ++k) {
    const uint64_t j = all.ids(k);
    const uint32_t w = active_worker && all.values(k) != 0.0 ? active : owners.WorkerIn(rank_, j);
    proto::Chord& c = *m.shares[w].mutable_chord();
    c.add_ids(j);
    c.add_values(all.values(k));
  }
  if (active_worker) {
    for (proto::Envelope& share : m.shares) share.mutable_chord()->set_assigned(true);
  }
  return m;
}

void DynamicSchedulerJob::SendChord(ChordMessages&& m, uint64_t round, bool stale_lane) {
  auto stamp = [&](proto::Envelope& e) {
    e.set_round(round);
    e.mutable_chord()->set_min_applied(applied_through_);
    e.mutable_chord()->set_stale_lane(stale_lane);
  };
  stamp(m.whole);
  for (proto::Envelope& share : m.shares) stamp(share);
  // The coordinator's copy goes first: it commits the round only once it holds the chord, and a
  // worker woken by its share takes a core at once, so on a machine with as many cores as
  // workers the scheduler could wait ~1 ms to send anything after the first share (seen on a
  // loopback cluster of 2 workers on 2 cores: the chord reached the coordinator after both
  // workers' partials).
  if (m.shares.empty()) {
    (void)session_.SendToCoordinator(m.whole);
    for (size_t w = 0; w < worker_ids_.size(); ++w) {
      if (w + 1 < worker_ids_.size())
        Send(worker_ids_[w], m.whole);
      else
        Send(worker_ids_[w], std::move(m.whole));
    }
    return;
  }
  (void)session_.SendToCoordinator(std::move(m.whole));
  for (size_t w = 0; w < worker_ids_.size(); ++w) Send(worker_ids_[w], std::move(m.shares[w]));
}

void DynamicSchedulerJob::HandleCommit(const proto::Envelope& e) {
  const auto& c = e.commit();
  if (c.values_size() != c.ids_size() || c.deltas_size() != c.ids_size()) {
    return errors_.Report("malformed commit of round " + std::to_string(e.round()) + " from " +
                          e.sender());
  }
  // Every id first: a malformed commit has no effect (no chord goes out before it is refused,
  // nothing of it is applied).
  for (uint64_t j : c.ids()) {
    if (!part_.store->Contains(j)) {
      return errors_.Report(
          fmt::format("commit for parameter {} outside [{}, {})", j, part_.first, part_.end));
    }
  }
  applied_through_ = std::max(applied_through_, e.round() + 1);
  // The chord this commit asks for goes out before the commit is applied when it is built
  // ahead and no earlier request waits. It holds none of the committed parameters, so none of
  // its values change here: the coordinator commits a round once, to the scheduler that built
  // it, with that chord's ids (coordinator/dynamic_job.cc), and a chord is built ahead only
  // after every chord sent, while their parameters are in flight (weight 0, never drawn).
  // Applying the commit (a cache miss or more per id: ~70 us for 2,048 ids on the paper's
  // 1,000,000 parameters) then overlaps the workers' round instead of preceding it, and the
  // chord after it is built on the applied commit, as before.
  const bool early = c.requests_chord() && waiting_.empty() && builder_->ready();
  if (early) {
    const bool sent = TrySendChord(c.chord_round(), /*prepare_next=*/false);
    assert(sent);  // a ready chord is never held back
    (void)sent;
  }
  constexpr int kAhead = static_cast<int>(ChordBuilder::kCommitsAhead);
  for (int k = 0; k < c.ids_size(); ++k) {
    if (k + kAhead < c.ids_size()) {
      const uint64_t ahead = c.ids(k + kAhead);
      builder_->PrefetchCommit(ahead);
      __builtin_prefetch(values_.data() + (ahead - part_.first));
    }
    const uint64_t j = c.ids(k);
    values_[j - part_.first] = c.values(k);
    builder_->OnCommit(j, c.deltas(k));
    // --active-worker: the filter's groups follow the worker that will update j next.
    if (active_groups_) {
      builder_->SetGroup(j, c.values(k) != 0.0 ? ActiveWorkerOf(rank_, num_workers_)
                                               : part_.owners.WorkerIn(rank_, j));
    }
  }
  ServeWaiting();  // the commit freed its parameters
  if (early) {
    PrepareNext();
  } else if (c.requests_chord()) {
    BuildChord(c.chord_round());  // with this commit applied
  }
}

void DynamicSchedulerJob::HandleGradientSlice(const proto::Envelope& e) {
  const auto& slice = e.gradient_slice();
  const size_t n = values_.size();
  const uint64_t first = slice.first();
  if (first > n || static_cast<size_t>(slice.values_size()) > n - first) {
    return errors_.Report(
        fmt::format("gradient slice from {} has values {} to {}, partition has {}", e.sender(),
                    first, first + static_cast<uint64_t>(slice.values_size()), n));
  }
  if (slices_ == 0) {
    gradient_.assign(n, 0.0);
    check_round_ = e.round();
  } else if (e.round() != check_round_) {
    return errors_.Report(
        fmt::format("gradient slices of checks {} and {} mixed", check_round_, e.round()));
  }
  if (part_.norms_pending) {
    if (slice.sq_norms_size() != slice.values_size()) {
      return errors_.Report(
          fmt::format("the first gradient slice from {} carries {} squared norms for {} columns",
                      e.sender(), slice.sq_norms_size(), slice.values_size()));
    }
    // Summed: each column is one worker's, the others send 0 for it (a grouped range's slices
    // each span the whole range).
    for (int i = 0; i < slice.sq_norms_size(); ++i) {
      const uint64_t j = part_.first + first + static_cast<uint64_t>(i);
      part_.store->SetSquaredNorm(j, part_.store->SquaredNorm(j) + slice.sq_norms(i));
    }
  }
  for (int i = 0; i < slice.values_size(); ++i)
    gradient_[first + static_cast<size_t>(i)] += slice.values(i);
  ++slices_;
  MaybeFinishCheck();
}

void DynamicSchedulerJob::MaybeFinishCheck() {
  if (slices_ < num_workers_ || check_requested_ != check_round_) return;
  slices_ = 0;
  check_requested_.reset();
  DropPrepared();  // chosen with the old priorities
  last_interval_ = chords_since_check_ > 0 ? chords_since_check_ : kUnknown;
  chords_since_check_ = 0;
  part_.norms_pending = false;  // they came with this check's slices; OnCheckAll reads them

  auto out = JobEnvelope(check_round_);
  auto* report = out.mutable_check_report();
  // gradient_ becomes the violations, which OnCheckAll reads.
  const CheckSums sums = app_->EvaluateCheck(gradient_, values_, spec_);
  builder_->OnCheckAll(gradient_);
  report->set_max_violation(sums.max_violation);
  report->set_max_abs_gradient(sums.max_abs_gradient);
  report->set_penalty(sums.penalty);
  report->set_nonzeros(sums.nonzeros);
  (void)session_.SendToCoordinator(out);
  // The round asked for with the check, on its priorities, as a ChordRequest after the report
  // would have found them.
  if (chord_after_check_) BuildChord(*std::exchange(chord_after_check_, std::nullopt));
}

void DynamicSchedulerJob::HandleModelRequest(const proto::Envelope& e) {
  auto out = JobEnvelope(e.round());
  auto* slice = out.mutable_model_slice();
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i] == 0.0) continue;
    slice->add_ids(part_.first + i);
    slice->add_values(values_[i]);
  }
  (void)session_.SendToCoordinator(out);
}

}  // namespace strads
