// DynamicWorkerJob: a worker's part of a dynamic-engine job (lasso, logistic, svm).
//
// Owner-computes: it holds the full columns of the features it owns and a replica of the shared
// vector over every row (Lasso: the residual; logistic, SVM: the margins). The features are cut
// by NestedPartitionByWeight (S schedulers x P workers, by non-zeros): it owns block `rank` of
// every scheduler's range, so every chord gives it work. A range whose scheduler may group its
// correlated features (engine/feature_grouping.h) it loads whole; Begin then brings the
// scheduler's grouping, and it keeps its own columns of it.
//  - Its load runs in two background steps, so heartbeats continue: a pass that counts every
//    column's entries in its part of the file (a libsvm file is cut into P byte ranges,
//    CountColumnEntriesPart), then one that keeps its columns. Between them it sends its part's
//    counts (ColumnCounts) to the coordinator, which sums the P parts and sends the whole file's
//    counts to every scheduler and worker: the file is counted once, by the workers together.
//    Then it answers Ready (rank 0 with the starting replica, for the coordinator's own).
//  - On Chord(t), once it has applied every shared update of the rounds before t, it updates the
//    chord ids it owns sequentially (ColumnModel::Update) and sends ColumnPartials (new values,
//    change of the shared vector); a pipeline depth D > 1 only lets chords arrive ahead.
//  - On SharedUpdate(t), in round order, it adds the summed change to its replica.
//  - With --aggregation tree (engine/share_tree.h) its share goes to its parent in the tree of
//    workers, combined with its children's (the root's to the coordinator), and it forwards each
//    SharedUpdate and CheckRequest, which come from its parent (the root's from the coordinator),
//    to its children before handling them; its LossReport goes up once its children's are in,
//    their metrics summed.
//  - On CheckRequest it sends each scheduler the gradient slice of the features it owns (0
//    elsewhere); rank 0 reports the metrics of the replica to the coordinator, the others an
//    empty report.
// Failures of its part go to the coordinator through a JobErrorReport.
// Thread-compatibility: used by the worker's event loop only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/background_load.h"
#include "common/data_loader.h"
#include "common/dataset.h"
#include "engine/column_owners.h"
#include "engine/dynamic_member_job.h"
#include "engine/share_tree.h"

namespace strads {

class DynamicWorkerJob final : public DynamicMemberJob {
 public:
  // Starts loading shard start.rank() of start.num_workers().
  DynamicWorkerJob(const JobContext& context, const DynamicApp* app);
  ~DynamicWorkerJob() override;

  void OnTick() override;

  // Test hooks: the number of rounds whose shared updates are applied, and of chords waiting.
  uint64_t applied_rounds() const { return applied_; }
  size_t pending_chords() const { return pending_.size(); }

 private:
  // What the background load produces: the data, the owners of the features
  // (engine/column_owners.h) as blocks, and the scheduler ranges it holds whole because their
  // schedulers may group them (engine/feature_grouping.h).
  struct Loaded {
    Dataset data;
    ColumnOwners owners;
    std::vector<uint32_t> whole_ranges;
    std::vector<char> active_ranges;  // by scheduler rank: this worker is the range's active one
  };
  // The counting pass over part `rank` of the file, then (with the whole file's counts) the pass
  // that keeps this worker's columns.
  static Result<CountedColumns> Count(const DataSource& source, uint32_t rank, uint32_t workers);
  static Result<Loaded> LoadColumns(const DataSource& source, const proto::JobSpec& spec,
                                    uint32_t rank, uint32_t schedulers, uint32_t workers,
                                    const CountedColumns& counted);
  // Sends its part's counts to the coordinator; the columns load once the whole file's are in.
  void FinishCounting(Result<CountedColumns> counted);
  // The whole file's counts (the coordinator's sum of the workers' parts).
  void HandleColumnCounts(const proto::Envelope& e) override;
  bool data_loaded() const override { return columns_ != nullptr; }
  void Handle(const proto::Envelope& e) override;
  void MaybeLoadColumns();
  void FinishLoading(Result<Loaded> loaded);
  // The spec a column model is made from: the job's with its number of workers filled in (the
  // share's passes depend on it, SharePassesOf).
  proto::JobSpec ModelSpec() const;
  void HandleBegin(const proto::Envelope& e);
  // Takes the groupings Begin carries (Ready.owners of each scheduler) and, if
  // any, restarts the model on this worker's columns of the ranges held whole.
  Status AdoptGroupings(const proto::Begin& begin);
  void HandleCheck(const proto::Envelope& e);
  // Computes the share of every waiting chord whose earlier rounds are applied, in round order.
  void ComputeEligibleChords();
  // Updates the chord's ids this worker owns and sends ColumnPartials (in a tree, combines them).
  void ComputeColumnShare(uint64_t round, const proto::Chord& chord);
  // A tree: a child's share of its subtree; and the share of this worker's, once complete, to its
  // parent (the root's to the coordinator).
  void HandleChildShare(const proto::Envelope& e);
  void SendShareUp(uint64_t round, proto::ColumnPartials share);
  void HandleSharedUpdate(const proto::Envelope& e);
  // A tree: sends `e` (a SharedUpdate, a CheckRequest) on to every child; false (and reported)
  // if one is unreachable.
  bool ForwardDown(const proto::Envelope& e);
  // A tree: a child's loss report of its subtree; and this worker's own, summed with its
  // children's, to its parent (the root's to the coordinator) once all are in.
  void HandleChildReport(const proto::Envelope& e);
  void AddReport(uint64_t round, const proto::LossReport& report);
  // A resumed job's round 0: the change of the shared vector that the
  // checkpointed values of its parameters make (the replica changes with SharedUpdate(0)).
  void HandleRestore(const proto::Envelope& e);
  // Refuses a commit or shared update that is not the next round's.
  bool InOrder(const proto::Envelope& e);

  std::unique_ptr<ColumnModel> columns_;  // null until loaded
  ColumnOwners owners_;                   // see Loaded
  // From loading until Begin: the columns of the ranges held whole (with this
  // worker's blocks of the others), and which ranges those are.
  std::unique_ptr<Dataset> whole_;
  std::vector<uint32_t> whole_ranges_;
  // --active-worker: by scheduler rank, whether this worker is the range's active worker (it
  // holds the range's columns whole and takes shares of parameters it does not own).
  std::vector<char> active_ranges_;
  // Until the first check's gradient slices carry them: the owned columns' squared norms (a
  // scheduler without the dependency filter parses no value of the file).
  bool norms_unsent_ = false;
  std::unique_ptr<DeltaAccumulator> change_;  // scratch for one share
  // --aggregation tree: the tree, this worker's combiner (made with the model), and the ids of its
  // parent (empty at the root: the coordinator) and children.
  std::optional<ShareTree> tree_;
  std::unique_ptr<ShareCombiner> combiner_;
  std::string parent_id_;
  std::vector<std::string> child_ids_;  // by position in tree_->Children(rank_)
  // A tree: the loss reports of this subtree by check round (metrics summed, how many are in),
  // and a CheckRequest that came before Begin.
  struct ReportsUp {
    std::map<std::string, double> metrics;
    size_t in = 0;
  };
  std::map<uint64_t, ReportsUp> reports_up_;
  std::optional<proto::Envelope> deferred_check_;
  std::vector<uint64_t> partition_starts_;
  std::vector<std::string> scheduler_ids_;
  uint64_t applied_ = 0;                      // shared updates of rounds < applied_ are applied
  std::map<uint64_t, proto::Chord> pending_;  // chords waiting for the rounds before them
  bool counted_ = false;                      // its part's counts are sent
  std::optional<CountedColumns> totals_;      // the whole file's, until the load starts
  // Last members: destroyed (waited for) first.
  BackgroundLoad<CountedColumns> count_{work_};  // the first step
  BackgroundLoad<Loaded> load_{work_};
};

}  // namespace strads
