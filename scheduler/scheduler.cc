#include "scheduler/scheduler.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/data_loader.h"
#include "common/partitioner.h"
#include "common/protocol.h"

namespace strads {
namespace {

MemberIdentity AsScheduler(MemberIdentity identity) {
  identity.role = proto::ROLE_SCHEDULER;
  return identity;
}

}  // namespace

Scheduler::Scheduler(Transport& transport, MemberIdentity identity, const AppRegistry& apps,
                     Logger log)
    : transport_(transport),
      apps_(apps),
      log_(log),
      session_(transport, AsScheduler(std::move(identity)), log) {}

Scheduler::~Scheduler() = default;

void Scheduler::Send(const std::string& to, const proto::Envelope& e) {
  if (Status st = transport_.Send(to, e); !st.ok()) {
    ReportError("cannot send " + BodyName(e) + " to " + to + ": " + st.message());
  }
}

void Scheduler::ReportError(const std::string& what) {
  log_->error("job {}: {}", job_ ? job_->id : 0, what);
  if (!job_) return;
  auto e = MakeEnvelope(transport_.id(), job_->id);
  e.mutable_ready()->set_error(what);
  (void)session_.SendToCoordinator(e);
}

void Scheduler::OnTick(Clock::time_point now) {
  session_.OnTick(now, CurrentJobId());
  static_job_.Tick();
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
}

void Scheduler::OnMessage(const proto::Envelope& e, Clock::time_point now) {
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
  if (!job_ || job_->id != e.job_id() || !job_->builder) {
    log_->debug("dropping {} for job {} (not running it)", BodyName(e), e.job_id());
    return;
  }
  switch (e.body_case()) {
    case proto::Envelope::kChordRequest:
      return HandleChordRequest(e);
    case proto::Envelope::kCommit:
      return HandleCommit(e);
    case proto::Envelope::kGradientSlice:
      return HandleGradientSlice(e);
    case proto::Envelope::kCheckRequest:
      job_->check_requested = e.round();
      return MaybeFinishCheck();
    case proto::Envelope::kModelRequest:
      return HandleModelRequest(e);
    default:
      log_->warn("unexpected message {} from {}", BodyName(e), e.sender());
  }
}

void Scheduler::HandleJobStart(const proto::Envelope& e) {
  if (job_) EndJob("replaced by job " + std::to_string(e.job_id()));
  const auto& start = e.job_start();
  auto job = std::make_unique<Job>();
  job->id = e.job_id();
  job->spec = start.spec();
  job->rank = start.rank();
  job->num_schedulers = start.num_schedulers();
  job->num_workers = start.num_workers();
  job->worker_ids.assign(start.worker_ids().begin(), start.worker_ids().end());
  auto app = apps_.FindDynamic(start.spec().app());
  if (!app.ok()) {
    auto reply = MakeEnvelope(transport_.id(), job->id);
    reply.mutable_ready()->set_error(app.status().message());
    (void)session_.SendToCoordinator(reply);
    return;
  }
  job->app = *app;
  for (int w = 0; w < start.worker_ids_size(); ++w) {
    if (Status st = transport_.Connect(start.worker_ids(w), start.worker_endpoints(w)); !st.ok()) {
      log_->error("job {}: {}", job->id, st.message());
    }
  }
  log_->info("job {}: loading {} (scheduler {}/{})", job->id, job->spec.data_path(), job->rank,
             job->num_schedulers);
  load_.Start(LoadPartition, job->spec, job->rank, job->num_schedulers);
  job_ = std::move(job);
}

Result<Scheduler::Partition> Scheduler::LoadPartition(const proto::JobSpec& spec, uint32_t rank,
                                                      uint32_t parts) {
  try {
    DataSource source{spec.data_path(), spec.dynamic().data_format(), spec.dynamic().labels_path()};
    auto data = LoadDataset(source, RowRange{});
    if (!data.ok()) return data.status();
    const SparseColMatrix& x = data->x;
    std::vector<uint64_t> weights(static_cast<size_t>(x.cols()));
    for (int64_t j = 0; j < x.cols(); ++j) {
      weights[j] = static_cast<uint64_t>(x.outerIndexPtr()[j + 1] - x.outerIndexPtr()[j]);
    }
    auto starts = PartitionByWeight(weights, parts);
    Partition p;
    p.num_rows = static_cast<uint64_t>(x.rows());
    p.num_features = static_cast<uint64_t>(x.cols());
    p.first = starts[rank];
    p.end = starts[rank + 1];
    for (uint64_t j = p.first; j < p.end; ++j) p.nonzeros += weights[j];
    p.store = std::make_unique<ColumnStore>(x, p.first, p.end);
    return p;
  } catch (const std::exception& e) {
    // E.g. bad_alloc for a file whose largest feature id implies an enormous partition.
    return Status::Internal(spec.data_path() + ": cannot build the partition: " + e.what());
  }
}

void Scheduler::FinishLoading(Result<Partition> loaded) {
  auto reply = MakeEnvelope(transport_.id(), job_->id);
  auto* ready = reply.mutable_ready();
  if (!loaded.ok()) {
    ready->set_error(loaded.status().message());
    log_->error("job {}: {}", job_->id, loaded.status().message());
    (void)session_.SendToCoordinator(reply);
    job_.reset();
    return;
  }
  job_->part = std::move(loaded).value();
  const Partition& p = job_->part;
  ChordPolicy policy;
  policy.schedule = job_->spec.dynamic().schedule();
  policy.chord_size = job_->spec.dynamic().chord_size();
  policy.candidates =
      std::max(job_->spec.dynamic().candidates(), job_->spec.dynamic().chord_size());
  policy.rho = job_->spec.dynamic().rho();
  policy.eta = job_->spec.dynamic().eta();
  policy.seed = job_->spec.seed() * 1000003 + job_->rank;
  job_->builder = std::make_unique<ChordBuilder>(*p.store, policy);
  job_->values.assign(p.end - p.first, 0.0);
  ready->set_num_rows(p.num_rows);
  ready->set_num_features(p.num_features);
  ready->set_first_param(p.first);
  ready->set_end_param(p.end);
  ready->set_nonzeros(p.nonzeros);
  log_->info("job {}: owns parameters [{}, {}) of {}", job_->id, p.first, p.end, p.num_features);
  (void)session_.SendToCoordinator(reply);
}

void Scheduler::HandleChordRequest(const proto::Envelope& e) {
  const uint64_t first = job_->part.first;
  std::vector<uint64_t> ids = job_->builder->Next();
  auto out = MakeEnvelope(transport_.id(), job_->id, e.round());
  auto* chord = out.mutable_chord();
  chord->set_scheduler_rank(job_->rank);
  chord->set_exhausted(ids.empty() && job_->builder->in_flight() == 0);
  chord->set_min_applied(job_->applied_through);
  if (job_->spec.dynamic().dual_pipeline()) chord->set_fresh_count((chord->ids_size() + 1) / 2);
  chord->mutable_ids()->Assign(ids.begin(), ids.end());
  for (uint64_t j : ids) {
    chord->add_values(job_->values[j - first]);
    chord->add_sq_norms(job_->part.store->SquaredNorm(j));
  }
  for (const auto& w : job_->worker_ids) Send(w, out);
  (void)session_.SendToCoordinator(out);
  job_->builder->Prepare();  // the next request finds its chord ready
}

void Scheduler::HandleCommit(const proto::Envelope& e) {
  const auto& c = e.commit();
  if (c.values_size() != c.ids_size() || c.deltas_size() != c.ids_size()) {
    return ReportError("malformed commit of round " + std::to_string(e.round()) + " from " +
                       e.sender());
  }
  job_->applied_through = std::max(job_->applied_through, e.round() + 1);
  for (int k = 0; k < c.ids_size(); ++k) {
    const uint64_t j = c.ids(k);
    if (!job_->part.store->Contains(j)) {
      return ReportError(fmt::format("commit for parameter {} outside [{}, {})", j,
                                     job_->part.first, job_->part.end));
    }
    job_->values[j - job_->part.first] = c.values(k);
    job_->builder->OnCommit(j, c.deltas(k));
  }
}

void Scheduler::HandleGradientSlice(const proto::Envelope& e) {
  const auto& slice = e.gradient_slice();
  const size_t n = job_->values.size();
  if (static_cast<size_t>(slice.values_size()) != n) {
    return ReportError(fmt::format("gradient slice from {} has {} values, partition has {}",
                                   e.sender(), slice.values_size(), n));
  }
  if (job_->slices == 0) {
    job_->gradient.assign(n, 0.0);
    job_->check_round = e.round();
  } else if (e.round() != job_->check_round) {
    return ReportError(
        fmt::format("gradient slices of checks {} and {} mixed", job_->check_round, e.round()));
  }
  for (size_t i = 0; i < n; ++i) job_->gradient[i] += slice.values(static_cast<int>(i));
  ++job_->slices;
  MaybeFinishCheck();
}

void Scheduler::MaybeFinishCheck() {
  if (job_->slices < job_->num_workers || job_->check_requested != job_->check_round) return;
  const size_t n = job_->values.size();
  job_->slices = 0;
  job_->check_requested.reset();
  job_->builder->DropPrepared();  // chosen with the old priorities

  auto out = MakeEnvelope(transport_.id(), job_->id, job_->check_round);
  auto* report = out.mutable_check_report();
  double max_violation = 0, max_gradient = 0, penalty = 0;
  uint64_t nonzeros = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t j = job_->part.first + i;
    const double g = job_->gradient[i];
    const double beta = job_->values[i];
    const double v = job_->app->Violation(g, beta, job_->spec);
    max_violation = std::max(max_violation, v);
    max_gradient = std::max(max_gradient, std::abs(g));
    penalty += job_->app->Penalty(beta, job_->spec);
    nonzeros += beta != 0.0;
    job_->builder->OnCheck(j, v);
  }
  report->set_max_violation(max_violation);
  report->set_max_abs_gradient(max_gradient);
  report->set_penalty(penalty);
  report->set_nonzeros(nonzeros);
  (void)session_.SendToCoordinator(out);
}

void Scheduler::HandleModelRequest(const proto::Envelope& e) {
  auto out = MakeEnvelope(transport_.id(), job_->id, e.round());
  auto* slice = out.mutable_model_slice();
  for (size_t i = 0; i < job_->values.size(); ++i) {
    if (job_->values[i] == 0.0) continue;
    slice->add_ids(job_->part.first + i);
    slice->add_values(job_->values[i]);
  }
  (void)session_.SendToCoordinator(out);
}

void Scheduler::EndJob(const std::string& why) {
  log_->info("job {} ended: {}", job_->id, why);
  load_.Abandon();
  job_.reset();
}

uint64_t Scheduler::CurrentJobId() const {
  if (static_job_.get()) return static_job_.id();
  return job_ ? job_->id : 0;
}

bool Scheduler::RouteStatic(const proto::Envelope& e) {
  if (e.body_case() != proto::Envelope::kJobStart) return static_job_.Route(e, log_);
  auto app = apps_.FindStatic(e.job_start().spec().app());
  if (!app.ok()) return false;  // a dynamic-engine job
  if (job_) EndJob("replaced by job " + std::to_string(e.job_id()));
  static_job_.Replace(
      std::make_unique<StaticHomeJob>(transport_, session_, log_, e.job_id(), e.job_start(), *app),
      log_, "replaced by job " + std::to_string(e.job_id()));
  return true;
}

}  // namespace strads
