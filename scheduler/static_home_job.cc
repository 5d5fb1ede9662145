#include "scheduler/static_home_job.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/protocol.h"
#include "engine/static_wire.h"

namespace strads {

StaticHomeJob::StaticHomeJob(const JobContext& context, const StaticApp* app)
    : StaticMemberJob(context, app, "home") {
  for (uint32_t b = rank_; b < plan_.blocks(); b += num_schedulers_) owned_.push_back(b);
  log_->info("job {}: loading the home of {} of {} blocks of {}", id_, owned_.size(),
             plan_.blocks(), spec_.data_path());
  load_.Start([app = app_, spec = spec_, rank = rank_, schedulers = num_schedulers_,
               workers = plan_.workers(), blocks = plan_.blocks()] {
    return app->LoadHome(spec, rank, schedulers, workers, blocks);
  });
}

StaticHomeJob::~StaticHomeJob() = default;

void StaticHomeJob::OnTick() {
  if (auto loaded = load_.Poll()) FinishLoading(std::move(*loaded));
}

void StaticHomeJob::FinishLoading(Result<std::unique_ptr<StaticHome>> loaded) {
  if (!loaded.ok()) return errors_.Report(loaded.status().message());
  home_ = std::move(loaded).value();
  auto reply = JobEnvelope();
  reply.mutable_ready();
  log_->info("job {}: home of {} blocks loaded", id_, owned_.size());
  (void)session_.SendToCoordinator(reply);
}

bool StaticHomeJob::Handle(const proto::Envelope& e) {
  if (!home_) {
    errors_.Report(BodyName(e) + " arrived before the home was loaded");
    return true;
  }
  switch (e.body_case()) {
    case proto::Envelope::kPassStart:
      HandlePassStart(e);
      return true;
    default:
      return false;
  }
}

void StaticHomeJob::HandlePassStart(const proto::Envelope& e) {
  const auto& p = e.pass_start();
  if (in_pass_) return errors_.Report("a pass started before every block was home");
  if (p.pass() >= passes_)
    return errors_.Report(fmt::format("pass {} is outside the plan", p.pass()));
  step_ = StaticStep{p.iteration(), p.pass(), 0, p.pass() + 1 == passes_};
  in_pass_ = true;
  away_ = static_cast<uint32_t>(owned_.size());
  for (uint32_t b : owned_) {
    auto block = home_->TakeBlock(b, step_);
    if (!block.ok()) return errors_.Report(block.status().message());
    const auto visit = plan_.FirstVisit(b);
    block->id = b;
    const auto out = BlockTransferEnvelope(transport_.id(), id_, epoch_, step_.iteration,
                                           step_.pass, visit.sub_round, *block);
    if (Status st = transport_.Send(worker_ids_[visit.worker], out); !st.ok()) {
      return errors_.ReportLostPeer(worker_ids_[visit.worker],
                                    fmt::format("cannot send block {} to {}: {}", b,
                                                worker_ids_[visit.worker], st.message()));
    }
  }
  if (away_ == 0) SendPassDone();
}

void StaticHomeJob::HandleBlock(const proto::Envelope& e) {
  const auto& t = e.block_transfer();
  const uint32_t b = t.block().block();
  if (!in_pass_ || t.iteration() != step_.iteration || t.pass() != step_.pass ||
      b % num_schedulers_ != rank_ || b >= plan_.blocks() || away_ == 0) {
    return errors_.Report(fmt::format("unexpected block {} (iteration {}, pass {}) from {}", b,
                                      t.iteration(), t.pass(), e.sender()));
  }
  StaticBlock block = BlockFromProto(t.block());
  StaticStep step = step_;
  step.sub_round = plan_.sub_rounds() - 1;
  if (Status st = home_->ReturnBlock(std::move(block), step); !st.ok()) {
    return errors_.Report(st.message());
  }
  if (--away_ == 0) SendPassDone();
}

void StaticHomeJob::SendPassDone() {
  in_pass_ = false;
  auto e = JobEnvelope();
  auto* done = e.mutable_pass_done();
  done->set_iteration(step_.iteration);
  done->set_pass(step_.pass);
  if (step_.evaluation) {
    std::map<std::string, double> metrics;
    home_->Metrics(metrics);
    MetricsToProto(metrics, done->mutable_metrics());
  }
  (void)session_.SendToCoordinator(e);
}

}  // namespace strads
