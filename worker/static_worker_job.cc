#include "worker/static_worker_job.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "common/protocol.h"
#include "engine/static_wire.h"

namespace strads {

StaticWorkerJob::StaticWorkerJob(const JobContext& context, const StaticApp* app)
    : StaticMemberJob(context, app, "shard") {
  ConnectPeers(context.start.scheduler_ids(), context.start.scheduler_endpoints());
  log_->info("job {}: loading {} shard {}/{} of {}", id_, app_->name(), rank_, plan_.workers(),
             spec_.data_path());
  load_.Start([app = app_, spec = spec_, rank = rank_, workers = plan_.workers(),
               blocks = plan_.blocks()] { return app->LoadShard(spec, rank, workers, blocks); });
}

StaticWorkerJob::~StaticWorkerJob() = default;

void StaticWorkerJob::FinishLoading(Result<std::unique_ptr<StaticShard>> loaded) {
  if (!loaded.ok()) return errors_.Report(loaded.status().message());
  auto reply = JobEnvelope();
  auto* ready = reply.mutable_ready();
  shard_ = std::move(loaded).value();
  ready->set_num_rows(shard_->rows());
  ready->set_num_features(shard_->items());
  ready->set_nonzeros(shard_->work());
  const auto initial = shard_->InitialAggregates();
  ready->mutable_aggregates()->Assign(initial.begin(), initial.end());
  log_->info("job {}: shard loaded ({} rows, {} work units)", id_, shard_->rows(), shard_->work());
  (void)session_.SendToCoordinator(reply);
}

bool StaticWorkerJob::Handle(const proto::Envelope& e) {
  switch (e.body_case()) {
    case proto::Envelope::kBegin:
      HandleBegin(e);
      return true;
    case proto::Envelope::kSubRoundStart:
      if (start_) {
        errors_.Report(fmt::format("sub-round {} started before sub-round {} was done",
                                   e.sub_round_start().sub_round(), start_->sub_round()));
        return true;
      }
      start_ = e.sub_round_start();
      TryProcess();
      return true;
    default:
      return false;
  }
}

void StaticWorkerJob::HandleBegin(const proto::Envelope& e) {
  const auto& begin = e.begin();
  scheduler_ids_.assign(begin.scheduler_ids().begin(), begin.scheduler_ids().end());
  for (int s = 0; s < begin.scheduler_ids_size() && s < begin.scheduler_endpoints_size(); ++s) {
    if (Status st = transport_.Connect(begin.scheduler_ids(s), begin.scheduler_endpoints(s));
        !st.ok()) {
      return errors_.Report(st.message());
    }
  }
}

void StaticWorkerJob::HandleBlock(const proto::Envelope& e) {
  const auto& t = e.block_transfer();
  const auto& data = t.block();
  if (data.block() >= plan_.blocks() || t.pass() >= passes_) {
    return errors_.Report(
        fmt::format("received block {} of pass {} from {}; the plan has {} blocks", data.block(),
                    t.pass(), e.sender(), plan_.blocks()));
  }
  blocks_[{t.iteration(), t.pass(), data.block()}] = BlockFromProto(data);
  TryProcess();
}

void StaticWorkerJob::TryProcess() {
  if (!start_ || !shard_ || compute_.valid()) return;
  const uint64_t iteration = start_->iteration();
  const uint32_t pass = start_->pass(), r = start_->sub_round();
  if (r >= plan_.sub_rounds() || pass >= passes_) {
    return errors_.Report(fmt::format("sub-round {} of pass {} is outside the plan", r, pass));
  }
  const uint32_t b = plan_.Block(r, rank_);
  auto it = blocks_.find({iteration, pass, b});
  if (it == blocks_.end()) return;  // the block is still on its way
  Computed work;
  work.step = StaticStep{iteration, pass, r, pass + 1 == passes_};
  work.block = std::move(it->second);
  blocks_.erase(it);
  std::vector<double> aggregates(start_->aggregates().begin(), start_->aggregates().end());
  start_.reset();

  // The sub-round runs on its own thread (inline in unit tests) so the event loop goes on
  // (heartbeats) however long it takes; the shard is touched by that thread alone until it is
  // collected. A short sub-round is collected at once, without a round trip through the loop.
  const bool last = r + 1 == plan_.sub_rounds();
  compute_ = Launch(work_.execution(), [shard = shard_.get(), last,
                                        aggregates = std::move(aggregates),
                                        work = std::move(work)]() mutable {
    work.delta.assign(aggregates.size(), 0.0);
    const auto began = std::chrono::steady_clock::now();
    work.work = shard->Process(work.step, aggregates, work.block, work.delta);
    // The worker's last sub-round of the pass: every block has been here once.
    if (work.work.ok() && last) shard->EndPass(work.step);
    if (work.work.ok() && last && work.step.evaluation) shard->Metrics(work.metrics);
    work.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return work;
  });
  if (compute_.wait_for(std::chrono::milliseconds(200)) == std::future_status::ready) Collect();
}

void StaticWorkerJob::OnTick() {
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
  if (compute_.valid() && compute_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    Collect();
  }
}

void StaticWorkerJob::Collect() {
  Computed c = compute_.get();
  if (!c.work.ok()) return errors_.Report(c.work.status().message());
  const uint64_t iteration = c.step.iteration;
  const uint32_t pass = c.step.pass, r = c.step.sub_round, b = c.block.id;

  // On to the next holder in this pass, or home.
  const auto next = plan_.NextVisit(r, b);
  if (next.sub_round > r) {
    if (next.worker == rank_) {
      blocks_[{iteration, pass, b}] = std::move(c.block);
    } else {
      SendBlock(worker_ids_[next.worker], iteration, pass, next.sub_round, std::move(c.block));
    }
  } else {
    if (scheduler_ids_.empty()) return errors_.Report("a block must go home before Begin arrived");
    SendBlock(scheduler_ids_[b % scheduler_ids_.size()], iteration, pass, plan_.sub_rounds(),
              std::move(c.block));
  }
  if (errors_.failed()) return;

  auto e = JobEnvelope();
  auto* done = e.mutable_sub_round_done();
  done->set_iteration(iteration);
  done->set_pass(pass);
  done->set_sub_round(r);
  done->set_block(b);
  done->mutable_delta()->Assign(c.delta.begin(), c.delta.end());
  done->set_seconds(c.seconds);
  done->set_work(*c.work);
  MetricsToProto(c.metrics, done->mutable_metrics());
  (void)session_.SendToCoordinator(e);
}

void StaticWorkerJob::SendBlock(const std::string& to, uint64_t iteration, uint32_t pass,
                                uint32_t sub_round, StaticBlock block) {
  const auto e =
      BlockTransferEnvelope(transport_.id(), id_, epoch_, iteration, pass, sub_round, block);
  if (Status st = transport_.Send(to, e); !st.ok()) {
    errors_.ReportLostPeer(
        to, fmt::format("cannot send block {} to {}: {}", block.id, to, st.message()));
  }
}

}  // namespace strads
