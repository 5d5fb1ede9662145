#include "worker/dynamic_worker_job.h"

#include <algorithm>
#include <span>

#include "common/data_loader.h"
#include "common/protocol.h"

namespace strads {
namespace {

Result<Dataset> LoadShard(const proto::JobSpec& spec, uint32_t rank, uint32_t parts) {
  DataSource source{spec.data_path(), spec.dynamic().data_format(), spec.dynamic().labels_path()};
  auto total = CountRows(source);
  if (!total.ok()) return total.status();
  if (*total < parts) {
    return Status::InvalidArgument(spec.data_path() + ": " + std::to_string(*total) +
                                   " rows cannot be split over " + std::to_string(parts) +
                                   " workers");
  }
  try {
    return LoadDataset(source, ShardRows(*total, rank, parts));
  } catch (const std::exception& e) {
    return Status::Internal(spec.data_path() + ": cannot load the shard: " + e.what());
  }
}

}  // namespace

DynamicWorkerJob::DynamicWorkerJob(const MemberContext& context, uint64_t job_id,
                                   const proto::JobStart& start, const DynamicApp* app)
    : MemberJob(context, job_id),
      spec_(start.spec()),
      rank_(start.rank()),
      num_workers_(start.num_workers()),
      app_(app) {
  log_->info("job {}: loading shard {}/{} of {}", id_, rank_, num_workers_, spec_.data_path());
  load_.Start(LoadShard, spec_, rank_, num_workers_);
}

DynamicWorkerJob::~DynamicWorkerJob() = default;

void DynamicWorkerJob::OnTick() {
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
}

void DynamicWorkerJob::FinishLoading(Result<Dataset> loaded) {
  if (!loaded.ok()) return errors_.Report(loaded.status().message());
  auto reply = MakeEnvelope(transport_.id(), id_);
  auto* ready = reply.mutable_ready();
  Dataset& shard = loaded.value();
  ready->set_num_rows(static_cast<uint64_t>(shard.x.rows()));
  ready->set_num_features(static_cast<uint64_t>(shard.x.cols()));
  ready->set_nonzeros(static_cast<uint64_t>(shard.x.nonZeros()));
  auto model = app_->MakeShard(std::move(shard), spec_);
  if (!model.ok()) return errors_.Report(model.status().message());
  model_ = std::move(model).value();
  ready->set_loss(model_->Loss());
  log_->info("job {}: shard loaded ({} rows)", id_, ready->num_rows());
  (void)session_.SendToCoordinator(reply);
}

void DynamicWorkerJob::OnMessage(const proto::Envelope& e) {
  if (errors_.failed()) return;
  if (!model_) {
    log_->debug("job {}: dropping {} (the shard is not loaded)", id_, BodyName(e));
    return;
  }
  switch (e.body_case()) {
    case proto::Envelope::kBegin:
      return HandleBegin(e);
    case proto::Envelope::kChord:
      pending_[e.round()].chord = e.chord();
      return ComputeEligibleChords();
    case proto::Envelope::kCommit:
      return HandleCommit(e);
    case proto::Envelope::kCheckRequest:
      return HandleCheck(e);
    default:
      LogUnexpected(e);
  }
}

void DynamicWorkerJob::HandleBegin(const proto::Envelope& e) {
  const auto& begin = e.begin();
  partition_starts_.assign(begin.partition_starts().begin(), begin.partition_starts().end());
  scheduler_ids_.assign(begin.scheduler_ids().begin(), begin.scheduler_ids().end());
  for (int s = 0; s < begin.scheduler_ids_size() && s < begin.scheduler_endpoints_size(); ++s) {
    if (Status st = transport_.Connect(begin.scheduler_ids(s), begin.scheduler_endpoints(s));
        !st.ok()) {
      log_->error("job {}: {}", id_, st.message());
    }
  }
}

void DynamicWorkerJob::ComputeEligibleChords() {
  const uint64_t depth = std::max<uint32_t>(1, spec_.dynamic().pipeline_depth());
  for (auto it = pending_.begin(); it != pending_.end();) {
    const uint64_t t = it->first;
    const proto::Chord& chord = it->second.chord;
    // Round t may run once every commit of rounds <= t - D is applied, i.e. t < applied + D,
    // and every commit the chord's values reflect.
    if (t >= applied_ + depth || applied_ < chord.min_applied()) return;
    const std::span<const uint64_t> ids(chord.ids().data(), chord.ids().size());
    const size_t fresh = std::min<size_t>(chord.fresh_count(), ids.size());
    if (fresh == 0) {
      std::vector<double> sums;
      model_->Push(ids, sums);
      SendPartials(t, sums);
      it = pending_.erase(it);
      continue;
    }
    // Dual pipeline: the tail now, the fresh head once every earlier commit is applied.
    if (!it->second.tail) {
      it->second.tail.emplace();
      model_->Push(ids.subspan(fresh), *it->second.tail);
    }
    if (applied_ < t) {
      ++it;
      continue;
    }
    std::vector<double> sums;
    model_->Push(ids.first(fresh), sums);
    sums.insert(sums.end(), it->second.tail->begin(), it->second.tail->end());
    SendPartials(t, sums);
    it = pending_.erase(it);
  }
}

void DynamicWorkerJob::SendPartials(uint64_t round, const std::vector<double>& sums) {
  auto e = MakeEnvelope(transport_.id(), id_, round);
  auto* partials = e.mutable_partials();
  partials->mutable_sums()->Assign(sums.begin(), sums.end());
  partials->set_stats_per_param(app_->stats_per_param());
  partials->set_loss(model_->Loss());
  partials->set_applied_through(applied_);
  (void)session_.SendToCoordinator(e);
}

void DynamicWorkerJob::HandleCommit(const proto::Envelope& e) {
  if (e.round() != applied_) {
    return errors_.Report("commit of round " + std::to_string(e.round()) +
                          " arrived while expecting round " + std::to_string(applied_));
  }
  const auto& commit = e.commit();
  if (commit.deltas_size() != commit.ids_size()) {
    return errors_.Report("malformed commit of round " + std::to_string(e.round()));
  }
  model_->Apply(std::span(commit.ids().data(), commit.ids().size()),
                std::span(commit.deltas().data(), commit.deltas().size()));
  ++applied_;
  ComputeEligibleChords();
}

void DynamicWorkerJob::HandleCheck(const proto::Envelope& e) {
  if (e.round() != applied_) {
    return errors_.Report("check at round " + std::to_string(e.round()) + " but " +
                          std::to_string(applied_) + " rounds applied");
  }
  if (scheduler_ids_.size() + 1 != partition_starts_.size()) {
    return errors_.Report("check before the parameter partition is known");
  }
  const auto& starts = partition_starts_;
  std::vector<double> slice;
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    slice.assign(starts[s + 1] - starts[s], 0.0);
    model_->Gradient(starts[s], starts[s + 1], slice);
    auto g = MakeEnvelope(transport_.id(), id_, e.round());
    g.mutable_gradient_slice()->set_worker_rank(rank_);
    g.mutable_gradient_slice()->mutable_values()->Assign(slice.begin(), slice.end());
    if (Status st = transport_.Send(scheduler_ids_[s], g); !st.ok()) {
      return errors_.Report("cannot send gradient to " + scheduler_ids_[s] + ": " + st.message());
    }
  }
  auto loss = MakeEnvelope(transport_.id(), id_, e.round());
  loss.mutable_loss_report()->set_loss(model_->ExactLoss());
  std::map<std::string, double> metrics;
  model_->Metrics(metrics);
  for (const auto& [name, value] : metrics)
    (*loss.mutable_loss_report()->mutable_metrics())[name] = value;
  (void)session_.SendToCoordinator(loss);
}

}  // namespace strads
