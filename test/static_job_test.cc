// StaticJob (coordinator/static_job.h) as a unit: the test plays 1 scheduler and 2 workers (so 2
// blocks and 2 sub-rounds per pass) on a fake clock. The app is a stub with 2 aggregates and 2
// passes per iteration (pass 1 is the evaluation pass) whose objective is the metric "score".
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "actor_harness.h"
#include "app_stub.h"
#include "coordinator/static_job.h"
#include "engine/static_wire.h"

namespace strads {
namespace {

using Kind = proto::Envelope::BodyCase;
using testing::ActorHarness;

class StubStaticApp final : public testing::AppStub<StaticApp> {
 public:
  uint32_t NumAggregates(const proto::JobSpec&) const override { return 2; }
  uint32_t PassesPerIteration(const proto::JobSpec&) const override { return 2; }
  bool Checkpoints(const proto::JobSpec&) const override { return checkpoints; }
  bool checkpoints = false;
  Result<std::unique_ptr<StaticShard>> LoadShard(const proto::JobSpec&, uint32_t, uint32_t,
                                                 uint32_t) const override {
    return Status::Internal("the coordinator never loads shards");
  }
  Result<std::unique_ptr<StaticHome>> LoadHome(const proto::JobSpec&, uint32_t, uint32_t, uint32_t,
                                               uint32_t) const override {
    return Status::Internal("the coordinator never loads homes");
  }
  std::string TraceHeader() const override { return "iteration,score"; }
  std::string TraceRow(double, uint64_t iteration, uint64_t,
                       const std::map<std::string, double>& metrics) const override {
    return fmt::format("{},{}", iteration, metrics.at("score"));
  }
  double Objective(const std::map<std::string, double>& metrics) const override {
    return metrics.at("score");
  }
  std::string ObjectiveName() const override { return "score"; }
  std::string WorkUnit() const override { return "units"; }
  Result<std::vector<proto::ResultFile>> Assemble(
      const proto::JobSpec&, const std::vector<proto::OutputPiece>& pieces) const override {
    proto::ResultFile f;
    f.set_name("pieces.txt");
    for (const auto& p : pieces) f.mutable_content()->append(p.name() + "\n");
    return std::vector<proto::ResultFile>{f};
  }
};

const std::vector<std::string> kWorkers = {"worker-0", "worker-1"};
constexpr uint64_t kJob = 3;

class StaticJobFixture {
 public:
  // With `incarnation.resume`, the app checkpoints and the job resumes from it.
  explicit StaticJobFixture(uint64_t iterations = 2, uint32_t eval_every = 2,
                            Incarnation incarnation = {})
      : h_("coordinator", {"scheduler-0", "worker-0", "worker-1"}), plan_(2, 1) {
    spec_.set_app("stub");
    spec_.mutable_static_engine()->set_iterations(iterations);
    spec_.mutable_static_engine()->set_eval_every(eval_every);
    spec_.mutable_static_engine()->set_blocks_per_worker(1);
    app_.checkpoints = incarnation.resume.has_value();
    epoch_ = incarnation.epoch;
    if (app_.checkpoints) spec_.mutable_recovery()->set_checkpoint_every_s(1);
    job_ = std::make_unique<StaticJob>(h_.transport(), kJob, spec_, &app_,
                                       std::vector<JobMember>{{"scheduler-0", ""}},
                                       std::vector<JobMember>{{"worker-0", ""}, {"worker-1", ""}},
                                       h_.log(), h_.now(), JobDeadlines{}, std::move(incarnation));
  }

  void Deliver(const std::string& from, proto::Envelope e) {
    e.set_epoch(epoch_);
    h_.Deliver(*job_, from, kJob, std::move(e));
  }

  // Each worker starts with aggregates {1, 2}.
  void LoadEveryone() {
    job_->Start(h_.now());
    auto s = MakeEnvelope("");
    s.mutable_ready();
    Deliver("scheduler-0", s);
    for (const auto& w : kWorkers) {
      auto e = MakeEnvelope("");
      e.mutable_ready()->add_aggregates(1);
      e.mutable_ready()->add_aggregates(2);
      Deliver(w, e);
    }
  }

  // Worker w reports sub-round r of (iteration, pass): its planned block, aggregate change
  // {w + 1, 10}, and in an evaluation pass score 0.5.
  void SubRoundDone(uint32_t w, uint64_t iteration, uint32_t pass, uint32_t r) {
    auto e = MakeEnvelope("");
    auto* d = e.mutable_sub_round_done();
    d->set_iteration(iteration);
    d->set_pass(pass);
    d->set_sub_round(r);
    d->set_block(plan_.Block(r, w));
    d->add_delta(w + 1);
    d->add_delta(10);
    d->set_work(100);
    if (pass == 1 && r == 1) (*d->mutable_metrics())["score"] = 0.5;
    Deliver(kWorkers[w], e);
  }
  void PassDone(uint64_t iteration, uint32_t pass) {
    auto e = MakeEnvelope("");
    e.mutable_pass_done()->set_iteration(iteration);
    e.mutable_pass_done()->set_pass(pass);
    if (pass == 1) (*e.mutable_pass_done()->mutable_metrics())["score"] = 1.0;
    Deliver("scheduler-0", e);
  }
  void CompletePass(uint64_t iteration, uint32_t pass) {
    for (uint32_t r = 0; r < 2; ++r) {
      for (uint32_t w = 0; w < 2; ++w) SubRoundDone(w, iteration, pass, r);
    }
    PassDone(iteration, pass);
  }

  std::vector<proto::SubRoundStart> SubRoundStarts(const std::string& worker) {
    std::vector<proto::SubRoundStart> out;
    for (const auto& e : h_.Inbox(worker)) {
      if (e.has_sub_round_start()) out.push_back(e.sub_round_start());
    }
    return out;
  }
  // (iteration, pass) of every PassStart the scheduler got.
  std::vector<std::pair<uint64_t, uint32_t>> PassStarts() {
    std::vector<std::pair<uint64_t, uint32_t>> out;
    for (const auto& e : h_.Inbox("scheduler-0")) {
      if (e.has_pass_start()) out.emplace_back(e.pass_start().iteration(), e.pass_start().pass());
    }
    return out;
  }

  ActorHarness h_;
  RotationPlan plan_;
  StubStaticApp app_;
  proto::JobSpec spec_;
  std::unique_ptr<StaticJob> job_;
  uint32_t epoch_ = 0;  // the run's: stamped on every message delivered
};

using Aggregates = std::vector<double>;

Aggregates Of(const proto::SubRoundStart& s) {
  return {s.aggregates().begin(), s.aggregates().end()};
}

}  // namespace

TEST_CASE(
    "StaticJob: loaded, it starts with the evaluation pass and the summed initial "
    "aggregates",
    "[static_job]") {
  StaticJobFixture f;
  f.LoadEveryone();
  CHECK(f.PassStarts() == std::vector<std::pair<uint64_t, uint32_t>>{{0, 1}});
  const auto starts = f.SubRoundStarts("worker-1");
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].sub_round() == 0);
  CHECK(Of(starts[0]) == Aggregates{2, 4});
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
}

TEST_CASE(
    "StaticJob: SubRoundStart r + 1 waits for all P SubRoundDone of r and carries the all-reduce",
    "[static_job][barrier]") {
  StaticJobFixture f;
  f.LoadEveryone();
  f.h_.ClearInboxes();
  f.SubRoundDone(0, 0, 1, 0);
  f.SubRoundDone(0, 0, 1, 0);  // a duplicate counts once
  CHECK(f.SubRoundStarts("worker-0").empty());
  CHECK(f.SubRoundStarts("worker-1").empty());
  f.SubRoundDone(1, 0, 1, 0);
  for (const auto& w : kWorkers) {
    const auto starts = f.SubRoundStarts(w);
    REQUIRE(starts.size() == 1);
    CHECK(starts[0].sub_round() == 1);
    CHECK(Of(starts[0]) == Aggregates{2 + 1 + 2, 4 + 10 + 10});
  }
}

TEST_CASE("StaticJob: a SubRoundDone of another sub-round does not pass the barrier",
          "[static_job][barrier]") {
  StaticJobFixture f;
  f.LoadEveryone();
  f.h_.ClearInboxes();
  f.SubRoundDone(0, 0, 1, 0);
  f.SubRoundDone(1, 0, 1, 1);  // early: ignored
  CHECK(f.SubRoundStarts("worker-0").empty());
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
}

TEST_CASE("StaticJob: a worker that worked on a block the plan did not give it fails the job",
          "[static_job][faults]") {
  StaticJobFixture f;
  f.LoadEveryone();
  auto e = MakeEnvelope("");
  auto* d = e.mutable_sub_round_done();
  d->set_pass(1);
  d->set_block(f.plan_.Block(0, 0));  // worker-0's block, reported by worker-1
  d->add_delta(0);
  d->add_delta(0);
  f.Deliver("worker-1", e);
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("worker-1 worked on block"));
}

TEST_CASE(
    "StaticJob: a pass ends only once the sub-rounds are over and every scheduler has its "
    "blocks back",
    "[static_job][passes]") {
  StaticJobFixture f;
  f.LoadEveryone();
  f.h_.ClearInboxes();
  for (uint32_t r = 0; r < 2; ++r) {
    for (uint32_t w = 0; w < 2; ++w) f.SubRoundDone(w, 0, 1, r);
  }
  CHECK(f.PassStarts().empty());
  f.PassDone(0, 1);
  CHECK(f.PassStarts() == std::vector<std::pair<uint64_t, uint32_t>>{{1, 0}});
}

TEST_CASE(
    "StaticJob: evaluation at iteration 0, every eval_every and the last, then model assembly",
    "[static_job][passes]") {
  StaticJobFixture f(/*iterations=*/3, /*eval_every=*/2);
  f.LoadEveryone();
  f.CompletePass(0, 1);
  f.CompletePass(1, 0);  // iteration 1: no evaluation
  f.CompletePass(2, 0);
  f.CompletePass(2, 1);  // iteration 2: evaluated (2 % 2 == 0)
  f.CompletePass(3, 0);
  f.CompletePass(3, 1);  // the last iteration always evaluates
  CHECK(f.PassStarts() ==
        std::vector<std::pair<uint64_t, uint32_t>>{{0, 1}, {1, 0}, {2, 0}, {2, 1}, {3, 0}, {3, 1}});
  CHECK(f.h_.Kinds("worker-0").back() == Kind::kModelRequest);
  for (const std::string member : {"scheduler-0", "worker-0", "worker-1"}) {
    auto e = MakeEnvelope("");
    e.mutable_static_output()->add_pieces()->set_name("from " + member);
    f.Deliver(member, e);
  }
  const auto info = f.job_->Info(f.h_.now());
  REQUIRE(info.state() == proto::JOB_SUCCEEDED);
  CHECK(info.iteration() == 3);
  CHECK(info.objective() == Approx(0.5 + 0.5 + 1.0));  // both workers' and the scheduler's score
  CHECK(info.updates() == 3 * 2 * 2 * 100);            // work of the non-evaluation passes only
  const auto files = f.job_->ResultFiles();
  CHECK(files.at(0).content() == "from scheduler-0\nfrom worker-0\nfrom worker-1\n");
  CHECK(files.at(1).name() == "trace.csv");
  CHECK(files.at(1).content() == "iteration,score\n0,2\n2,2\n3,2\n");
}

TEST_CASE(
    "StaticJob: a worker silent at the barrier fails the job after the stall deadline, "
    "named",
    "[static_job][faults]") {
  StaticJobFixture f;
  f.LoadEveryone();
  f.SubRoundDone(0, 0, 1, 0);
  f.h_.Advance(61);  // JobDeadlines{}.stall_s is 60
  f.job_->OnTick(f.h_.now());
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("worker-1") && Catch::Contains("sub-round 0"));
  CHECK_THAT(info.error(), !Catch::Contains("worker-0"));
}

TEST_CASE("StaticJob: a cancelled job's results are its trace, sub-rounds and summary, partial",
          "[static_job][partial]") {
  StaticJobFixture f;
  f.LoadEveryone();
  f.CompletePass(0, 1);  // the initial evaluation: trace row 0
  f.job_->Cancel(f.h_.now());
  const auto files = f.job_->ResultFiles();
  std::vector<std::string> names;
  for (const auto& file : files) names.push_back(file.name());
  CHECK(names == std::vector<std::string>{"trace.csv", "subrounds.csv", "summary.json"});
  CHECK(files.at(0).content() == "iteration,score\n0,2\n");
  CHECK_THAT(files.at(2).content(),
             Catch::Contains("\"partial\": true") && Catch::Contains("\"state\": \"CANCELLED\""));
}

TEST_CASE("StaticJob: multi-part replies count once complete, checkpoints restore in bounded parts",
          "[static_job][recovery]") {
  SECTION("the model, in two messages from worker-0") {
    StaticJobFixture f(/*iterations=*/1, /*eval_every=*/1);
    f.LoadEveryone();
    f.CompletePass(0, 1);
    f.CompletePass(1, 0);
    f.CompletePass(1, 1);
    auto part = [&](const std::string& member, const std::string& name, uint32_t part, bool more) {
      auto e = MakeEnvelope("");
      e.mutable_static_output()->add_pieces()->set_name(name);
      e.mutable_static_output()->set_more(more);
      e.mutable_static_output()->set_part(part);
      f.Deliver(member, e);
    };
    part("scheduler-0", "s", 0, false);
    part("worker-0", "w0a", 0, true);
    part("worker-0", "w0a", 0, true);   // a repeat: dropped
    part("worker-0", "w0c", 2, false);  // a gap: dropped
    part("worker-1", "w1", 0, false);
    CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);  // worker-0 is not done
    part("worker-0", "w0b", 1, false);
    REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_SUCCEEDED);
    CHECK(f.job_->ResultFiles().at(0).content() == "s\nw0a\nw1\nw0b\n");
  }
  SECTION("a checkpoint of 3 pieces of 20 MB: 3 StaticRestore messages, the last without more") {
    proto::Checkpoint cp;
    cp.set_iteration(1);
    cp.add_aggregates(5);
    cp.add_aggregates(6);
    for (int i = 0; i < 3; ++i) {
      auto* piece = cp.add_pieces();
      piece->set_name(fmt::format("p{}", i));
      piece->set_text(std::string(20 << 20, 'x'));
    }
    Incarnation inc;
    inc.epoch = 1;
    inc.resume = cp;
    StaticJobFixture f(/*iterations=*/3, /*eval_every=*/1, inc);
    f.LoadEveryone();
    for (const std::string member : {"scheduler-0", "worker-0", "worker-1"}) {
      std::vector<std::string> names;
      std::vector<bool> more;
      std::vector<uint32_t> parts;
      std::vector<proto::Envelope::BodyCase> after;  // what came after the restore
      for (const auto& e : f.h_.Inbox(member)) {
        if (!e.has_static_restore()) {
          if (!names.empty()) after.push_back(e.body_case());
          if (e.has_pass_start()) CHECK(e.pass_start().iteration() == 2);
          if (e.has_sub_round_start()) {
            // It goes on after the checkpoint's iteration, from its aggregates.
            CHECK(e.sub_round_start().iteration() == 2);
            CHECK(Of(e.sub_round_start()) == Aggregates{5, 6});
          }
          continue;
        }
        CHECK(e.ByteSizeLong() <= kStaticChunkBytes + 1024);
        more.push_back(e.static_restore().more());
        parts.push_back(e.static_restore().part());
        for (const auto& p : e.static_restore().pieces()) names.push_back(p.name());
      }
      INFO(member);
      CHECK(names == std::vector<std::string>{"p0", "p1", "p2"});
      CHECK(more == std::vector<bool>{true, true, false});
      CHECK(parts == std::vector<uint32_t>{0, 1, 2});
      CHECK(after == std::vector<proto::Envelope::BodyCase>{
                         member == "scheduler-0" ? Kind::kPassStart : Kind::kSubRoundStart});
    }
  }
  SECTION("a checkpoint's state, in two messages from worker-1") {
    proto::Checkpoint cp;
    cp.set_iteration(1);
    cp.add_aggregates(5);
    cp.add_aggregates(6);
    Incarnation inc;
    inc.epoch = 1;
    inc.resume = cp;
    StaticJobFixture f(/*iterations=*/4, /*eval_every=*/1, inc);  // checkpoints every 1 s
    f.LoadEveryone();
    f.h_.Advance(2);
    f.CompletePass(2, 0);
    f.CompletePass(2, 1);  // iteration 2 ends with a checkpoint due: the state is asked for
    auto state = [&](const std::string& member, const std::string& name, uint32_t part, bool more) {
      auto e = MakeEnvelope("");
      e.mutable_static_output()->set_state(true);
      e.mutable_static_output()->add_pieces()->set_name(name);
      e.mutable_static_output()->set_more(more);
      e.mutable_static_output()->set_part(part);
      f.Deliver(member, e);
    };
    REQUIRE(f.h_.Kinds("worker-1").back() == Kind::kStateRequest);
    f.PassStarts();  // drained
    state("scheduler-0", "s", 0, false);
    state("worker-0", "w0", 0, false);
    state("worker-1", "w1a", 0, true);
    state("worker-1", "w1a", 0, true);  // a repeat: dropped
    CHECK(f.PassStarts().empty());      // still collecting
    CHECK(f.job_->checkpoints_collected() == 0);
    state("worker-1", "w1b", 1, false);
    state("worker-1", "w1b", 1, false);  // after the last: dropped
    CHECK(f.job_->checkpoints_collected() == 1);
    CHECK(f.PassStarts() == std::vector<std::pair<uint64_t, uint32_t>>{{3, 0}});
    const auto taken = f.job_->TakeCheckpoint(f.h_.now());
    REQUIRE(taken);
    CHECK(taken->iteration() == 2);
    std::vector<std::string> names;
    for (const auto& p : taken->pieces()) names.push_back(p.name());
    CHECK(names == std::vector<std::string>{"s", "w0", "w1a", "w1b"});
  }
}

}  // namespace strads
