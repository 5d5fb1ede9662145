#include "worker/worker.h"

#include <chrono>

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

static MemberIdentity AsWorker(MemberIdentity identity) {
  identity.role = proto::ROLE_WORKER;
  return identity;
}

Worker::Worker(Transport& transport, MemberIdentity identity, const AppRegistry& apps, Logger log)
    : transport_(transport),
      apps_(apps),
      log_(log),
      session_(transport, AsWorker(std::move(identity)), log) {}

Worker::~Worker() = default;

void Worker::OnTick(Clock::time_point now) {
  session_.OnTick(now, CurrentJobId());
  static_job_.Tick();
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
}

void Worker::OnMessage(const proto::Envelope& e, Clock::time_point now) {
  if (session_.OnMessage(e)) return;
  if (RouteStatic(e)) return;
  switch (e.body_case()) {
    case proto::Envelope::kJobStart:
      static_job_.End(log_, "replaced by job " + std::to_string(e.job_id()));
      return HandleJobStart(e);
    case proto::Envelope::kJobEnd:
      if (job_ && job_->id == e.job_id()) EndJob(e.job_end().reason());
      return;
    default:
      break;
  }
  if (!job_ || job_->id != e.job_id() || !job_->model) {
    log_->debug("dropping {} for job {} (not running it)", BodyName(e), e.job_id());
    return;
  }
  switch (e.body_case()) {
    case proto::Envelope::kBegin:
      return HandleBegin(e);
    case proto::Envelope::kChord:
      return HandleChord(e);
    case proto::Envelope::kCommit:
      return HandleCommit(e);
    case proto::Envelope::kCheckRequest:
      return HandleCheck(e);
    default:
      log_->warn("unexpected message {} from {}", BodyName(e), e.sender());
  }
}

void Worker::HandleJobStart(const proto::Envelope& e) {
  if (job_) EndJob("replaced by job " + std::to_string(e.job_id()));
  const auto& start = e.job_start();
  auto job = std::make_unique<Job>();
  job->id = e.job_id();
  job->spec = start.spec();
  job->rank = start.rank();
  job->num_workers = start.num_workers();
  auto app = apps_.FindDynamic(start.spec().app());
  job_ = std::move(job);
  if (!app.ok()) {
    auto reply = MakeEnvelope(transport_.id(), job_->id);
    reply.mutable_ready()->set_error(app.status().message());
    SendToCoordinator(reply);
    job_.reset();
    return;
  }
  job_->app = *app;
  log_->info("job {}: loading shard {}/{} of {}", job_->id, job_->rank, job_->num_workers,
             job_->spec.data_path());
  load_.Start(LoadShard, job_->spec, job_->rank, job_->num_workers);
}

void Worker::FinishLoading(Result<Dataset> loaded) {
  auto reply = MakeEnvelope(transport_.id(), job_->id);
  auto* ready = reply.mutable_ready();
  if (!loaded.ok()) {
    ready->set_error(loaded.status().message());
    SendToCoordinator(reply);
    log_->error("job {}: {}", job_->id, loaded.status().message());
    job_.reset();
    return;
  }
  Dataset& shard = loaded.value();
  ready->set_num_rows(static_cast<uint64_t>(shard.x.rows()));
  ready->set_num_features(static_cast<uint64_t>(shard.x.cols()));
  ready->set_nonzeros(static_cast<uint64_t>(shard.x.nonZeros()));
  auto model = job_->app->MakeShard(std::move(shard), job_->spec);
  if (!model.ok()) {
    ready->set_error(model.status().message());
    SendToCoordinator(reply);
    job_.reset();
    return;
  }
  job_->model = std::move(model).value();
  ready->set_loss(job_->model->Loss());
  log_->info("job {}: shard loaded ({} rows)", job_->id, ready->num_rows());
  SendToCoordinator(reply);
}

void Worker::HandleBegin(const proto::Envelope& e) {
  const auto& begin = e.begin();
  job_->partition_starts.assign(begin.partition_starts().begin(), begin.partition_starts().end());
  job_->scheduler_ids.assign(begin.scheduler_ids().begin(), begin.scheduler_ids().end());
  for (int s = 0; s < begin.scheduler_ids_size(); ++s) {
    if (Status st = transport_.Connect(begin.scheduler_ids(s), begin.scheduler_endpoints(s));
        !st.ok()) {
      log_->error("job {}: {}", job_->id, st.message());
    }
  }
}

void Worker::HandleChord(const proto::Envelope& e) {
  job_->pending[e.round()].chord = e.chord();
  ComputeEligibleChords();
}

void Worker::ComputeEligibleChords() {
  const uint64_t depth = std::max<uint32_t>(1, job_->spec.dynamic().pipeline_depth());
  for (auto it = job_->pending.begin(); it != job_->pending.end();) {
    const uint64_t t = it->first;
    const proto::Chord& chord = it->second.chord;
    // Round t may run once every commit of rounds <= t - D is applied, i.e. t < applied + D,
    // and every commit the chord's values reflect.
    if (t >= job_->applied + depth || job_->applied < chord.min_applied()) return;
    const std::span<const uint64_t> ids(chord.ids().data(), chord.ids().size());
    const size_t fresh = std::min<size_t>(chord.fresh_count(), ids.size());
    if (fresh == 0) {
      std::vector<double> sums;
      job_->model->Push(ids, sums);
      Send(t, sums);
      it = job_->pending.erase(it);
      continue;
    }
    // Dual pipeline: the tail now, the fresh head once every earlier commit is applied.
    if (!it->second.tail) {
      it->second.tail.emplace();
      job_->model->Push(ids.subspan(fresh), *it->second.tail);
    }
    if (job_->applied < t) {
      ++it;
      continue;
    }
    std::vector<double> sums;
    job_->model->Push(ids.first(fresh), sums);
    sums.insert(sums.end(), it->second.tail->begin(), it->second.tail->end());
    Send(t, sums);
    it = job_->pending.erase(it);
  }
}

void Worker::Send(uint64_t round, const std::vector<double>& sums) {
  auto e = MakeEnvelope(transport_.id(), job_->id, round);
  auto* partials = e.mutable_partials();
  partials->mutable_sums()->Assign(sums.begin(), sums.end());
  partials->set_stats_per_param(job_->app->stats_per_param());
  partials->set_loss(job_->model->Loss());
  partials->set_applied_through(job_->applied);
  SendToCoordinator(e);
}

void Worker::ReportError(const std::string& what) {
  log_->error("job {}: {}", job_->id, what);
  auto e = MakeEnvelope(transport_.id(), job_->id);
  e.mutable_ready()->set_error(what);
  SendToCoordinator(e);
}

void Worker::HandleCommit(const proto::Envelope& e) {
  if (e.round() != job_->applied) {
    return ReportError("commit of round " + std::to_string(e.round()) +
                       " arrived while expecting round " + std::to_string(job_->applied));
  }
  const auto& commit = e.commit();
  if (commit.deltas_size() != commit.ids_size()) {
    return ReportError("malformed commit of round " + std::to_string(e.round()));
  }
  job_->model->Apply(std::span(commit.ids().data(), commit.ids().size()),
                     std::span(commit.deltas().data(), commit.deltas().size()));
  ++job_->applied;
  ComputeEligibleChords();
}

void Worker::HandleCheck(const proto::Envelope& e) {
  if (e.round() != job_->applied) {
    return ReportError("check at round " + std::to_string(e.round()) + " but " +
                       std::to_string(job_->applied) + " rounds applied");
  }
  if (job_->scheduler_ids.size() + 1 != job_->partition_starts.size()) {
    return ReportError("check before the parameter partition is known");
  }
  const auto& starts = job_->partition_starts;
  std::vector<double> slice;
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    slice.assign(starts[s + 1] - starts[s], 0.0);
    job_->model->Gradient(starts[s], starts[s + 1], slice);
    auto g = MakeEnvelope(transport_.id(), job_->id, e.round());
    g.mutable_gradient_slice()->set_worker_rank(job_->rank);
    g.mutable_gradient_slice()->mutable_values()->Assign(slice.begin(), slice.end());
    if (Status st = transport_.Send(job_->scheduler_ids[s], g); !st.ok()) {
      return ReportError("cannot send gradient to " + job_->scheduler_ids[s] + ": " + st.message());
    }
  }
  auto loss = MakeEnvelope(transport_.id(), job_->id, e.round());
  loss.mutable_loss_report()->set_loss(job_->model->ExactLoss());
  std::map<std::string, double> metrics;
  job_->model->Metrics(metrics);
  for (const auto& [name, value] : metrics)
    (*loss.mutable_loss_report()->mutable_metrics())[name] = value;
  SendToCoordinator(loss);
}

void Worker::EndJob(const std::string& why) {
  log_->info("job {} ended: {}", job_->id, why);
  load_.Abandon();
  job_.reset();
}

uint64_t Worker::CurrentJobId() const {
  if (static_job_.get()) return static_job_.id();
  return job_ ? job_->id : 0;
}

bool Worker::RouteStatic(const proto::Envelope& e) {
  if (e.body_case() != proto::Envelope::kJobStart) return static_job_.Route(e, log_);
  auto app = apps_.FindStatic(e.job_start().spec().app());
  if (!app.ok()) return false;  // a dynamic-engine job
  if (job_) EndJob("replaced by job " + std::to_string(e.job_id()));
  static_job_.Replace(std::make_unique<StaticWorkerJob>(transport_, session_, log_, e.job_id(),
                                                        e.job_start(), *app),
                      log_, "replaced by job " + std::to_string(e.job_id()));
  return true;
}

}  // namespace strads
