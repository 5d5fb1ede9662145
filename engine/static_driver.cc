#include "engine/static_driver.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "engine/rotation_plan.h"

namespace strads {

Result<StaticLocalResult> RunStaticLocally(const StaticApp& app, const proto::JobSpec& spec,
                                           const StaticLocalOptions& options) {
  STRADS_RETURN_IF_ERROR(app.Validate(spec));
  if (options.workers == 0 || options.schedulers == 0) {
    return Status::InvalidArgument("RunStaticLocally needs at least one worker and one scheduler");
  }
  const RotationPlan plan(options.workers,
                          std::max<uint32_t>(1, spec.static_engine().blocks_per_worker()));
  const uint32_t P = plan.workers(), S = options.schedulers, B = plan.blocks();

  std::vector<std::unique_ptr<StaticShard>> shards;
  std::vector<std::unique_ptr<StaticHome>> homes;
  for (uint32_t w = 0; w < P; ++w) {
    STRADS_ASSIGN_OR_RETURN(auto shard, app.LoadShard(spec, w, P, B));
    shards.push_back(std::move(shard));
  }
  for (uint32_t s = 0; s < S; ++s) {
    STRADS_ASSIGN_OR_RETURN(auto home, app.LoadHome(spec, s, S, P, B));
    homes.push_back(std::move(home));
  }
  std::vector<StaticShard*> shard_ptrs;
  std::vector<StaticHome*> home_ptrs;
  for (auto& s : shards) shard_ptrs.push_back(s.get());
  for (auto& h : homes) home_ptrs.push_back(h.get());

  const uint32_t A = app.NumAggregates(spec);
  std::vector<double> aggregates(A, 0.0);
  for (auto& shard : shards) {
    const auto initial = shard->InitialAggregates();
    if (initial.size() != A) return Status::Internal("InitialAggregates has the wrong size");
    for (uint32_t a = 0; a < A; ++a) aggregates[a] += initial[a];
  }

  uint64_t first_iteration = 0;
  if (options.resume) {
    if (!app.Checkpoints(spec)) return Status::FailedPrecondition("this app has no checkpoints");
    if (options.resume->aggregates.size() != A) {
      return Status::InvalidArgument("the checkpoint has the wrong number of aggregates");
    }
    for (auto& shard : shards) STRADS_RETURN_IF_ERROR(shard->RestoreState(options.resume->pieces));
    for (auto& home : homes) STRADS_RETURN_IF_ERROR(home->RestoreState(options.resume->pieces));
    aggregates = options.resume->aggregates;
    first_iteration = options.resume->iteration + 1;
  }

  StaticLocalResult result;
  result.trace.push_back(app.TraceHeader());
  const uint32_t passes = app.PassesPerIteration(spec);
  std::vector<double> delta(A), next(A);

  for (uint64_t iteration = first_iteration; iteration <= spec.static_engine().iterations();
       ++iteration) {
    const bool evaluates = EvaluatesIn(iteration, spec.static_engine().iterations(),
                                       spec.static_engine().eval_every());
    const uint32_t first_pass = iteration == 0 ? passes - 1 : 0;
    const uint32_t end_pass = evaluates ? passes : passes - 1;
    for (uint32_t pass = first_pass; pass < end_pass; ++pass) {
      StaticStep step{iteration, pass, 0, pass + 1 == passes};
      std::vector<std::optional<StaticBlock>> blocks(B);
      for (uint32_t b = 0; b < B; ++b) {
        STRADS_ASSIGN_OR_RETURN(auto block, homes[b % S]->TakeBlock(b, step));
        blocks[b] = std::move(block);
      }
      for (uint32_t r = 0; r < plan.sub_rounds(); ++r) {
        step.sub_round = r;
        next = aggregates;
        std::vector<StaticBlock*> held;
        for (uint32_t w = 0; w < P; ++w) {
          StaticBlock& block = *blocks[plan.Block(r, w)];
          std::fill(delta.begin(), delta.end(), 0.0);
          STRADS_ASSIGN_OR_RETURN(auto work, shards[w]->Process(step, aggregates, block, delta));
          if (!step.evaluation) result.work += work;
          for (uint32_t a = 0; a < A; ++a) next[a] += delta[a];
          held.push_back(&block);
        }
        aggregates = next;
        if (options.after_sub_round) {
          STRADS_RETURN_IF_ERROR(options.after_sub_round(step, shard_ptrs, home_ptrs, held));
        }
      }
      step.sub_round = plan.sub_rounds() - 1;
      for (auto& shard : shards) shard->EndPass(step);
      for (uint32_t b = 0; b < B; ++b) {
        STRADS_RETURN_IF_ERROR(homes[b % S]->ReturnBlock(std::move(*blocks[b]), step));
      }
    }
    if (options.after_iteration) {
      STRADS_RETURN_IF_ERROR(options.after_iteration(iteration, shard_ptrs, home_ptrs, aggregates));
    }
    if (!evaluates) continue;
    std::map<std::string, double> metrics;
    for (auto& shard : shards) shard->Metrics(metrics);
    for (auto& home : homes) home->Metrics(metrics);
    result.trace.push_back(app.TraceRow(0.0, iteration, result.work, metrics));
    const bool stop =
        iteration < spec.static_engine().iterations() && app.StopsAfter(spec, iteration, metrics);
    result.metrics.push_back(std::move(metrics));
    if (stop) {
      result.stopped_early = true;
      break;
    }
  }

  std::vector<proto::OutputPiece> pieces;
  for (auto& shard : shards) shard->Output(pieces);
  for (auto& home : homes) home->Output(pieces);
  STRADS_ASSIGN_OR_RETURN(auto files, app.Assemble(spec, pieces));
  result.files = std::move(files);
  result.aggregates = std::move(aggregates);
  return result;
}

}  // namespace strads
