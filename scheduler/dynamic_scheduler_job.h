// DynamicSchedulerJob: a scheduler's part of a dynamic-engine job (lasso, logistic, svm): the
// home of one disjoint partition of the parameters, and the source of the chords of the rounds t
// with t mod S == its rank.
//
// It derives the partition [first, end) from the column weights (the same deterministic
// PartitionByWeight on every scheduler) on a background thread and answers Ready. The weights are
// the workers' counts of the file's columns (ColumnCounts, summed by the coordinator; the load
// starts when they arrive). With the dependency filter (rho < 1) it keeps its own columns;
// without it, their squared norms only, sent by the workers with the first check's gradient
// slices (where, without the filter or a grouping, it never reads the file). Then:
//  - ChordRequest(t): the next chord from the ChordBuilder, with the parameters' current values,
//    to the workers (each its own parameters) and the coordinator;
//  - Commit(t): new values, and the priorities of the committed parameters; a commit that
//    requests_chord is then answered as a ChordRequest for its chord_round;
//  - GradientSlice x P and CheckRequest: the optimality check of its partition (CheckReport to
//    the coordinator), which also refreshes every priority; a check request that requests_chord
//    is then answered as a ChordRequest for its chord_round, right after the report;
//  - ModelRequest: its nonzero parameters.
// The workers own blocks of its range (NestedPartitionByWeight), or groups of correlated
// features where those are cheap to find (engine/feature_grouping.h: it groups its range while it
// loads, and its Ready carries the owners to the workers through the coordinator), and the
// dependency filter separates only parameters of different workers: one worker's share of a
// chord is updated sequentially, exactly.
// Failures of its part go to the coordinator through a JobErrorReport.
// Thread-compatibility: used by the scheduler's event loop only.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/background_load.h"
#include "common/data_loader.h"
#include "common/huge_pages.h"
#include "engine/column_owners.h"
#include "engine/dynamic_member_job.h"
#include "engine/neighbour_lists.h"
#include "scheduler/chord_builder.h"

namespace strads {

class DynamicSchedulerJob final : public DynamicMemberJob {
 public:
  // Starts loading partition start.rank() of start.num_schedulers().
  DynamicSchedulerJob(const JobContext& context, const DynamicApp* app);
  ~DynamicSchedulerJob() override;

  void OnTick() override;
  // Whether the next chord is built ahead of its request (for tests).
  bool chord_prepared() const { return builder_ && builder_->prepared(); }

 private:
  // What the background load produces.
  struct Partition {
    uint64_t num_rows = 0;
    uint64_t num_features = 0;
    uint64_t first = 0;
    uint64_t end = 0;
    uint64_t nonzeros = 0;
    std::unique_ptr<ColumnStore> store;
    // The dependency filter's neighbour lists at the job's rho, when they fit their budget
    // (engine/neighbour_lists.h); `neighbours_note` says what was built, or why not, for the log.
    std::unique_ptr<NeighbourLists> neighbours;
    // Whether the dependency filter runs (rho < 1 where it can keep anything out; by default
    // only on dense data).
    bool filtered = false;
    std::string neighbours_note;
    // The worker of each parameter (engine/column_owners.h): the chord's
    // routing, and the dependency filter's groups (one a worker); `owners_note` says whether
    // this range was grouped, for the log.
    ColumnOwners owners;
    std::string owners_note;
    // The store's squared norms come with the first check's gradient slices (without a
    // dependency filter: the workers hold the columns).
    bool norms_pending = false;
  };

  // Derives partition `rank` of `parts` from the columns' entry counts (the workers', summed);
  // reads the partition's columns where the filter or the grouping needs them (background
  // thread).
  static Result<Partition> LoadPartition(const DataSource& source, const proto::JobSpec& spec,
                                         uint32_t rank, uint32_t parts, uint32_t workers,
                                         CountedColumns given);
  // Starts the load from the workers' counts, summed by the coordinator.
  void HandleColumnCounts(const proto::Envelope& e) override;
  bool data_loaded() const override { return builder_ != nullptr; }
  void Handle(const proto::Envelope& e) override;
  void FinishLoading(Result<Partition> loaded);
  // A chord's messages: the whole chord (the coordinator's, and every worker's where `shares` is
  // empty) and each worker's share; without their round and min_applied,
  // which SendChord stamps.
  struct ChordMessages {
    proto::Envelope whole;
    std::vector<proto::Envelope> shares;
  };
  ChordMessages MakeChord(std::span<const uint64_t> ids) const;
  // Sends a chord as round `round`'s, built on every commit of a round < applied_through_, in the
  // dual pipeline's stale lane where `stale_lane`: to the coordinator (whole), then to the workers.
  void SendChord(ChordMessages&& m, uint64_t round, bool stale_lane);
  // Drops the chord built ahead and its messages (a check changes the priorities).
  void DropPrepared();
  // Answers the request for round `round`'s chord (a ChordRequest, or a commit that carries one),
  // in order after any request still waiting (ServeWaiting).
  void BuildChord(uint64_t round);
  // Answers the waiting requests in round order while there is something to schedule. A chord
  // that would be empty while some of this scheduler's parameters are in flight waits for their
  // commit instead: with a pipeline deeper than the schedulers and a range that fits in one
  // chord (Lasso's default depth 2 on the 442 x 64 diabetes data, 1 scheduler), every other
  // round was empty, a round trip for nothing.
  void ServeWaiting();
  // Builds and sends round `round`'s chord; false, having sent nothing, if it would be empty
  // while parameters are in flight. Then, if `prepare_next`, builds the next one ahead
  // (PrepareNext); a caller that still has commits to apply passes false and calls PrepareNext
  // once they are.
  bool TrySendChord(uint64_t round, bool prepare_next);
  // Builds the next chord ahead of its request, with its messages, unless it is predicted to be
  // the first after a check or the chords in flight hold over a quarter of the partition
  // (ChordBuilder::AheadDrawsWhole; the rules are explained in the definition).
  void PrepareNext();
  void HandleCommit(const proto::Envelope& e);
  void HandleGradientSlice(const proto::Envelope& e);
  void HandleModelRequest(const proto::Envelope& e);
  void Send(const std::string& to, const proto::Envelope& e);
  void Send(const std::string& to, proto::Envelope&& e);  // moves e's arrays to the wire
  // Evaluates the check once its request and every worker's slice are in.
  void MaybeFinishCheck();

  std::vector<std::string> worker_ids_;
  Partition part_;
  // --active-worker with a dependency filter: its groups follow the parameters' values.
  bool active_groups_ = false;
  std::unique_ptr<ChordBuilder> builder_;
  HugePageVector<double> values_;  // by local index
  // Check in progress: the sum of the slices received; once evaluated, the violations.
  std::vector<double> gradient_;
  uint32_t slices_ = 0;
  uint64_t check_round_ = 0;
  // The coordinator's CheckRequest travels behind the commits on one channel, the workers'
  // slices on others: a check is evaluated only once both are in, so the values it reads
  // reflect every commit before it.
  std::optional<uint64_t> check_requested_;
  // The round asked for with the check in progress (CheckRequest.requests_chord): its chord is
  // built once the check is reported.
  std::optional<uint64_t> chord_after_check_;
  // This scheduler's chords since the last check finished, and between the two checks before
  // (kUnknown: none yet, or none came between them). See PrepareNext.
  static constexpr uint64_t kUnknown = ~uint64_t{0};
  uint64_t chords_since_check_ = 0;
  uint64_t last_interval_ = kUnknown;
  // Rounds < applied_through_: every commit sent here applied, or, while HandleCommit sends the
  // chord built ahead before applying the commit of applied_through_ - 1, touching none of that
  // chord's parameters (so its min_applied holds for the values it carries).
  uint64_t applied_through_ = 0;
  // The messages of the chord built ahead (PrepareNext), while it is.
  std::optional<ChordMessages> prepared_messages_;
  std::deque<uint64_t> waiting_;           // requested rounds not answered yet, ascending
  BackgroundLoad<Partition> load_{work_};  // last member: destroyed (waited for) first
};

}  // namespace strads
