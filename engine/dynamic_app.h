// The plug-in interface of the dynamic (SAP) engine: what an app such as Lasso provides.
//
// The engine is generic; an app supplies three primitives (DESIGN.md "App interface"):
//   worker side  — ShardModel::Push (partial statistics for the parameters of a chord over the
//                  worker's rows) and ShardModel::Apply (fold committed changes into the rows'
//                  state, e.g. the residual);
//   coordinator  — DynamicApp::Pull (new value of a parameter from the summed statistics);
//   scheduler    — DynamicApp::Violation (optimality of one parameter given its full gradient),
//                  used by the convergence check and to refresh priorities.
// The objective is sum over workers of ShardModel::Loss() plus sum over parameters of
// DynamicApp::Penalty. Implementations are stateless (DynamicApp) or owned by one worker thread
// (ShardModel).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/dataset.h"
#include "common/status.h"
#include "engine/app.h"
#include "strads.pb.h"

namespace strads {

class ShardModel {
 public:
  virtual ~ShardModel() = default;

  // Appends the app's stats_per_param() numbers for each id, in order. Ids past the shard's
  // columns are features this shard never sees: their statistics are zero.
  virtual void Push(std::span<const uint64_t> ids, std::vector<double>& out) const = 0;

  // Applies committed changes new_value - old_value of each id to the per-row state.
  virtual void Apply(std::span<const uint64_t> ids, std::span<const double> deltas) = 0;

  // The shard's loss term under every change applied so far.
  virtual double Loss() const = 0;

  // Recomputes the loss from scratch (removes floating drift of incremental updates).
  virtual double ExactLoss() = 0;

  // out[j - first] = d Loss / d beta_j over this shard, for j in [first, end).
  virtual void Gradient(uint64_t first, uint64_t end, std::span<double> out) const = 0;

  // App-defined sums over the shard under the current model (e.g. {"correct": 93, "rows": 100}),
  // reported at every optimality check and summed over the workers. Default: none.
  virtual void Metrics(std::map<std::string, double>& out) const {}
};

class DynamicApp : public App {
 public:
  proto::Engine engine() const final { return proto::ENGINE_DYNAMIC; }
  const DynamicApp* AsDynamic() const final { return this; }

  // Numbers pushed per parameter (Lasso: 1, x_j^T r; logistic: 2, g_j and h_j).
  virtual uint32_t stats_per_param() const = 0;

  // Takes ownership of a loaded shard; the model starts at beta = 0.
  virtual Result<std::unique_ptr<ShardModel>> MakeShard(Dataset shard,
                                                        const proto::JobSpec& spec) const = 0;

  // New value of a parameter from the statistics summed over all shards, the squared norm of its
  // column over all rows and its current value.
  virtual double Pull(std::span<const double> stats, double sq_norm, double value,
                      const proto::JobSpec& spec) const = 0;

  // Distance from optimality of one parameter, given the full gradient of the loss.
  virtual double Violation(double gradient, double value, const proto::JobSpec& spec) const = 0;

  // The regulariser's term for one parameter.
  virtual double Penalty(double value, const proto::JobSpec& spec) const = 0;

  // Adds app fields to summary.json from the workers' summed Metrics at the last check (e.g.
  // "training_accuracy"). Default: nothing.
  virtual void Summarize(const std::map<std::string, double>& metrics,
                         nlohmann::ordered_json& summary) const {}
};

}  // namespace strads
