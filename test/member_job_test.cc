// Unit tests of the four member jobs (engine/member_job.h), each driven message by message over
// the in-process transport: no sockets, no coordinator, no threads. The test plays the
// coordinator and the peers. The jobs run their loads and sub-rounds inline (Execution::kInline),
// so when a call into a job returns, everything it leads to is in the peers' mailboxes: a test
// reads them without waiting, and an empty one means that nothing was sent. Fake apps keep the
// jobs' own logic in view: a dynamic model whose updates say how many shared updates it had
// applied, and a static app whose blocks record the sub-rounds they were worked on in.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "app_stub.h"
#include "apps/linear.pb.h"
#include "apps/linear/lasso_loss.h"
#include "apps/linear/linear_model_app.h"
#include "common/column_selection.h"
#include "common/data_loader.h"
#include "common/inproc_transport.h"
#include "common/member_session.h"
#include "common/protocol.h"
#include "engine/column_owners.h"
#include "engine/dynamic_spec.h"
#include "engine/rotation_plan.h"
#include "engine/static_wire.h"
#include "engine/vector_delta.h"
#include "member_messages.h"
#include "scheduler/dynamic_scheduler_job.h"
#include "scheduler/static_home_job.h"
#include "temp_dir.h"
#include "test/app_params_edit.h"
#include "worker/dynamic_worker_job.h"
#include "worker/static_worker_job.h"

namespace strads {
namespace {

using std::chrono::milliseconds;
using strads::testing::EditAppParams;

// A worker's model whose new value of a parameter is its value plus the number of shared updates
// applied so far (what its share saw); its gradient is 1 everywhere.
class FakeColumnModel : public ColumnModel {
 public:
  explicit FakeColumnModel(uint64_t rows) : rows_(rows) {}
  double Loss() const override { return 0; }
  double ExactLoss() override { return 0; }
  void Gradient(uint64_t, uint64_t, std::span<double> out) const override {
    for (auto& g : out) g = 1.0;
  }
  void Update(std::span<const uint64_t>, std::span<const double> values,
              std::vector<double>& updated, DeltaAccumulator&) override {
    for (double v : values) updated.push_back(v + static_cast<double>(applied_));
  }
  void Shift(std::span<const uint64_t>, std::span<const double>, DeltaAccumulator&) const override {
  }
  void ApplyShared(const proto::VectorDelta&) override { ++applied_; }
  uint64_t shared_size() const override { return rows_; }
  double SquaredNorm(uint64_t) const override { return 1.0; }
  void ExportShared(proto::SharedRows& out) const override {
    for (uint64_t i = 0; i < rows_; ++i) {
      out.add_labels(0.0);
      out.add_values(0.0);
    }
  }

 private:
  uint64_t rows_;
  uint64_t applied_ = 0;
};

class FakeDynamicApp : public testing::AppStub<DynamicApp> {
 public:
  std::string name() const override { return "fake-dynamic"; }
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset columns,
                                                       const proto::JobSpec&) const override {
    return std::unique_ptr<ColumnModel>(
        std::make_unique<FakeColumnModel>(static_cast<uint64_t>(columns.x.rows())));
  }
  double Violation(double gradient, double, const proto::JobSpec&) const override {
    return std::abs(gradient);
  }
  double Penalty(double value, const proto::JobSpec&) const override { return std::abs(value); }
  double PenaltySlope(double value, double d, const proto::JobSpec&) const override {
    return value > 0 ? d : value < 0 ? -d : std::abs(d);
  }
  double LossSlope(double, double) const override { return 0; }
  double Loss(std::span<const double>, std::span<const double>) const override { return 0; }
};

// Blocks record the sub-rounds they were worked on in (ints); homes the blocks that came back.
class FakeStaticShard : public StaticShard {
 public:
  uint64_t rows() const override { return 1; }
  uint64_t items() const override { return 1; }
  uint64_t work() const override { return 1; }
  std::vector<double> InitialAggregates() const override { return {0.0}; }
  Result<uint64_t> Process(const StaticStep& step, std::span<const double>, StaticBlock& block,
                           std::span<double> delta) override {
    block.ints.push_back(step.sub_round);
    delta[0] += 1;
    return uint64_t{1};
  }
  void Metrics(std::map<std::string, double>&) const override {}
  void Output(std::vector<proto::OutputPiece>&) const override {}
};

class FakeStaticHome : public StaticHome {
 public:
  Result<StaticBlock> TakeBlock(uint32_t block, const StaticStep&) override {
    return StaticBlock{block, {}, {}};
  }
  Status ReturnBlock(StaticBlock, const StaticStep&) override { return Status::Ok(); }
  void Metrics(std::map<std::string, double>&) const override {}
  void Output(std::vector<proto::OutputPiece>&) const override {}
};

class FakeStaticApp : public testing::AppStub<StaticApp> {
 public:
  std::string name() const override { return "fake-static"; }
  std::string WorkUnit() const override { return "units"; }
  uint32_t NumAggregates(const proto::JobSpec&) const override { return 1; }
  uint32_t PassesPerIteration(const proto::JobSpec&) const override { return 1; }
  Result<std::unique_ptr<StaticShard>> LoadShard(const proto::JobSpec&, uint32_t, uint32_t,
                                                 uint32_t) const override {
    return std::unique_ptr<StaticShard>(std::make_unique<FakeStaticShard>());
  }
  Result<std::unique_ptr<StaticHome>> LoadHome(const proto::JobSpec&, uint32_t, uint32_t, uint32_t,
                                               uint32_t) const override {
    return std::unique_ptr<StaticHome>(std::make_unique<FakeStaticHome>());
  }
  std::string TraceHeader() const override { return ""; }
  std::string TraceRow(double, uint64_t, uint64_t,
                       const std::map<std::string, double>&) const override {
    return "";
  }
  double Objective(const std::map<std::string, double>&) const override { return 0; }
  std::string ObjectiveName() const override { return "none"; }
  Result<std::vector<proto::ResultFile>> Assemble(
      const proto::JobSpec&, const std::vector<proto::OutputPiece>&) const override {
    return std::vector<proto::ResultFile>{};
  }
};

// A shard with checkpoints: its state is three pieces of 20 MB ("a", "b", "c"); it keeps every
// piece of a checkpoint but those called "other", and logs the names of each restore.
class CheckpointingShard : public FakeStaticShard {
 public:
  explicit CheckpointingShard(std::vector<std::vector<std::string>>* restores)
      : restores_(restores) {}
  void SaveState(std::vector<proto::OutputPiece>& out) const override {
    for (const char* name : {"a", "b", "c"}) {
      out.emplace_back().set_name(name);
      out.back().set_text(std::string(20 << 20, 'z'));
    }
  }
  bool KeepsForRestore(const proto::OutputPiece& piece) const override {
    return piece.name() != "other";
  }
  Status RestoreState(const StatePieces& pieces) override {
    auto& names = restores_->emplace_back();
    for (const auto& p : pieces) names.push_back(p.name());
    return Status::Ok();
  }

 private:
  std::vector<std::vector<std::string>>* restores_;
};

class CheckpointingApp : public FakeStaticApp {
 public:
  bool Checkpoints(const proto::JobSpec&) const override { return true; }
  Result<std::unique_ptr<StaticShard>> LoadShard(const proto::JobSpec&, uint32_t, uint32_t,
                                                 uint32_t) const override {
    return std::unique_ptr<StaticShard>(std::make_unique<CheckpointingShard>(&restores));
  }
  mutable std::vector<std::vector<std::string>> restores;
};

const FakeDynamicApp kDynamicApp;
const FakeStaticApp kStaticApp;
constexpr uint64_t kJob = 1;

// A 4-row, 6-feature data file.
std::string TinyData(const testing::TempDir& dir) {
  return dir.Write("tiny.svm", "1 1:1 2:0.5 4:1\n2 2:1 3:1 5:2\n-1 1:2 6:1\n0.5 3:-1 4:0.5\n");
}

// One member under test and everyone it talks to, on an in-process hub: the coordinator,
// `schedulers` schedulers and `workers` workers (the member is one of them, `self`). The job is
// on TinyData unless a test says otherwise.
struct Bench {
  Bench(const std::string& self, uint32_t schedulers, uint32_t workers) : self(self) {
    start.mutable_spec()->set_data_path(TinyData(dir));
    auto add = [&](const std::string& id) {
      auto transport = std::make_unique<InProcTransport>(hub, id);
      if (id == self) member = transport.get();
      nodes.emplace(id, std::move(transport));
    };
    add("coordinator");
    for (uint32_t s = 0; s < schedulers; ++s) add("scheduler-" + std::to_string(s));
    for (uint32_t w = 0; w < workers; ++w) {
      add("worker-" + std::to_string(w));
      start.add_worker_ids("worker-" + std::to_string(w));
      start.add_worker_endpoints("inproc://worker-" + std::to_string(w));
    }
    start.set_num_schedulers(schedulers);
    start.set_num_workers(workers);
    session = std::make_unique<MemberSession>(*member, MemberIdentity{}, log);
  }

  // What builds job kJob from `start` (as it is when the job is built). The jobs under test get
  // their app directly (nothing is looked up) and run their work inline.
  JobContext context() { return InlineContext(*member); }
  JobContext InlineContext(Transport& transport) {
    JobContext c{transport, *session, no_apps, log, kJob, start};
    c.execution = Execution::kInline;
    return c;
  }
  InProcTransport& node(const std::string& id) { return *nodes.at(id); }

  // Everything `id` has received so far, oldest first (and removed from its mailbox).
  std::vector<proto::Envelope> Inbox(const std::string& id) {
    std::vector<proto::Envelope> out;
    while (auto e = node(id).Receive(milliseconds(0))) out.push_back(*e);
    return out;
  }
  // The messages of kind `body` that `id` has received so far (the others are dropped).
  std::vector<proto::Envelope> Drain(const std::string& id, proto::Envelope::BodyCase body) {
    std::vector<proto::Envelope> out;
    for (auto& e : Inbox(id)) {
      if (e.body_case() == body) out.push_back(std::move(e));
    }
    return out;
  }

  // The coordinator sends the whole file's column counts to `job` (a dynamic member waits for
  // them to load).
  void DeliverCounts(MemberJob& job) {
    job.OnMessage(testing::ColumnCountsEnvelope(kJob, start.spec().data_path()));
  }

  // Ticks `job` until the coordinator has its Ready (the load is done); returns it. A dynamic
  // member gets the whole file's column counts first, as the coordinator would send them (a
  // worker takes them whether its own part's count is done or not).
  proto::Ready AwaitReady(MemberJob& job) {
    if (dynamic_cast<DynamicWorkerJob*>(&job) || dynamic_cast<DynamicSchedulerJob*>(&job)) {
      DeliverCounts(job);
    }
    return TickUntilReady(job);
  }

  // Ticks `job` until the coordinator has its answer to the start, a Ready or a JobFailed (the
  // messages before it are dropped); nullopt if none came. Each load runs inline, so one tick
  // sees it end: a job that has not answered after a few ticks never will.
  std::optional<proto::Envelope> TickForAnswer(MemberJob& job) {
    for (int tick = 0; tick < 3; ++tick) {
      job.OnTick();
      while (auto e = node("coordinator").Receive(milliseconds(0))) {
        if (e->has_ready() || e->has_job_failed()) return e;
      }
    }
    return std::nullopt;
  }

  // The job's Ready; a JobFailed instead, or no answer, fails the test.
  proto::Ready TickUntilReady(MemberJob& job) {
    const auto answer = TickForAnswer(job);
    if (!answer) FAIL("no Ready: the job waits for something");
    if (answer->has_job_failed())
      FAIL("JobFailed instead of Ready: " << answer->job_failed().error());
    return answer->ready();
  }

  // The job's JobFailed error ("" if a Ready came instead, or no answer).
  std::string TickUntilFailed(MemberJob& job) {
    const auto answer = TickForAnswer(job);
    return answer && answer->has_job_failed() ? answer->job_failed().error() : "";
  }

  void Deliver(MemberJob& job, const proto::Envelope& e) { job.OnMessage(e); }

  // The coordinator asks `job` (a scheduler) for the chord of `round`.
  void RequestChord(MemberJob& job, uint64_t round) {
    auto request = MakeEnvelope("coordinator", kJob, round);
    request.mutable_chord_request();
    Deliver(job, request);
  }
  // The coordinator asks `job` for check `round` (the workers' slices come separately).
  void RequestCheck(MemberJob& job, uint64_t round) {
    auto request = MakeEnvelope("coordinator", kJob, round);
    request.mutable_check_request();
    Deliver(job, request);
  }

  std::string self;
  testing::TempDir dir;
  InProcHub hub;
  std::map<std::string, std::unique_ptr<InProcTransport>> nodes;
  InProcTransport* member = nullptr;
  Logger log = MakeLogger("member", "test", "off");
  std::unique_ptr<MemberSession> session;
  const AppRegistry no_apps;
  proto::JobStart start;
};

proto::Envelope ChordEnvelope(uint64_t round, std::vector<uint64_t> ids) {
  auto e = MakeEnvelope("scheduler-0", kJob, round);
  for (uint64_t j : ids) {
    e.mutable_chord()->add_ids(j);
    e.mutable_chord()->add_values(0);
  }
  return e;
}

// The coordinator's shared update of round `round` for TinyData's 4 rows (row 0 moved by 1).
proto::Envelope SharedUpdateEnvelope(uint64_t round) {
  return testing::SharedUpdateOf(kJob, round, 4, 0, 1.0);
}

// Worker `worker`'s gradient slice for check `round`: `count` values `value` from partition
// index `first` on.
proto::Envelope SliceEnvelope(uint32_t worker, uint64_t round, uint64_t first, size_t count,
                              double value) {
  auto e = MakeEnvelope("worker-" + std::to_string(worker), kJob, round);
  e.mutable_gradient_slice()->set_worker_rank(worker);
  e.mutable_gradient_slice()->set_first(first);
  for (size_t i = 0; i < count; ++i) e.mutable_gradient_slice()->add_values(value);
  return e;
}

// The same, carrying squared norms `sq_norm` for its columns (the first check's).
proto::Envelope SliceWithNorms(uint32_t worker, uint64_t round, uint64_t first, size_t count,
                               double value, double sq_norm) {
  auto e = SliceEnvelope(worker, round, first, count, value);
  for (size_t i = 0; i < count; ++i) e.mutable_gradient_slice()->add_sq_norms(sq_norm);
  return e;
}

// Sets the bench's job to chords of `chord_size` from `candidates`, without the dependency filter.
void UseColumns(Bench& bench, uint32_t chord_size, uint32_t candidates) {
  proto::DynamicEngineSpec& d = *bench.start.mutable_spec()->mutable_dynamic();
  d.set_chord_size(chord_size);
  d.set_candidates(candidates);
  d.set_rho(1.0);
}

// The number of parameters of a scheduler's partition.
size_t PartitionSize(const proto::Ready& ready) { return ready.end_param() - ready.first_param(); }

// The coordinator's commit of round `round`: every id in `ids` set to `value`, moved by `delta`.
template <class Ids>
proto::Envelope CommitOfIds(uint64_t round, const Ids& ids, double value, double delta) {
  auto e = MakeEnvelope("coordinator", kJob, round);
  for (uint64_t j : ids) {
    e.mutable_commit()->add_ids(j);
    e.mutable_commit()->add_values(value);
    e.mutable_commit()->add_deltas(delta);
  }
  return e;
}

proto::Envelope CommitEnvelope(uint64_t round, uint64_t id, double value, double delta) {
  return CommitOfIds(round, std::vector<uint64_t>{id}, value, delta);
}

// `commit`, carrying the request for round `round`'s chord.
proto::Envelope AskingForChord(proto::Envelope commit, uint64_t round) {
  commit.mutable_commit()->set_requests_chord(true);
  commit.mutable_commit()->set_chord_round(round);
  return commit;
}

// The member's transport, with a record of the peers it connected to and where, in order.
class ConnectRecorder : public Transport {
 public:
  explicit ConnectRecorder(Transport& inner) : inner_(inner) {}
  const std::string& id() const override { return inner_.id(); }
  Status Connect(const std::string& peer, const std::string& endpoint) override {
    connected.emplace_back(peer, endpoint);
    return inner_.Connect(peer, endpoint);
  }
  Status Send(const std::string& peer, const proto::Envelope& envelope) override {
    return inner_.Send(peer, envelope);
  }
  std::optional<proto::Envelope> Receive(std::chrono::milliseconds timeout) override {
    return inner_.Receive(timeout);
  }
  std::vector<std::string> endpoints() const override { return inner_.endpoints(); }
  std::vector<std::pair<std::string, std::string>> connected;  // (peer, endpoint)

 private:
  Transport& inner_;
};

}  // namespace

TEST_CASE("worker jobs connect to their JobStart's schedulers while they load, not at Begin",
          "[member_job]") {
  Bench bench("worker-0", 2, 1);
  for (const std::string s : {"scheduler-0", "scheduler-1"}) {
    bench.start.add_scheduler_ids(s);
    bench.start.add_scheduler_endpoints("inproc://" + s);
  }
  ConnectRecorder recorder(*bench.member);
  const JobContext context = bench.InlineContext(recorder);
  const std::vector<std::pair<std::string, std::string>> schedulers{
      {"scheduler-0", "inproc://scheduler-0"}, {"scheduler-1", "inproc://scheduler-1"}};
  SECTION("dynamic") {
    DynamicWorkerJob job(context, &kDynamicApp);
    CHECK(recorder.connected == schedulers);
    (void)bench.AwaitReady(job);  // the load is done before the job goes
  }
  SECTION("static") {
    StaticWorkerJob job(context, &kStaticApp);
    CHECK(recorder.connected == schedulers);
    (void)bench.AwaitReady(job);
  }
}

TEST_CASE(
    "member jobs ask their event loop to tick often while they load, and no longer once loaded",
    "[member_job]") {
  // Polling from the start (the load or count runs), not once the coordinator has the Ready.
  auto polls_while_loading = [](Bench& bench, MemberJob& job) {
    CHECK(job.Polling());
    (void)bench.AwaitReady(job);
    CHECK_FALSE(job.Polling());
  };
  Bench worker("worker-0", 1, 1), scheduler("scheduler-0", 1, 1);
  SECTION("static worker") {
    StaticWorkerJob job(worker.context(), &kStaticApp);
    polls_while_loading(worker, job);
  }
  SECTION("dynamic worker: while it counts, not while it waits for the totals, while it loads") {
    UseColumns(worker, 6, 0);
    worker.start.mutable_spec()->set_app("lasso");
    EditAppParams<proto::LinearModelSpec>(*worker.start.mutable_spec(),
                                          [&](auto& p) { p.set_lambda(0.01); });
    const LinearModelApp lasso(std::make_unique<LassoLoss>());
    DynamicWorkerJob job(worker.context(), &lasso);
    CHECK(job.Polling());
    job.OnTick();
    REQUIRE(worker.Drain("coordinator", proto::Envelope::kColumnCounts).size() == 1);
    CHECK_FALSE(job.Polling());  // the coordinator's totals are a message, not a poll
    worker.DeliverCounts(job);
    CHECK(job.Polling());
    (void)worker.TickUntilReady(job);
    CHECK_FALSE(job.Polling());
  }
  SECTION("a job abandoned while it loads no longer asks") {
    DynamicWorkerJob job(worker.context(), &kDynamicApp);
    job.Abandon();
    CHECK_FALSE(job.Polling());
  }
  SECTION("dynamic scheduler: not while it waits for the counts, while it loads") {
    DynamicSchedulerJob job(scheduler.context(), &kDynamicApp);
    for (int i = 0; i < 5; ++i) job.OnTick();
    CHECK_FALSE(job.Polling());  // the counts are a message, not a poll
    scheduler.DeliverCounts(job);
    CHECK(job.Polling());
    (void)scheduler.TickUntilReady(job);
    CHECK_FALSE(job.Polling());
  }
  SECTION("static scheduler") {
    StaticHomeJob job(scheduler.context(), &kStaticApp);
    polls_while_loading(scheduler, job);
  }
}

TEST_CASE("dynamic worker job: round t is computed after the shared updates of every round before",
          "[member_job][dynamic_worker]") {
  // A depth D > 1 only lets chords come ahead: a share is exact descent against the replica, so
  // it must hold every earlier round's change.
  for (uint32_t depth : {1u, 2u, 3u}) {
    CAPTURE(depth);
    Bench bench("worker-0", 1, 1);
    bench.start.mutable_spec()->mutable_dynamic()->set_pipeline_depth(depth);
    DynamicWorkerJob job(bench.context(), &kDynamicApp);
    (void)bench.AwaitReady(job);

    for (uint64_t t = 0; t < 6; ++t) bench.Deliver(job, ChordEnvelope(t, {t % 3}));
    auto computed = [&] {
      std::vector<uint64_t> rounds;
      for (const auto& e : bench.Drain("coordinator", proto::Envelope::kColumnPartials)) {
        // Round t was computed with the shared updates of rounds < t applied, and no others.
        CHECK(e.column_partials().applied_through() == e.round());
        REQUIRE(e.column_partials().values_size() == 1);
        CHECK(e.column_partials().values(0) == static_cast<double>(e.round()));
        rounds.push_back(e.round());
      }
      return rounds;
    };
    CHECK(computed() == std::vector<uint64_t>{0});
    CHECK(job.pending_chords() == 5);
    for (uint64_t t = 0; t < 6; ++t) {
      bench.Deliver(job, SharedUpdateEnvelope(t));
      if (t + 1 < 6) {
        CHECK(computed() == std::vector<uint64_t>{t + 1});
      } else {
        CHECK(computed().empty());
      }
    }
    CHECK(job.applied_rounds() == 6);
    CHECK(job.pending_chords() == 0);
  }
}

TEST_CASE("dynamic worker job: a stale-lane chord is computed one round early, a fresh one is not",
          "[member_job][dynamic_worker][dual]") {
  // The dual pipeline: rounds 0 and 2 fresh, 1 and 3 stale. Round 1 goes right after round 0,
  // before round 0's shared update; round 2 waits for both; round 3 then goes at once.
  Bench bench("worker-0", 1, 1);
  bench.start.mutable_spec()->mutable_dynamic()->set_pipeline_depth(2);
  DynamicWorkerJob job(bench.context(), &kDynamicApp);
  (void)bench.AwaitReady(job);
  for (uint64_t t = 0; t < 4; ++t) {
    auto e = ChordEnvelope(t, {t % 3});
    e.mutable_chord()->set_stale_lane(t % 2 == 1);
    bench.Deliver(job, e);
  }
  // Each computed round with the number of shared updates its replica held.
  auto computed = [&] {
    std::vector<std::pair<uint64_t, uint64_t>> rounds;
    for (const auto& e : bench.Drain("coordinator", proto::Envelope::kColumnPartials)) {
      rounds.emplace_back(e.round(), e.column_partials().applied_through());
    }
    return rounds;
  };
  using Rounds = std::vector<std::pair<uint64_t, uint64_t>>;
  CHECK(computed() == Rounds{{0, 0}, {1, 0}});  // round 1 without round 0's update
  bench.Deliver(job, SharedUpdateEnvelope(0));
  CHECK(computed().empty());  // round 2 is fresh: it waits for round 1's update too
  bench.Deliver(job, SharedUpdateEnvelope(1));
  CHECK(computed() == Rounds{{2, 2}, {3, 2}});
  CHECK(job.pending_chords() == 0);
}

TEST_CASE(
    "dynamic worker job in a tree: its share goes up with its child's, updates and checks go down",
    "[member_job][dynamic_worker][tree]") {
  // Worker 1 of 4 at fan-in 2: its parent is worker 0, its child worker 3.
  Bench bench("worker-1", 1, 4);
  bench.start.set_rank(1);
  bench.start.mutable_spec()->mutable_dynamic()->set_aggregation(proto::AGGREGATION_TREE);
  bench.start.mutable_spec()->mutable_dynamic()->set_fan_in(2);
  DynamicWorkerJob job(bench.context(), &kDynamicApp);
  (void)bench.AwaitReady(job);
  using Kind = proto::Envelope;
  // The first check comes down from the parent before Begin comes from the coordinator: it waits.
  auto check = MakeEnvelope("worker-0", kJob, 0);
  check.mutable_check_request();
  bench.Deliver(job, check);
  CHECK(bench.Inbox("worker-3").empty());
  CHECK(bench.Inbox("scheduler-0").empty());
  auto begin = MakeEnvelope("coordinator", kJob, 0);
  begin.mutable_begin()->set_num_features(6);
  begin.mutable_begin()->add_partition_starts(0);
  begin.mutable_begin()->add_partition_starts(6);
  begin.mutable_begin()->add_scheduler_ids("scheduler-0");
  begin.mutable_begin()->add_scheduler_endpoints("inproc://scheduler-0");
  bench.Deliver(job, begin);
  const auto forwarded = bench.Drain("worker-3", Kind::kCheckRequest);
  REQUIRE(forwarded.size() == 1);
  CHECK(forwarded[0].sender() == "worker-1");
  CHECK(bench.Drain("scheduler-0", Kind::kGradientSlice).size() == 1);
  CHECK(bench.Inbox("worker-0").empty());  // its report waits for its child's
  auto report = MakeEnvelope("worker-3", kJob, 0);
  (*report.mutable_loss_report()->mutable_metrics())["correct"] = 2;
  bench.Deliver(job, report);
  const auto reports = bench.Drain("worker-0", Kind::kLossReport);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].loss_report().metrics().at("correct") == 2);
  CHECK(bench.Drain("coordinator", Kind::kLossReport).empty());

  // Round 0: its share waits for its child's, then both go to the parent as one.
  bench.Deliver(job, ChordEnvelope(0, {0, 1, 2, 3, 4, 5}));
  CHECK(bench.Inbox("worker-0").empty());
  auto child = MakeEnvelope("worker-3", kJob, 0);
  child.mutable_column_partials()->add_ids(5);
  child.mutable_column_partials()->add_values(9.0);
  child.mutable_column_partials()->add_run_ranks(3);
  child.mutable_column_partials()->add_run_sizes(1);
  child.mutable_column_partials()->mutable_change()->set_size(4);
  bench.Deliver(job, child);
  const auto up = bench.Drain("worker-0", Kind::kColumnPartials);
  REQUIRE(up.size() == 1);
  const auto& share = up[0].column_partials();
  REQUIRE(share.run_ranks_size() == 2);
  CHECK(share.run_ranks(0) == 1);
  CHECK(share.run_ranks(1) == 3);
  CHECK(share.run_sizes(1) == 1);
  CHECK(share.ids(share.ids_size() - 1) == 5);
  CHECK(bench.Drain("coordinator", Kind::kColumnPartials).empty());

  // Round 0's shared update from the parent: on to the child, then applied.
  auto update = SharedUpdateEnvelope(0);
  update.set_sender("worker-0");
  bench.Deliver(job, update);
  const auto down = bench.Drain("worker-3", Kind::kSharedUpdate);
  REQUIRE(down.size() == 1);
  CHECK(down[0].sender() == "worker-1");
  CHECK(down[0].shared_update().SerializeAsString() == update.shared_update().SerializeAsString());
  CHECK(job.applied_rounds() == 1);

  // A share from a worker that is not its child is an error.
  auto stranger = child;
  stranger.set_sender("worker-2");
  stranger.set_round(1);
  bench.Deliver(job, stranger);
  const auto errors = bench.Drain("coordinator", Kind::kJobFailed);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].job_failed().error(), Catch::Contains("not a child of this worker"));
}

TEST_CASE("dynamic worker job: a shared update out of round order is refused and reported once",
          "[member_job][dynamic_worker]") {
  Bench bench("worker-0", 1, 1);
  DynamicWorkerJob job(bench.context(), &kDynamicApp);
  (void)bench.AwaitReady(job);
  bench.Deliver(job, SharedUpdateEnvelope(3));
  bench.Deliver(job, SharedUpdateEnvelope(4));
  auto errors = bench.Drain("coordinator", proto::Envelope::kJobFailed);
  REQUIRE(errors.size() == 1);  // later failures are only logged
  CHECK_THAT(errors[0].job_failed().error(), Catch::Contains("shared_update of round 3"));
  CHECK(job.applied_rounds() == 0);
}

TEST_CASE(
    "dynamic scheduler job: a ChordRequest gets a chord of its own partition, shared out to the "
    "workers",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-1", 2, 2);
  bench.start.set_rank(1);
  bench.start.mutable_spec()->mutable_dynamic()->set_chord_size(2);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  const proto::Ready ready = bench.AwaitReady(job);
  REQUIRE(ready.first_param() < ready.end_param());
  CHECK(ready.end_param() == ready.num_features());  // the last of the two partitions

  for (uint64_t t : {1u, 3u}) {
    bench.RequestChord(job, t);
    // The coordinator gets the whole chord, each worker its share (possibly empty); together the
    // shares are the chord.
    std::vector<uint64_t> whole, shares;
    for (const std::string to : {"coordinator", "worker-0", "worker-1"}) {
      CAPTURE(t, to);
      auto chords = bench.Drain(to, proto::Envelope::kChord);
      REQUIRE(chords.size() == 1);
      const auto& chord = chords[0].chord();
      CHECK(chords[0].round() == t);
      CHECK(chord.scheduler_rank() == 1);
      CHECK(chord.values_size() == chord.ids_size());
      for (uint64_t j : chord.ids()) {
        CHECK(j >= ready.first_param());
        CHECK(j < ready.end_param());
      }
      std::vector<uint64_t>& into = to == "coordinator" ? whole : shares;
      into.insert(into.end(), chord.ids().begin(), chord.ids().end());
    }
    CAPTURE(t);
    REQUIRE(whole.size() >= 1);
    CHECK(whole.size() <= 2);
    std::sort(whole.begin(), whole.end());
    std::sort(shares.begin(), shares.end());
    CHECK(shares == whole);
  }
}

TEST_CASE(
    "dynamic scheduler job: a share it cannot send fails the job, and the other workers get "
    "nothing",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 3);
  bench.start.mutable_spec()->mutable_dynamic()->set_chord_size(4);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  (void)bench.AwaitReady(job);
  bench.nodes.erase("worker-1");  // gone: a send to it fails
  bench.RequestChord(job, 0);
  CHECK(bench.Drain("worker-0", proto::Envelope::kChord).size() == 1);  // before the failure
  CHECK(bench.Drain("worker-2", proto::Envelope::kChord).empty());
  auto reports = bench.Drain("coordinator", proto::Envelope::kJobFailed);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].job_failed().lost_peer() == "worker-1");
  bench.RequestChord(job, 1);  // a failed job answers nothing
  CHECK(bench.Drain("coordinator", proto::Envelope::kChord).empty());
}

TEST_CASE(
    "dynamic scheduler job: each worker gets only the parameters it owns, the coordinator the "
    "whole chord",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 2);
  UseColumns(bench, 6, 12);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  const proto::Ready ready = bench.AwaitReady(job);
  // The first check, as the coordinator starts every job: it brings the squared norms.
  const size_t n = PartitionSize(ready);
  bench.RequestCheck(job, 0);
  bench.Deliver(job, SliceWithNorms(0, 0, 0, 3, -50.0, 2.0));
  bench.Deliver(job, SliceWithNorms(1, 0, 3, n - 3, -50.0, 2.0));
  REQUIRE(bench.Drain("coordinator", proto::Envelope::kCheckReport).size() == 1);
  bench.RequestChord(job, 0);
  auto whole = bench.Drain("coordinator", proto::Envelope::kChord);
  REQUIRE(whole.size() == 1);
  REQUIRE(whole[0].chord().ids_size() == 6);  // every feature of the tiny file
  std::vector<std::vector<uint64_t>> shares;
  std::vector<uint64_t> all;
  for (const std::string to : {"worker-0", "worker-1"}) {
    auto got = bench.Drain(to, proto::Envelope::kChord);
    REQUIRE(got.size() == 1);
    const proto::Chord& c = got[0].chord();
    CHECK(got[0].round() == 0);
    CHECK(c.values_size() == c.ids_size());
    shares.emplace_back(c.ids().begin(), c.ids().end());
    all.insert(all.end(), c.ids().begin(), c.ids().end());
  }
  // Each worker owns a contiguous block, worker 0 the lower one; together they are the chord.
  REQUIRE_FALSE(shares[0].empty());
  REQUIRE_FALSE(shares[1].empty());
  CHECK(*std::max_element(shares[0].begin(), shares[0].end()) <
        *std::min_element(shares[1].begin(), shares[1].end()));
  std::sort(all.begin(), all.end());
  std::vector<uint64_t> expected(whole[0].chord().ids().begin(), whole[0].chord().ids().end());
  std::sort(expected.begin(), expected.end());
  CHECK(all == expected);
}

TEST_CASE(
    "dynamic scheduler job: adapting chords are smaller on long columns, and Ready says the size "
    "drawn",
    "[member_job][dynamic_scheduler]") {
  // 100,000 dense rows x 8 features, 8 passes, 1 worker: ceil(2.5e6 / (8 x 100,000)) = 4 of the
  // cap of 8 (engine/chord_size.h). Without the spec's consent the cap is the size.
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "1 1:1 2:2 3:1 4:3 5:1 6:2 7:1 8:1\n";
  const std::string data = dir.Write("long.svm", text);
  for (const bool adapts : {true, false}) {
    CAPTURE(adapts);
    Bench bench("scheduler-0", 1, 1);
    UseColumns(bench, 8, 16);
    bench.start.mutable_spec()->set_data_path(data);
    bench.start.mutable_spec()->mutable_dynamic()->set_inner_passes(8);
    bench.start.mutable_spec()->mutable_dynamic()->set_chord_size_adapts(adapts);
    DynamicSchedulerJob job(bench.context(), &kDynamicApp);
    const proto::Ready ready = bench.AwaitReady(job);
    REQUIRE(PartitionSize(ready) == 8);
    CHECK(ready.chord_size() == (adapts ? 4u : 8u));
    CHECK(ready.candidates() == (adapts ? 8u : 16u));  // twice the chord, as the spec's
    bench.RequestCheck(job, 0);
    bench.Deliver(job, SliceWithNorms(0, 0, 0, 8, -50.0, 2.0));  // every feature violates
    REQUIRE(bench.Drain("coordinator", proto::Envelope::kCheckReport).size() == 1);
    bench.RequestChord(job, 0);
    auto chords = bench.Drain("coordinator", proto::Envelope::kChord);
    REQUIRE(chords.size() == 1);
    CHECK(chords[0].chord().ids_size() == (adapts ? 4 : 8));
  }
}

TEST_CASE(
    "dynamic scheduler job: a check asking for a chord reports, then sends the chord a request "
    "would get",
    "[member_job][dynamic_scheduler]") {
  // Two schedulers in the same state: one asked with the check, one asked after its report.
  std::vector<std::vector<proto::Envelope>> got(2);
  for (int asked_with_check = 0; asked_with_check < 2; ++asked_with_check) {
    Bench bench("scheduler-0", 1, 1);
    UseColumns(bench, 3, 0);
    DynamicSchedulerJob job(bench.context(), &kDynamicApp);
    const proto::Ready ready = bench.AwaitReady(job);
    const size_t n = PartitionSize(ready);
    auto request = MakeEnvelope("coordinator", kJob, 0);
    request.mutable_check_request();
    if (asked_with_check) {
      request.mutable_check_request()->set_requests_chord(true);
      request.mutable_check_request()->set_chord_round(0);
    }
    bench.Deliver(job, request);
    // Violations differ by parameter, so the priorities order the chord.
    auto slice = SliceWithNorms(0, 0, 0, n, -50.0, 2.0);
    for (int i = 0; i < slice.gradient_slice().values_size(); ++i) {
      slice.mutable_gradient_slice()->set_values(i, -10.0 * (i + 1));
    }
    bench.Deliver(job, slice);
    // In order: the report first (the coordinator learns whether the job goes on), then the chord.
    auto receive = [&] {
      for (const auto& e : bench.Inbox("coordinator")) {
        if (e.has_check_report() || e.has_chord()) got[asked_with_check].push_back(e);
      }
    };
    receive();
    if (!asked_with_check) {
      REQUIRE(got[0].size() == 1);  // the report, and no chord before it is asked for
      bench.RequestChord(job, 0);
      receive();
    }
  }
  REQUIRE(got[1].size() == 2);
  CHECK(got[1][0].body_case() == proto::Envelope::kCheckReport);
  REQUIRE(got[1][1].body_case() == proto::Envelope::kChord);
  CHECK(got[1][1].round() == 0);
  REQUIRE(got[0].size() == 2);
  REQUIRE(got[0][1].body_case() == proto::Envelope::kChord);
  CHECK(got[1][1].chord().ids_size() == 3);
  CHECK(got[1][1].chord().SerializeAsString() == got[0][1].chord().SerializeAsString());
}

TEST_CASE("dynamic scheduler job: the next chord is built ahead unless a check comes first",
          "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 1);
  UseColumns(bench, 1, 0);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  const proto::Ready ready = bench.AwaitReady(job);
  const size_t n = PartitionSize(ready);
  uint64_t round = 0;
  auto check = [&](bool first) {
    bench.RequestCheck(job, round);
    bench.Deliver(job, first ? SliceWithNorms(0, round, 0, n, -50.0, 2.0)
                             : SliceEnvelope(0, round, 0, n, -50.0));
    REQUIRE(bench.Drain("coordinator", proto::Envelope::kCheckReport).size() == 1);
    CHECK_FALSE(job.chord_prepared());  // a check drops it
  };
  auto chord = [&] {
    bench.RequestChord(job, round);
    auto got = bench.Drain("coordinator", proto::Envelope::kChord);
    REQUIRE(got.size() == 1);
    REQUIRE(got[0].chord().ids_size() == 1);
    bench.Deliver(job, CommitEnvelope(round, got[0].chord().ids(0), 0.5, 0.5));
    ++round;
    return job.chord_prepared();
  };
  check(true);
  CHECK(chord());  // no interval seen yet: built ahead
  check(false);    // an interval of one chord
  CHECK_FALSE(chord());
  CHECK(chord());  // longer than the last interval: built ahead again
  check(false);    // an interval of two
  CHECK(chord());
  CHECK_FALSE(chord());
  CHECK(chord());
}

// A chord's ids, ascending.
std::vector<uint64_t> SortedChordIds(const proto::Envelope& e) {
  std::vector<uint64_t> ids(e.chord().ids().begin(), e.chord().ids().end());
  std::sort(ids.begin(), ids.end());
  return ids;
}

// A scheduler on TinyData's 6 parameters (chords of `chord_size` from `candidates`, pipeline
// depth `depth`), loaded, after its first check (every parameter given squared norm 2 and
// priority |-50| / 2) and its chord of round 0 (`first`).
struct CheckedColumnScheduler {
  CheckedColumnScheduler(uint32_t chord_size, uint32_t candidates, uint32_t depth = 0) {
    UseColumns(bench, chord_size, candidates);
    bench.start.mutable_spec()->mutable_dynamic()->set_pipeline_depth(depth);
    job = std::make_unique<DynamicSchedulerJob>(bench.context(), &kDynamicApp);
    ready = bench.AwaitReady(*job);
    const size_t n = PartitionSize(ready);
    bench.RequestCheck(*job, 0);
    bench.Deliver(*job, SliceWithNorms(0, 0, 0, n, -50.0, 2.0));
    REQUIRE(bench.Drain("coordinator", proto::Envelope::kCheckReport).size() == 1);
    bench.RequestChord(*job, 0);
    auto chords = bench.Drain("coordinator", proto::Envelope::kChord);
    REQUIRE(chords.size() == 1);
    first = chords[0];
  }
  // The scheduler handles `e`; what the coordinator got of kind `body` since.
  void Deliver(const proto::Envelope& e) { bench.Deliver(*job, e); }
  std::vector<proto::Envelope> Drain(proto::Envelope::BodyCase body) {
    return bench.Drain("coordinator", body);
  }
  Bench bench{"scheduler-0", 1, 1};
  std::unique_ptr<DynamicSchedulerJob> job;
  proto::Ready ready;
  proto::Envelope first;
};

TEST_CASE(
    "dynamic scheduler job: a chord that would be empty waits for a commit, requests answered in "
    "order",
    "[member_job][dynamic_scheduler]") {
  // The 6 features fit in one chord: round 1, requested while round 0 is in flight (a pipeline
  // of depth 2), would hold nothing.
  CheckedColumnScheduler f(8, 16, 2);
  const int features = static_cast<int>(f.ready.num_features());
  // Commits round `round`: every parameter of `chord` moved by 0.5.
  auto commit_all = [&](uint64_t round, const proto::Chord& chord) {
    return CommitOfIds(round, chord.ids(), 0.5, 0.5);
  };
  const proto::Chord round0 = f.first.chord();
  REQUIRE(round0.ids_size() == features);
  f.bench.RequestChord(*f.job, 1);
  CHECK(f.Drain(proto::Envelope::kChord).empty());  // waits
  // The commit of round 0 also asks for round 2: round 1 goes first, and round 2 waits for it.
  f.Deliver(AskingForChord(commit_all(0, round0), 2));
  auto chords = f.Drain(proto::Envelope::kChord);
  REQUIRE(chords.size() == 1);
  CHECK(chords[0].round() == 1);
  CHECK(chords[0].chord().min_applied() == 1);  // built with round 0's commit applied
  REQUIRE(chords[0].chord().ids_size() == features);
  for (double v : chords[0].chord().values()) CHECK(v == 0.5);
  // The worker got round 0's chord, then round 1's, nothing in between.
  auto shares = f.bench.Drain("worker-0", proto::Envelope::kChord);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].round() == 0);
  CHECK(shares[1].round() == 1);
  f.Deliver(commit_all(1, chords[0].chord()));
  chords = f.Drain(proto::Envelope::kChord);
  REQUIRE(chords.size() == 1);
  CHECK(chords[0].round() == 2);
  CHECK(chords[0].chord().ids_size() == features);
}

TEST_CASE(
    "dynamic scheduler job: a commit asking for a chord gets the one built ahead, the next built "
    "on it",
    "[member_job][dynamic_scheduler]") {
  // Chords of 1 of the 6 parameters: little enough in flight for a chord built ahead
  // (ChordBuilder::AheadDrawsWhole).
  CheckedColumnScheduler f(1, 2);
  // Every parameter at the same priority, |-50| / 2, and round 0's chord, f.first.
  auto ids_of = SortedChordIds;
  // A commit of round `round` moving `ids` by `delta` (priority |delta| + eta), asking for the
  // chord of round + 1.
  auto commit = [&](uint64_t round, const std::vector<uint64_t>& ids, double delta) {
    f.Deliver(AskingForChord(CommitOfIds(round, ids, delta, delta), round + 1));
    auto got = f.Drain(proto::Envelope::kChord);
    REQUIRE(got.size() == 1);
    CHECK(got[0].round() == round + 1);
    CHECK(got[0].chord().min_applied() == round + 1);
    return got[0];
  };
  const std::vector<uint64_t> a = ids_of(f.first);
  REQUIRE(a.size() == 1);
  REQUIRE(f.job->chord_prepared());
  // Round 0's commit moves its parameter far: priority 1000, above every other's 25. Round 1's
  // chord is the one built while round 0 was in flight, so it does not hold it.
  const std::vector<uint64_t> b = ids_of(commit(0, a, 1000.0));
  REQUIRE(b.size() == 1);
  CHECK(b != a);
  // Round 2's chord was built once round 0's commit was applied: its parameter, out of flight
  // and the most important, is the chord (built before the commit was applied, it could not be:
  // it was still in flight).
  CHECK(ids_of(commit(1, b, 0.001)) == a);
}

TEST_CASE(
    "dynamic scheduler job: no chord is built ahead while over a quarter of the partition is in "
    "flight",
    "[member_job][dynamic_scheduler]") {
  // Chords of 2 of the 6 parameters, every one at priority 25 after the first check.
  CheckedColumnScheduler f(2, 4);
  REQUIRE(f.first.chord().ids_size() == 2);
  // Built ahead, the next chord could only take from the 4 parameters left.
  CHECK_FALSE(f.job->chord_prepared());
  // Priority 1000: the most important now.
  f.Deliver(AskingForChord(CommitOfIds(0, f.first.chord().ids(), 7.0, 1000.0), 1));
  auto next = f.Drain(proto::Envelope::kChord);
  REQUIRE(next.size() == 1);
  CHECK(next[0].chord().min_applied() == 1);
  CHECK(SortedChordIds(next[0]) == SortedChordIds(f.first));
  for (double v : next[0].chord().values()) CHECK(v == 7.0);
}

TEST_CASE(
    "dynamic scheduler job: with no chord ahead, a commit is applied before the chord it asks for",
    "[member_job][dynamic_scheduler]") {
  // Chords of 6, the whole partition: round 0's chord puts every parameter in flight, so no
  // chord is built ahead (it could hold nothing), and round 1's is built once round 0's commit
  // frees one.
  CheckedColumnScheduler f(6, 6);
  REQUIRE(f.first.chord().ids_size() == 6);
  const uint64_t j = f.first.chord().ids(2);
  f.Deliver(AskingForChord(CommitEnvelope(0, j, 2.5, 2.5), 1));
  auto next = f.Drain(proto::Envelope::kChord);
  REQUIRE(next.size() == 1);
  CHECK(next[0].round() == 1);
  CHECK(next[0].chord().min_applied() == 1);
  REQUIRE(next[0].chord().ids_size() == 1);
  CHECK(next[0].chord().ids(0) == j);
  CHECK(next[0].chord().values(0) == 2.5);
}

TEST_CASE(
    "dynamic scheduler job: a commit outside the partition is refused before its chord goes out",
    "[member_job][dynamic_scheduler]") {
  CheckedColumnScheduler f(1, 2);
  REQUIRE(f.job->chord_prepared());  // a chord is ready for round 1
  auto commit = CommitEnvelope(0, f.first.chord().ids(0), 2.5, 2.5);
  commit.mutable_commit()->add_ids(f.ready.end_param() + 7);
  commit.mutable_commit()->add_values(1.0);
  commit.mutable_commit()->add_deltas(1.0);
  f.Deliver(AskingForChord(commit, 1));
  std::vector<proto::Envelope> chords, errors;
  for (const auto& e : f.bench.Inbox("coordinator")) {
    if (e.has_chord()) chords.push_back(e);
    if (e.has_job_failed()) errors.push_back(e);
  }
  CHECK(chords.empty());
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].job_failed().error(), Catch::Contains("outside"));
}

TEST_CASE(
    "column layout: workers count their parts, load on the summed counts, schedulers never read "
    "the file",
    "[member_job][dynamic_scheduler][dynamic_worker]") {
  const std::vector<uint64_t> entries{2, 2, 2, 2, 1, 1};  // tiny.svm's columns
  const LinearModelApp lasso(std::make_unique<LassoLoss>());
  std::vector<uint64_t> sum;
  uint64_t rows = 0;
  for (uint32_t rank : {0u, 1u}) {
    CAPTURE(rank);
    Bench bench("worker-" + std::to_string(rank), 1, 2);
    UseColumns(bench, 6, 0);
    bench.start.set_rank(rank);
    bench.start.mutable_spec()->set_app("lasso");
    EditAppParams<proto::LinearModelSpec>(*bench.start.mutable_spec(),
                                          [&](auto& p) { p.set_lambda(0.01); });
    DynamicWorkerJob job(bench.context(), &lasso);
    // Its part's counts, and nothing more: no Ready without the whole file's (and no work left
    // running that could still send one).
    job.OnTick();
    job.OnTick();
    CHECK_FALSE(job.Busy());
    const auto counts = bench.Inbox("coordinator");
    REQUIRE(counts.size() == 1);
    REQUIRE(counts[0].has_column_counts());
    const proto::ColumnCounts& c = counts[0].column_counts();
    if (static_cast<size_t>(c.counts_size()) > sum.size()) sum.resize(c.counts_size(), 0);
    for (int j = 0; j < c.counts_size(); ++j) sum[j] += c.counts(j);
    rows += c.rows();
    bench.DeliverCounts(job);
    (void)bench.TickUntilReady(job);
  }
  CHECK(sum == entries);  // the two parts are the whole file
  CHECK(rows == 4);
  // The scheduler's file does not exist: without the filter or a grouping it never opens it.
  Bench bench("scheduler-0", 1, 2);
  UseColumns(bench, 6, 0);
  bench.start.mutable_spec()->set_data_path(bench.dir.Path("absent.svm"));
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  job.OnTick();
  CHECK_FALSE(job.Busy());  // no load runs: it waits for the counts
  CHECK(bench.Inbox("coordinator").empty());
  auto e = MakeEnvelope("coordinator", kJob, 0);
  e.mutable_column_counts()->set_rows(4);
  e.mutable_column_counts()->mutable_counts()->Assign(entries.begin(), entries.end());
  bench.Deliver(job, e);
  const proto::Ready ready = bench.TickUntilReady(job);
  CHECK(ready.first_param() == 0);
  CHECK(ready.end_param() == 6);
  CHECK(ready.num_features() == 6);
  CHECK(ready.num_rows() == 4);
}

TEST_CASE(
    "column layout: a scheduler reading its columns refuses a file of another shape than counted",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 2);
  UseColumns(bench, 6, 0);
  bench.start.mutable_spec()->mutable_dynamic()->set_group_rho(0.5);  // it groups: it reads
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  auto e = MakeEnvelope("coordinator", kJob, 0);
  e.mutable_column_counts()->set_rows(4);
  const std::vector<uint64_t> seven{2, 2, 2, 2, 1, 1, 1};  // tiny.svm has 6 columns
  e.mutable_column_counts()->mutable_counts()->Assign(seven.begin(), seven.end());
  bench.Deliver(job, e);
  const std::string error = bench.TickUntilFailed(job);
  // The load stops at the first column that disagrees with the counts, and says whose they were.
  CHECK_THAT(error, Catch::Contains("tiny.svm") && Catch::Contains("the workers' copies"));
}

TEST_CASE(
    "dynamic scheduler job: squared norms come with the first check, a first slice without them "
    "fails",
    "[member_job][dynamic_scheduler]") {
  for (bool with_norms : {true, false}) {
    CAPTURE(with_norms);
    Bench bench("scheduler-0", 1, 1);
    UseColumns(bench, 6, 0);
    DynamicSchedulerJob job(bench.context(), &kDynamicApp);
    const proto::Ready ready = bench.AwaitReady(job);
    const size_t n = PartitionSize(ready);
    // Before the check no norm is known: no parameter can be drawn.
    bench.RequestChord(job, 0);
    auto before = bench.Drain("coordinator", proto::Envelope::kChord);
    REQUIRE(before.size() == 1);
    CHECK(before[0].chord().ids_size() == 0);
    bench.RequestCheck(job, 0);
    // Column 0 is all zero by its norm: never drawn, whatever its gradient says.
    auto slice = SliceWithNorms(0, 0, 0, n, -50.0, 2.0);
    slice.mutable_gradient_slice()->set_sq_norms(0, 0.0);
    if (!with_norms) slice.mutable_gradient_slice()->clear_sq_norms();
    bench.Deliver(job, slice);
    if (!with_norms) {
      auto errors = bench.Drain("coordinator", proto::Envelope::kJobFailed);
      REQUIRE(errors.size() == 1);
      CHECK_THAT(errors[0].job_failed().error(), Catch::Contains("carries 0 squared norms"));
      continue;
    }
    REQUIRE(bench.Drain("coordinator", proto::Envelope::kCheckReport).size() == 1);
    bench.RequestChord(job, 1);
    auto after = bench.Drain("coordinator", proto::Envelope::kChord);
    REQUIRE(after.size() == 1);
    std::vector<uint64_t> ids(after[0].chord().ids().begin(), after[0].chord().ids().end());
    CHECK(ids.size() == n - 1);
    CHECK(std::find(ids.begin(), ids.end(), ready.first_param()) == ids.end());
  }
}

TEST_CASE(
    "dynamic scheduler job: commits set the values it sends, one outside its partition is "
    "reported",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 1);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  const proto::Ready ready = bench.AwaitReady(job);
  bench.Deliver(job, CommitEnvelope(0, 2, 0.75, 0.75));
  bench.Deliver(job, CommitEnvelope(1, 4, -1.5, -1.5));
  auto request = MakeEnvelope("coordinator", kJob);
  request.mutable_model_request();
  bench.Deliver(job, request);
  auto model = bench.Drain("coordinator", proto::Envelope::kModelSlice);
  REQUIRE(model.size() == 1);
  const auto& slice = model[0].model_slice();
  CHECK(std::vector<uint64_t>(slice.ids().begin(), slice.ids().end()) ==
        std::vector<uint64_t>{2, 4});
  CHECK(std::vector<double>(slice.values().begin(), slice.values().end()) ==
        std::vector<double>{0.75, -1.5});
  bench.RequestChord(job, 2);
  auto chords = bench.Drain("coordinator", proto::Envelope::kChord);
  REQUIRE(chords.size() == 1);
  CHECK(chords[0].chord().min_applied() == 2);  // the workers must have applied rounds 0 and 1

  bench.Deliver(job, CommitEnvelope(2, ready.end_param() + 5, 1, 1));
  auto errors = bench.Drain("coordinator", proto::Envelope::kJobFailed);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].job_failed().error(), Catch::Contains("outside"));
}

TEST_CASE(
    "dynamic scheduler job: a check is evaluated only once its request and every worker's "
    "slice are in",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 2);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  const proto::Ready ready = bench.AwaitReady(job);
  const size_t n = PartitionSize(ready);
  auto slice = [&](uint32_t worker, double value) { return SliceEnvelope(worker, 5, 0, n, value); };
  auto request = MakeEnvelope("coordinator", kJob, 5);
  request.mutable_check_request();
  std::vector<proto::Envelope> order;
  SECTION("request first") { order = {request, slice(0, -1), slice(1, -2)}; }
  SECTION("request between the slices") { order = {slice(0, -1), request, slice(1, -2)}; }
  SECTION("request last") { order = {slice(0, -1), slice(1, -2), request}; }
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    bench.Deliver(job, order[k]);
    CHECK(bench.Drain("coordinator", proto::Envelope::kCheckReport).empty());
  }
  bench.Deliver(job, order.back());
  auto reports = bench.Drain("coordinator", proto::Envelope::kCheckReport);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].round() == 5);
  CHECK(reports[0].check_report().max_abs_gradient() == 3.0);  // the slices are summed
  CHECK(reports[0].check_report().max_violation() == 3.0);
}

TEST_CASE(
    "dynamic scheduler job: gradient slices add at their offsets, one past the partition is "
    "reported",
    "[member_job][dynamic_scheduler]") {
  Bench bench("scheduler-0", 1, 2);
  DynamicSchedulerJob job(bench.context(), &kDynamicApp);
  const proto::Ready ready = bench.AwaitReady(job);
  const size_t n = PartitionSize(ready);
  REQUIRE(n >= 2);
  bench.RequestCheck(job, 5);
  bench.Deliver(job, SliceEnvelope(0, 5, 0, 1, -4.0));      // worker 0: the first parameter
  bench.Deliver(job, SliceEnvelope(1, 5, 1, n - 1, -2.0));  // worker 1: the others
  auto reports = bench.Drain("coordinator", proto::Envelope::kCheckReport);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].check_report().max_abs_gradient() == 4.0);

  bench.RequestCheck(job, 6);
  bench.Deliver(job, SliceEnvelope(0, 6, n - 1, 2, 1.0));
  auto errors = bench.Drain("coordinator", proto::Envelope::kJobFailed);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].job_failed().error(), Catch::Contains("partition has"));
}

TEST_CASE("static worker job: works once it has the barrier and the block, then forwards the block",
          "[member_job][static_worker]") {
  Bench bench("worker-0", 1, 2);
  bench.start.mutable_spec()->mutable_static_engine()->set_blocks_per_worker(1);
  StaticWorkerJob job(bench.context(), &kStaticApp);
  (void)bench.AwaitReady(job);
  auto begin = MakeEnvelope("coordinator", kJob);
  begin.mutable_begin()->add_scheduler_ids("scheduler-0");
  begin.mutable_begin()->add_scheduler_endpoints("inproc://scheduler-0");
  bench.Deliver(job, begin);

  const RotationPlan plan(2, 1);
  const uint32_t b = plan.Block(0, 0);
  auto barrier = MakeEnvelope("coordinator", kJob);
  barrier.mutable_sub_round_start()->set_iteration(1);
  barrier.mutable_sub_round_start()->add_aggregates(0);
  const auto block = BlockTransferEnvelope("scheduler-0", kJob, 0, 1, 0, 0, StaticBlock{b, {}, {}});
  std::vector<proto::Envelope> order;
  SECTION("barrier first") { order = {barrier, block}; }
  SECTION("block first") { order = {block, barrier}; }
  bench.Deliver(job, order[0]);
  job.OnTick();
  // Not worked on: a sub-round would be done, and its block passed on, by now.
  CHECK(bench.Inbox("coordinator").empty());
  CHECK(bench.Inbox("worker-1").empty());
  bench.Deliver(job, order[1]);
  auto done = bench.Drain("coordinator", proto::Envelope::kSubRoundDone);
  REQUIRE(done.size() == 1);
  CHECK(done[0].sub_round_done().block() == b);
  CHECK(done[0].sub_round_done().sub_round() == 0);

  const auto next = plan.NextVisit(0, b);
  REQUIRE(next.sub_round > 0);  // on to another worker in this pass, not home
  const std::string holder = "worker-" + std::to_string(next.worker);
  auto forwarded = bench.Drain(holder, proto::Envelope::kBlockTransfer);
  REQUIRE(forwarded.size() == 1);
  const auto& t = forwarded[0].block_transfer();
  CHECK(t.block().block() == b);
  CHECK(t.sub_round() == next.sub_round);
  CHECK(std::vector<int64_t>(t.block().ints().begin(), t.block().ints().end()) ==
        std::vector<int64_t>{0});  // worked on once, in sub-round 0
  CHECK(bench.Drain("scheduler-0", proto::Envelope::kBlockTransfer).empty());
}

TEST_CASE(
    "static home job: hands each of its blocks to its first holder and answers PassDone "
    "once all are home",
    "[member_job][static_home]") {
  Bench bench("scheduler-0", 1, 2);
  bench.start.mutable_spec()->mutable_static_engine()->set_blocks_per_worker(1);
  StaticHomeJob job(bench.context(), &kStaticApp);
  (void)bench.AwaitReady(job);
  auto pass = MakeEnvelope("coordinator", kJob);
  pass.mutable_pass_start()->set_iteration(2);
  bench.Deliver(job, pass);

  const RotationPlan plan(2, 1);
  std::vector<proto::BlockTransfer> out;
  for (uint32_t w = 0; w < 2; ++w) {
    for (const auto& e :
         bench.Drain("worker-" + std::to_string(w), proto::Envelope::kBlockTransfer)) {
      const uint32_t b = e.block_transfer().block().block();
      CHECK(plan.FirstVisit(b).worker == w);
      CHECK(e.block_transfer().sub_round() == plan.FirstVisit(b).sub_round);
      CHECK(e.block_transfer().iteration() == 2);
      out.push_back(e.block_transfer());
    }
  }
  REQUIRE(out.size() == 2);  // both blocks of the plan live here
  for (size_t k = 0; k < out.size(); ++k) {
    CHECK(bench.Drain("coordinator", proto::Envelope::kPassDone).empty());
    auto back = MakeEnvelope("worker-" + std::to_string(k), kJob);
    *back.mutable_block_transfer() = out[k];
    bench.Deliver(job, back);
  }
  auto done = bench.Drain("coordinator", proto::Envelope::kPassDone);
  REQUIRE(done.size() == 1);
  CHECK(done[0].pass_done().iteration() == 2);
  CHECK(bench.Drain("coordinator", proto::Envelope::kJobFailed).empty());  // no error on the way
}

TEST_CASE(
    "static member jobs fail a model or state request before their part is loaded or while blocks "
    "are away",
    "[member_job][static_worker][static_home]") {
  for (const bool state : {false, true}) {
    CAPTURE(state);
    const std::string what = state ? "state" : "model";
    auto request = MakeEnvelope("coordinator", kJob);
    if (state) {
      request.mutable_state_request();
    } else {
      request.mutable_model_request();
    }
    auto error_of = [&](Bench& bench) {
      const auto errors = bench.Drain("coordinator", proto::Envelope::kJobFailed);
      REQUIRE(errors.size() == 1);
      return errors[0].job_failed().error();
    };
    {
      // Loaded (inline) but not yet polled: the shard is not the job's before its Ready.
      Bench bench("worker-0", 1, 2);
      StaticWorkerJob job(bench.context(), &kStaticApp);
      bench.Deliver(job, request);
      CHECK(error_of(bench) == what + " requested before the shard was loaded");
    }
    {
      Bench bench("scheduler-0", 1, 2);
      StaticHomeJob job(bench.context(), &kStaticApp);
      (void)bench.AwaitReady(job);
      auto pass = MakeEnvelope("coordinator", kJob);
      pass.mutable_pass_start()->set_iteration(1);
      bench.Deliver(job, pass);
      bench.Deliver(job, request);
      CHECK(error_of(bench) == what + " requested while blocks are away");
    }
  }
}

TEST_CASE(
    "static worker job: state goes out in bounded messages, a split checkpoint is restored at its "
    "end",
    "[member_job][static_worker][recovery]") {
  Bench bench("worker-0", 1, 2);
  const CheckpointingApp app;
  StaticWorkerJob job(bench.context(), &app);
  (void)bench.AwaitReady(job);

  auto ask = MakeEnvelope("coordinator", kJob);
  ask.mutable_state_request();
  bench.Deliver(job, ask);
  const auto replies = bench.Drain("coordinator", proto::Envelope::kStaticOutput);
  REQUIRE(replies.size() == 3);  // 20 MB each: no two fit in one message
  std::vector<std::string> names;
  for (size_t i = 0; i < replies.size(); ++i) {
    const auto& out = replies[i].static_output();
    CHECK(out.state());
    CHECK(out.more() == (i + 1 < replies.size()));
    CHECK(out.part() == i);
    CHECK(replies[i].ByteSizeLong() <= kStaticChunkBytes + 1024);
    for (const auto& p : out.pieces()) names.push_back(p.name());
  }
  CHECK(names == std::vector<std::string>{"a", "b", "c"});

  auto restore = [&](std::vector<std::string> pieces, uint32_t part, bool more) {
    auto e = MakeEnvelope("coordinator", kJob);
    for (const auto& n : pieces) e.mutable_static_restore()->add_pieces()->set_name(n);
    e.mutable_static_restore()->set_more(more);
    e.mutable_static_restore()->set_part(part);
    bench.Deliver(job, e);
  };
  restore({"a", "other"}, 0, true);
  CHECK(app.restores.empty());
  restore({"other", "b"}, 1, true);
  restore({"other", "b"}, 1, true);  // a repeat: dropped
  restore({"x"}, 3, false);          // a gap: dropped
  CHECK(app.restores.empty());
  restore({"c"}, 2, false);
  REQUIRE(app.restores.size() == 1);
  CHECK(app.restores[0] == std::vector<std::string>{"a", "b", "c"});
  restore({"c"}, 2, false);  // a repeat of the last: dropped, no second restore
  CHECK(app.restores.size() == 1);
  // The next checkpoint (part 0) starts afresh.
  restore({"d"}, 0, false);
  REQUIRE(app.restores.size() == 2);
  CHECK(app.restores[1] == std::vector<std::string>{"d"});
  CHECK(bench.Drain("coordinator", proto::Envelope::kJobFailed).empty());  // no error on the way
}

TEST_CASE(
    "a grouping scheduler's Ready carries its owners, and a worker keeps its columns or refuses "
    "them",
    "[member_job][grouping]") {
  const LinearModelApp lasso(std::make_unique<LassoLoss>());
  auto use_spec = [&](Bench& bench, double group_rho) {
    UseColumns(bench, 8, 16);
    bench.start.mutable_spec()->set_app("lasso");
    EditAppParams<proto::LinearModelSpec>(*bench.start.mutable_spec(),
                                          [&](auto& p) { p.set_lambda(0.01); });
    bench.start.mutable_spec()->mutable_dynamic()->set_group_rho(group_rho);
  };
  proto::RangeOwners owners;
  {
    Bench bench("scheduler-0", 1, 2);
    use_spec(bench, kDefaultGroupRho);
    DynamicSchedulerJob job(bench.context(), &lasso);
    const proto::Ready ready = bench.AwaitReady(job);
    owners = ready.owners();
  }
  // tiny.svm's columns 1 and 6, 2 and 5 share rows at |cos| 0.89: the range has pairs.
  REQUIRE(owners.grouped());
  REQUIRE(owners.worker_size() == 6);
  for (uint32_t w : owners.worker()) CHECK(w < 2);
  auto begin_with = [](const proto::RangeOwners& range) {
    auto begin = MakeEnvelope("coordinator", kJob, 0);
    begin.mutable_begin()->set_num_features(6);
    begin.mutable_begin()->add_partition_starts(0);
    begin.mutable_begin()->add_partition_starts(6);
    begin.mutable_begin()->add_scheduler_ids("scheduler-0");
    begin.mutable_begin()->add_scheduler_endpoints("inproc://scheduler-0");
    *begin.mutable_begin()->add_owners() = range;
    return begin;
  };
  SECTION("the worker updates exactly the chord's ids the grouping gives it") {
    Bench bench("worker-0", 1, 2);
    use_spec(bench, kDefaultGroupRho);
    DynamicWorkerJob job(bench.context(), &lasso);
    (void)bench.AwaitReady(job);
    bench.Deliver(job, begin_with(owners));
    CHECK(bench.Drain("coordinator", proto::Envelope::kJobFailed).empty());  // no error
    bench.Deliver(job, ChordEnvelope(0, {0, 1, 2, 3, 4, 5}));
    auto partials = bench.Drain("coordinator", proto::Envelope::kColumnPartials);
    REQUIRE(partials.size() == 1);
    std::vector<uint64_t> mine;
    for (uint64_t j = 0; j < 6; ++j) {
      if (owners.worker(static_cast<int>(j)) == 0) mine.push_back(j);
    }
    const auto& ids = partials[0].column_partials().ids();
    CHECK(std::vector<uint64_t>(ids.begin(), ids.end()) == mine);
    // Its compute time, for the coordinator's wait ledger: measured, and not absurd.
    CHECK(partials[0].column_partials().compute_seconds() > 0.0);
    CHECK(partials[0].column_partials().compute_seconds() < 10.0);
    // The values come from a model on exactly those columns (not the blocks it started on).
    auto loaded = LoadDataset(DataSource{bench.start.spec().data_path(), "", ""}, RowRange{});
    REQUIRE(loaded.ok());
    std::vector<char> keep(6, 0);
    for (uint64_t j : mine) keep[j] = 1;
    Dataset columns = *loaded;
    SparseColMatrix kept = KeepColumns(loaded->x, keep);
    columns.x.swap(kept);
    auto model = lasso.MakeColumnModel(std::move(columns), bench.start.spec());
    REQUIRE(model.ok());
    std::vector<double> expect;
    DeltaAccumulator change((*model)->shared_size());
    (*model)->Update(mine, std::vector<double>(mine.size(), 0.0), expect, change);
    const auto& values = partials[0].column_partials().values();
    CHECK(std::vector<double>(values.begin(), values.end()) == expect);
    CHECK(std::any_of(expect.begin(), expect.end(), [](double v) { return v != 0.0; }));
  }
  SECTION("a range its scheduler did not group keeps its blocks") {
    Bench bench("worker-0", 1, 2);
    use_spec(bench, kDefaultGroupRho);
    DynamicWorkerJob job(bench.context(), &lasso);
    (void)bench.AwaitReady(job);
    bench.Deliver(job, begin_with(proto::RangeOwners{}));
    CHECK(bench.Drain("coordinator", proto::Envelope::kReady).empty());
    bench.Deliver(job, ChordEnvelope(0, {0, 1, 2, 3, 4, 5}));
    auto partials = bench.Drain("coordinator", proto::Envelope::kColumnPartials);
    REQUIRE(partials.size() == 1);
    const std::vector<uint64_t> counts{2, 2, 2, 2, 1, 1};  // the entries of tiny.svm's columns
    const ColumnOwners blocks(counts, 1, 2);
    std::vector<uint64_t> block;
    for (uint64_t j = 0; j < 6; ++j) {
      if (blocks.WorkerIn(0, j) == 0) block.push_back(j);
    }
    const auto& ids = partials[0].column_partials().ids();
    CHECK(std::vector<uint64_t>(ids.begin(), ids.end()) == block);
  }
  SECTION("owners of the wrong size, or of a range it did not keep whole, fail the job") {
    proto::RangeOwners short_range = owners;
    short_range.mutable_worker()->RemoveLast();
    for (const bool kept_whole : {true, false}) {
      CAPTURE(kept_whole);
      Bench bench("worker-0", 1, 2);
      use_spec(bench, kept_whole ? kDefaultGroupRho : 1.0);
      DynamicWorkerJob job(bench.context(), &lasso);
      (void)bench.AwaitReady(job);
      bench.Deliver(job, begin_with(kept_whole ? short_range : owners));
      auto errors = bench.Drain("coordinator", proto::Envelope::kJobFailed);
      REQUIRE(errors.size() == 1);
      CHECK_THAT(errors[0].job_failed().error(),
                 Catch::Contains(kept_whole ? "owners of 5 parameters for range [0, 6)"
                                            : "did not keep their columns"));
    }
  }
}

}  // namespace strads
