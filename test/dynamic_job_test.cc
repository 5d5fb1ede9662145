// DynamicJob (coordinator/dynamic_job.h) as a unit: the test plays 2 schedulers and 2 workers by
// reading what the job sent them and answering by hand, on a fake clock. The app is a stub whose
// loss is the sum of the squares of the shared vector and whose penalty is |value|, so every
// number is checkable by hand.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "actor_harness.h"
#include "app_stub.h"
#include "coordinator/dynamic_job.h"
#include "engine/vector_delta.h"

namespace strads {
namespace {

using Kind = proto::Envelope::BodyCase;
using testing::ActorHarness;

// Loss: the sum of the squared entries of the shared vector; penalty: |value|.
class StubApp final : public testing::AppStub<DynamicApp> {
 public:
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset,
                                                       const proto::JobSpec&) const override {
    return Status::Internal("the coordinator never makes column models");
  }
  double Violation(double, double, const proto::JobSpec&) const override { return 0; }
  double Penalty(double value, const proto::JobSpec&) const override { return std::abs(value); }
  double PenaltySlope(double value, double d, const proto::JobSpec&) const override {
    return value > 0 ? d : value < 0 ? -d : std::abs(d);
  }
  double LossSlope(double, double shared) const override { return 2 * shared; }
  double Loss(std::span<const double>, std::span<const double> shared) const override {
    double sum = 0.0;
    for (double v : shared) sum += v * v;
    return sum;
  }
};

const std::vector<std::string> kSchedulers = {"scheduler-0", "scheduler-1"};
const std::vector<std::string> kWorkers = {"worker-0", "worker-1"};
constexpr uint64_t kJob = 7;

class DynamicJobFixture {
 public:
  // By default no check comes while the tests drive rounds.
  explicit DynamicJobFixture(uint32_t depth = 3, uint64_t check_every = 1000,
                             Incarnation incarnation = {},
                             proto::Schedule schedule = proto::SCHEDULE_UNSPECIFIED,
                             uint64_t max_updates = 0,
                             proto::Aggregation aggregation = proto::AGGREGATION_UNSPECIFIED)
      : h_("coordinator", Everyone()), epoch_(incarnation.epoch) {
    spec_.mutable_dynamic()->set_max_updates(max_updates);
    spec_.mutable_dynamic()->set_aggregation(aggregation);
    spec_.mutable_dynamic()->set_fan_in(2);
    spec_.set_app("stub");
    spec_.mutable_dynamic()->set_schedule(schedule);
    spec_.mutable_dynamic()->set_pipeline_depth(depth);
    spec_.mutable_dynamic()->set_tolerance(1e-3);
    spec_.mutable_dynamic()->set_check_every(check_every);
    JobDeadlines deadlines;
    deadlines.load_s = 100;
    deadlines.stall_s = 10;
    std::vector<JobMember> s, w;
    for (const auto& id : kSchedulers) s.push_back({id, "inproc://" + id});
    for (const auto& id : kWorkers) w.push_back({id, "inproc://" + id});
    // The stopwatch is the fake clock: handling a message takes no time, so the wait ledger's
    // figures are exact.
    job_ = std::make_unique<DynamicJob>(h_.transport(), kJob, spec_, &app_, s, w, h_.log(),
                                        h_.now(), deadlines, std::move(incarnation),
                                        [this] { return h_.now(); });
  }

  static std::vector<std::string> Everyone() {
    auto all = kSchedulers;
    all.insert(all.end(), kWorkers.begin(), kWorkers.end());
    return all;
  }

  // A message of this run (its epoch) from `from`.
  void Deliver(const std::string& from, proto::Envelope e) {
    e.set_epoch(epoch_);
    h_.Deliver(*job_, from, kJob, std::move(e));
  }
  // The same from another run of the job.
  void DeliverStale(const std::string& from, proto::Envelope e, uint32_t epoch) {
    e.set_epoch(epoch);
    h_.Deliver(*job_, from, kJob, std::move(e));
  }

  // Both schedulers own half of 10 parameters; the shared vector is one row, value 1 (loss 1).
  void LoadEveryone() {
    job_->Start(h_.now());
    ReadySchedulers();
    ReadyWorkers({1.0});
  }

  // Every worker reports Ready over shared.size() rows, and worker 0 exports the shared vector
  // (labels 1), which becomes the coordinator's replica.
  void ReadyWorkers(const std::vector<double>& shared) {
    for (size_t w = 0; w < kWorkers.size(); ++w) {
      auto e = MakeEnvelope("");
      e.mutable_ready()->set_num_rows(shared.size());
      for (double v : shared) {
        if (w != 0) break;
        e.mutable_ready()->mutable_shared()->add_labels(1);
        e.mutable_ready()->mutable_shared()->add_values(v);
      }
      Deliver(kWorkers[w], e);
    }
  }

  // Both schedulers report Ready: each owns half of 10 parameters.
  void ReadySchedulers() {
    for (size_t s = 0; s < kSchedulers.size(); ++s) {
      auto e = MakeEnvelope("");
      auto* r = e.mutable_ready();
      r->set_num_features(10);
      r->set_first_param(5 * s);
      r->set_end_param(5 * (s + 1));
      Deliver(kSchedulers[s], e);
    }
  }

  // Answers the check in progress: each worker reports, each scheduler `violation` with max
  // gradient 10 and penalty `penalty`.
  void AnswerCheck(double violation, double penalty, uint64_t round) {
    WorkersReport(round);
    for (size_t s = 0; s < kSchedulers.size(); ++s) SchedulerReports(s, violation, penalty, round);
  }
  // The workers' part of the check of `round` (the loss is the coordinator's replica's): in a
  // tree the root's report alone.
  void WorkersReport(uint64_t round) {
    const bool tree = spec_.dynamic().aggregation() == proto::AGGREGATION_TREE;
    for (const auto& w : kWorkers) {
      if (tree && w != kWorkers[0]) break;
      auto e = MakeEnvelope("", 0, round);
      e.mutable_loss_report();
      Deliver(w, e);
    }
  }
  // Scheduler `s` reports the check of `round`: `violation`, max gradient 10, `penalty`.
  void SchedulerReports(size_t s, double violation, double penalty, uint64_t round) {
    auto e = MakeEnvelope("", 0, round);
    auto* r = e.mutable_check_report();
    r->set_max_violation(violation);
    r->set_max_abs_gradient(10);
    r->set_penalty(penalty);
    Deliver(kSchedulers[s], e);
  }

  // Loaded, first check answered (not converged): the job is issuing rounds; the inboxes empty,
  // round 0 asked for with the check.
  void StartRunning() {
    LoadEveryone();
    AnswerCheck(5, 0, 0);
    h_.ClearInboxes();
  }

  // Scheduler t mod 2 answers round t with one parameter, id `param`, value 1.
  void SendChord(uint64_t t, uint64_t param) {
    auto e = MakeEnvelope("", 0, t);
    auto* c = e.mutable_chord();
    c->set_scheduler_rank(uint32_t(t % 2));
    c->add_ids(param);
    c->add_values(1.0);
    Deliver(kSchedulers[t % 2], e);
  }
  // Scheduler-0's chord of round 0, `ids` at `value` each.
  void SendColumnChord(std::initializer_list<uint64_t> ids, double value) {
    auto e = MakeEnvelope("", 0, 0);
    e.mutable_chord()->set_scheduler_rank(0);
    for (uint64_t j : ids) {
      e.mutable_chord()->add_ids(j);
      e.mutable_chord()->add_values(value);
    }
    Deliver("scheduler-0", e);
  }
  // `worker`'s share of round t: the new values of the (id, value) pairs of `updates` and the
  // change `change` of the one-row shared vector (none when 0).
  void SendShare(const std::string& worker, uint64_t t,
                 std::vector<std::pair<uint64_t, double>> updates, double change = 0) {
    auto e = MakeEnvelope("", 0, t);
    auto* p = e.mutable_column_partials();
    for (const auto& [j, value] : updates) {
      p->add_ids(j);
      p->add_values(value);
    }
    p->mutable_change()->set_size(1);
    if (change != 0) {
      p->mutable_change()->add_indices(0);
      p->mutable_change()->add_values(change);
    }
    Deliver(worker, e);
  }
  // Round t complete: its chord (parameter `param`, value 1), worker-0's share moving it to
  // `value`, worker-1's empty one.
  void CompleteRound(uint64_t t, uint64_t param, double value) {
    SendChord(t, param);
    SendShare("worker-0", t, {{param, value}});
    SendShare("worker-1", t, {});
  }

  // Round t with an exhausted chord (nothing to schedule) from scheduler t mod 2, and both
  // workers' (empty) shares of it.
  void ExhaustedRound(uint64_t t) {
    auto e = MakeEnvelope("", 0, t);
    e.mutable_chord()->set_scheduler_rank(uint32_t(t % 2));
    e.mutable_chord()->set_exhausted(true);
    Deliver(kSchedulers[t % 2], e);
    for (const auto& w : kWorkers) SendShare(w, t, {});
  }

  // Both workers send the counts of their parts of the file (one row, one column each).
  void SendCounts() {
    for (const auto& w : kWorkers) {
      auto e = MakeEnvelope("");
      e.mutable_column_counts()->set_rows(1);
      e.mutable_column_counts()->add_counts(1);
      Deliver(w, e);
    }
  }

  // The rounds of the messages of `kind` in `peer`'s inbox.
  std::vector<uint64_t> Rounds(const std::string& peer, Kind kind) {
    std::vector<uint64_t> out;
    for (const auto& e : h_.Inbox(peer)) {
      if (e.body_case() == kind) out.push_back(e.round());
    }
    return out;
  }

  // The rounds whose chords `peer` was asked for, in order: by a ChordRequest, or by a commit or
  // a check request that carries the request.
  std::vector<uint64_t> Requested(const std::string& peer) {
    std::vector<uint64_t> out;
    for (const auto& e : h_.Inbox(peer)) {
      if (e.body_case() == Kind::kChordRequest) out.push_back(e.round());
      if (e.body_case() == Kind::kCommit && e.commit().requests_chord()) {
        out.push_back(e.commit().chord_round());
      }
      if (e.body_case() == Kind::kCheckRequest && e.check_request().requests_chord()) {
        out.push_back(e.check_request().chord_round());
      }
    }
    return out;
  }

  ActorHarness h_;
  const uint32_t epoch_;
  StubApp app_;
  proto::JobSpec spec_;
  std::unique_ptr<DynamicJob> job_;
};

}  // namespace

TEST_CASE("DynamicJob: JobStart gives every member its rank and the workers' ids",
          "[dynamic_job]") {
  DynamicJobFixture f;
  f.job_->Start(f.h_.now());
  for (size_t w = 0; w < kWorkers.size(); ++w) {
    auto inbox = f.h_.Inbox(kWorkers[w]);
    REQUIRE(inbox.size() == 1);
    CHECK(inbox[0].job_start().rank() == w);
    CHECK(inbox[0].job_start().num_schedulers() == 2);
    CHECK(inbox[0].job_start().worker_ids(1) == "worker-1");
  }
  CHECK(f.h_.Inbox("scheduler-1").at(0).job_start().rank() == 1);
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_LOADING);
}

TEST_CASE("DynamicJob: once all are ready, workers get Begin and everyone the first check",
          "[dynamic_job]") {
  DynamicJobFixture f;
  f.LoadEveryone();
  CHECK(f.h_.Kinds("worker-0") == std::vector{Kind::kJobStart, Kind::kBegin, Kind::kCheckRequest});
  CHECK(f.h_.Kinds("scheduler-1") == std::vector{Kind::kJobStart, Kind::kCheckRequest});
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
}

TEST_CASE("DynamicJob: schedulers whose ranges do not tile the parameters fail the job",
          "[dynamic_job]") {
  DynamicJobFixture f;
  f.job_->Start(f.h_.now());
  for (size_t s = 0; s < 2; ++s) {
    auto e = MakeEnvelope("");
    e.mutable_ready()->set_num_features(10);
    e.mutable_ready()->set_first_param(4 * s);  // [0,4) and [4,8): 8 of 10
    e.mutable_ready()->set_end_param(4 * (s + 1));
    f.Deliver(kSchedulers[s], e);
  }
  f.ReadyWorkers({1.0});
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("8 of 10"));
}

TEST_CASE("DynamicJob: at depth D, D chord requests are in flight, round-robin over schedulers",
          "[dynamic_job][pipeline]") {
  DynamicJobFixture f(/*depth=*/3);
  f.LoadEveryone();
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{0});  // with the first check
  CHECK(f.Requested("scheduler-1").empty());
  f.h_.ClearInboxes();
  f.AnswerCheck(5, 0, 0);  // not converged: rounds start
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{2});
  CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{1});
  // Round 1 completing first opens no slot: the window is counted from the oldest uncommitted.
  f.CompleteRound(1, 6, 2);
  CHECK(f.Requested("scheduler-1").empty());
  // Committing rounds 0 and 1 opens two slots: rounds 3 and 4.
  f.CompleteRound(0, 0, 1.75);
  CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{3});
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{4});
}

TEST_CASE("DynamicJob: paced by time, one round a scheduler follows the first check, then a check",
          "[dynamic_job][pipeline][pacer]") {
  DynamicJobFixture f(/*depth=*/3, /*check_every=*/0);  // 0: the time rule; 2 schedulers
  f.LoadEveryone();
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{0});  // with the first check
  f.h_.ClearInboxes();
  f.AnswerCheck(5, 0, 0);  // the first check, which held the start
  CHECK(f.Requested("scheduler-0").empty());
  CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{1});
  f.CompleteRound(0, 0, 1.75);
  CHECK(f.Rounds("worker-0", Kind::kCheckRequest).empty());  // round 1 drains first
  CHECK(f.Requested("scheduler-0").empty());                 // and nothing more is asked
  f.CompleteRound(1, 6, 1.75);
  CHECK(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{2});
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{2});  // with the check
  f.h_.ClearInboxes();
  f.AnswerCheck(5, 0, 2);  // measured: the pipeline fills to its depth again
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{4});
  CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{3});
}

TEST_CASE("DynamicJob: a chord request rides on its scheduler's last commit, the others go alone",
          "[dynamic_job][pipeline]") {
  DynamicJobFixture f(/*depth=*/3);
  f.LoadEveryone();
  f.AnswerCheck(5, 0, 0);
  f.CompleteRound(1, 6, 2);
  f.h_.ClearInboxes();
  f.CompleteRound(0, 0, 1.75);  // commits 0 and 1, opens rounds 3 and 4
  // scheduler-1 (rounds 1, 3): one message, the commit of round 1 that asks for round 3.
  const auto one = f.h_.Inbox("scheduler-1");
  REQUIRE(one.size() == 1);
  REQUIRE(one[0].body_case() == Kind::kCommit);
  CHECK(one[0].round() == 1);
  CHECK(one[0].commit().requests_chord());
  CHECK(one[0].commit().chord_round() == 3);
  // scheduler-0 (rounds 0, 4): its commit, which was not the last, then a request of its own.
  const auto zero = f.h_.Inbox("scheduler-0");
  REQUIRE(zero.size() == 2);
  CHECK(zero[0].body_case() == Kind::kCommit);
  CHECK(zero[0].round() == 0);
  CHECK_FALSE(zero[0].commit().requests_chord());
  CHECK(zero[1].body_case() == Kind::kChordRequest);
  CHECK(zero[1].round() == 4);
}

TEST_CASE(
    "DynamicJob: rounds commit in order: the summed change to the workers, the commit to the "
    "scheduler",
    "[dynamic_job][pipeline]") {
  DynamicJobFixture f(3);
  f.StartRunning();
  // Round 1 is complete before round 0: nothing may be committed yet.
  f.SendChord(1, 6);
  f.SendShare("worker-0", 1, {{6, 4.0}});
  f.SendShare("worker-1", 1, {});
  CHECK(f.Rounds("worker-0", Kind::kSharedUpdate).empty());
  f.SendShare("worker-0", 0, {{2, 1.75}});
  f.SendShare("worker-1", 0, {});
  CHECK(f.Rounds("worker-1", Kind::kSharedUpdate).empty());  // round 0 still lacks its chord
  f.SendChord(0, 2);
  CHECK(f.Rounds("worker-0", Kind::kSharedUpdate) == std::vector<uint64_t>{0, 1});
  CHECK(f.Rounds("worker-1", Kind::kSharedUpdate) == std::vector<uint64_t>{0, 1});
  CHECK(f.Rounds("worker-0", Kind::kCommit).empty());  // workers take values from their shares
  auto commit_of = [&](const std::string& scheduler) {
    for (const auto& e : f.h_.Inbox(scheduler)) {
      if (e.has_commit()) return e;
    }
    FAIL("no commit to " << scheduler);
    return proto::Envelope();
  };
  const proto::Envelope c0 = commit_of("scheduler-0");
  CHECK(c0.round() == 0);
  CHECK(c0.commit().ids(0) == 2);
  CHECK(c0.commit().values(0) == Approx(1.75));
  CHECK(c0.commit().deltas(0) == Approx(0.75));
  const proto::Envelope c1 = commit_of("scheduler-1");
  CHECK(c1.round() == 1);
  CHECK(c1.commit().values(0) == Approx(4.0));
  CHECK(f.job_->Info(f.h_.now()).updates() == 2);
  CHECK(f.job_->Info(f.h_.now()).round() == 2);
}

TEST_CASE("DynamicJob: a chord from a scheduler that does not own the round fails the job",
          "[dynamic_job]") {
  DynamicJobFixture f(3);
  f.StartRunning();
  auto e = MakeEnvelope("", 0, 1);
  e.mutable_chord()->add_ids(1);
  e.mutable_chord()->add_values(0);
  f.Deliver("scheduler-0", e);  // round 1 belongs to scheduler-1
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_FAILED);
  CHECK_THAT(f.job_->Info(f.h_.now()).error(), Catch::Contains("does not own"));
  CHECK(f.h_.Kinds("worker-0") == std::vector{Kind::kJobEnd});
}

TEST_CASE("DynamicJob: a stall past the deadline fails the job naming who is silent",
          "[dynamic_job][faults]") {
  DynamicJobFixture f(1);
  f.StartRunning();
  f.SendChord(0, 1);
  f.SendShare("worker-0", 0, {{1, 1.5}});
  f.h_.Advance(9);
  f.job_->OnTick(f.h_.now());
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);  // within the 10 s deadline
  f.h_.Advance(2);
  f.job_->OnTick(f.h_.now());
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("worker-1 (partials 0)"));
  CHECK_THAT(info.error(), !Catch::Contains("worker-0"));
  CHECK_THAT(info.error(), !Catch::Contains("scheduler-0"));
}

TEST_CASE("DynamicJob: members silent while loading fail the job after the load deadline, named",
          "[dynamic_job][faults]") {
  DynamicJobFixture f;
  f.job_->Start(f.h_.now());
  f.SendCounts();  // the file is counted: now the members load
  auto e = MakeEnvelope("");
  e.mutable_ready()->set_num_rows(1);
  e.mutable_ready()->mutable_shared()->add_labels(1);
  e.mutable_ready()->mutable_shared()->add_values(1);
  f.Deliver("worker-0", e);
  f.h_.Advance(101);
  f.job_->OnTick(f.h_.now());
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("loading") && Catch::Contains("scheduler-0") &&
                               Catch::Contains("scheduler-1") && Catch::Contains("worker-1"));
  CHECK_THAT(info.error(), !Catch::Contains("worker-0"));
}

TEST_CASE("DynamicJob: a member's error report fails the job with the member and its cause",
          "[dynamic_job][faults]") {
  DynamicJobFixture f;
  f.job_->Start(f.h_.now());
  auto e = MakeEnvelope("");
  e.mutable_job_failed()->set_error("/data/x.svm:3: bad token");
  f.Deliver("worker-1", e);
  CHECK(f.job_->Info(f.h_.now()).error() == "worker-1: /data/x.svm:3: bad token");
}

TEST_CASE("DynamicJob: a converged check asks for the model and ends with the coefficients",
          "[dynamic_job][check]") {
  DynamicJobFixture f;
  f.LoadEveryone();
  // lambda_max is the first check's max gradient, 10; violation 0.005 / 10 <= 1e-3: converged.
  f.AnswerCheck(/*violation=*/0.005, /*penalty=*/0.5, 0);
  CHECK(f.Rounds("scheduler-0", Kind::kModelRequest).size() == 1);
  CHECK(f.Rounds("worker-0", Kind::kChordRequest).empty());
  for (size_t s = 0; s < 2; ++s) {
    auto e = MakeEnvelope("");
    e.mutable_model_slice()->add_ids(5 * s + 1);
    e.mutable_model_slice()->add_values(0.5 + s);
    f.Deliver(kSchedulers[1 - s], e);  // out of order on purpose
  }
  const auto info = f.job_->Info(f.h_.now());
  REQUIRE(info.state() == proto::JOB_SUCCEEDED);
  CHECK(info.converged());
  CHECK(info.objective() == Approx(1 + 2 * 0.5));  // the replica's loss + the penalties
  CHECK(f.job_->ResultFiles().at(0).name() == "coefficients.tsv");
  CHECK(f.job_->ResultFiles().at(0).content() == "2\t0.5\n7\t1.5\n");  // 1-based, sorted
}

TEST_CASE(
    "DynamicJob: between checks the objective is the replica's loss plus the penalty of the "
    "commits",
    "[dynamic_job][check]") {
  DynamicJobFixture f(1);
  f.StartRunning();  // the check measured loss 1, penalty 0
  f.SendChord(0, 3);
  f.SendShare("worker-0", 0, {{3, 3.0}}, /*change=*/1.0);  // the shared vector 1 -> 2
  f.SendShare("worker-1", 0, {});
  // One worker moved: its share is taken whole. Loss 2^2; penalty |3| - |1| = 2 added to 0.
  CHECK(f.job_->Info(f.h_.now()).objective() == Approx(4 + 2));
}

TEST_CASE("DynamicJob: after check_every updates the pipeline drains and a check follows",
          "[dynamic_job][check]") {
  DynamicJobFixture f(/*depth=*/2, /*check_every=*/1);
  f.StartRunning();
  f.CompleteRound(0, 1, 3);
  // Round 1 is still in flight: no check before it is committed.
  CHECK(f.Rounds("worker-0", Kind::kCheckRequest).empty());
  f.CompleteRound(1, 6, 3);
  const auto rounds = f.Rounds("worker-1", Kind::kCheckRequest);
  CHECK(rounds == std::vector<uint64_t>{2});  // stamped with the next round: after every commit
  // The last commit, held back in case a chord request could ride on it, still reaches its
  // scheduler before the check does (and asks for no chord: the check stopped issuing).
  const auto inbox = f.h_.Inbox("scheduler-1");
  REQUIRE(inbox.size() >= 2);
  const proto::Envelope& commit = inbox[inbox.size() - 2];
  CHECK(commit.body_case() == Kind::kCommit);
  CHECK(commit.round() == 1);
  CHECK_FALSE(commit.commit().requests_chord());
  CHECK(inbox.back().body_case() == Kind::kCheckRequest);
  CHECK_FALSE(inbox.back().check_request().requests_chord());
  // Round 2's scheduler is asked for its chord with the check, to build it once it has
  // reported.
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{2});
  // Not converged and parameters moved since the last check: rounds resume (a check is due after
  // the next round, so one round a scheduler).
  f.AnswerCheck(5, 0, 2);
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
  CHECK(f.Requested("scheduler-0").empty());
  CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{3});
}

TEST_CASE(
    "DynamicJob: a round in before its check ends is committed after it, or dropped if the job "
    "ends",
    "[dynamic_job][check]") {
  for (const bool converged : {false, true}) {
    DYNAMIC_SECTION("the check converges: " << converged) {
      DynamicJobFixture f(/*depth=*/1);
      f.LoadEveryone();
      REQUIRE(f.Requested("scheduler-0") == std::vector<uint64_t>{0});
      // Scheduler 0 has reported and sent round 0's chord, the workers their partials, before
      // scheduler 1's report ends the check.
      f.WorkersReport(0);
      auto report = [&](size_t s) { f.SchedulerReports(s, converged ? 0 : 5, 0, 0); };
      report(0);
      f.CompleteRound(0, 3, 3);
      CHECK(f.Rounds("worker-0", Kind::kSharedUpdate).empty());  // not while checking
      CHECK(f.job_->Info(f.h_.now()).updates() == 0);
      report(1);
      if (converged) {
        CHECK(f.Rounds("worker-0", Kind::kSharedUpdate).empty());
        CHECK(f.Rounds("scheduler-0", Kind::kModelRequest) == std::vector<uint64_t>{0});
        CHECK(f.job_->Info(f.h_.now()).updates() == 0);
      } else {
        CHECK(f.Rounds("worker-0", Kind::kSharedUpdate) == std::vector<uint64_t>{0});
        CHECK(f.job_->Info(f.h_.now()).updates() == 1);
        CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{1});  // and the next round
      }
    }
  }
}

TEST_CASE("DynamicJob: a check at a limit asks for no round, since the model follows it",
          "[dynamic_job][check]") {
  DynamicJobFixture f(/*depth=*/1, /*check_every=*/1000, {}, proto::SCHEDULE_UNSPECIFIED,
                      /*max_updates=*/1);
  f.StartRunning();
  f.CompleteRound(0, 3, 3);  // the limit: a check, the last
  REQUIRE(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{1});
  CHECK(f.Requested("scheduler-0").empty());
  CHECK(f.Requested("scheduler-1").empty());
  f.AnswerCheck(5, 0, 1);
  CHECK(f.Rounds("scheduler-0", Kind::kModelRequest) == std::vector<uint64_t>{1});
}

TEST_CASE(
    "DynamicJob: an exhausted chord that came during a check asks for the next check once "
    "committed",
    "[dynamic_job][check]") {
  DynamicJobFixture f(/*depth=*/1, /*check_every=*/1);
  f.StartRunning();
  f.CompleteRound(0, 3, 3);  // a check follows; round 1 is asked for with it
  REQUIRE(f.Requested("scheduler-1") == std::vector<uint64_t>{1});
  f.WorkersReport(1);
  auto report = [&](size_t s) { f.SchedulerReports(s, 5, 0, 1); };
  report(1);
  f.ExhaustedRound(1);  // scheduler 1 has nothing; the workers answer its empty chord
  CHECK(f.job_->Info(f.h_.now()).round() == 1);  // not committed during the check
  f.h_.ClearInboxes();
  report(0);  // the check ends, not converged: round 1 commits, and its exhaustion asks a check
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
  CHECK(f.job_->Info(f.h_.now()).round() == 2);
  CHECK(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{2});
  CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{2});  // asked with that check
}

TEST_CASE(
    "DynamicJob: the job fails for no progress only once every scheduler has had nothing to "
    "schedule",
    "[dynamic_job][check]") {
  DynamicJobFixture f(/*depth=*/1);
  f.StartRunning();
  // Scheduler 0 has nothing (e.g. --eta 0 and its parameters optimal): an exhausted chord, so a
  // check follows the round at once, and it finds no update since the first check.
  f.ExhaustedRound(0);
  REQUIRE(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{1});
  // Scheduler 1 was never asked: it is, with the check, and its chord moves a parameter.
  CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{1});
  f.h_.ClearInboxes();
  f.AnswerCheck(5, 0, 1);
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
  f.CompleteRound(1, 6, 3);
  CHECK(f.job_->Info(f.h_.now()).updates() == 1);
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);

  // Later both have nothing. The check after scheduler 0's exhaustion sees round 1's update
  // (progress: the marks start over); after it, the job ends once both schedulers said so.
  f.h_.ClearInboxes();
  f.ExhaustedRound(2);
  REQUIRE(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{3});
  f.AnswerCheck(5, 0, 3);
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
  f.h_.ClearInboxes();
  f.ExhaustedRound(3);
  REQUIRE(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{4});
  f.AnswerCheck(5, 0, 4);
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
  f.h_.ClearInboxes();
  f.ExhaustedRound(4);
  f.AnswerCheck(5, 0, 5);
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("no parameter could be scheduled"));
}

TEST_CASE(
    "DynamicJob: the time rule: a check once rounds took as long as the last, for priority "
    "schedules",
    "[dynamic_job][check]") {
  struct Case {
    uint64_t every;
    proto::Schedule schedule;
    bool timed;
  };
  for (const Case c :
       {Case{0, proto::SCHEDULE_UNSPECIFIED, true}, Case{0, proto::SCHEDULE_DYNAMIC, true},
        Case{1000, proto::SCHEDULE_DYNAMIC, false}, Case{0, proto::SCHEDULE_RANDOM, false},
        Case{0, proto::SCHEDULE_CYCLIC, false}}) {
    DYNAMIC_SECTION("check_every " << c.every << ", schedule " << c.schedule) {
      DynamicJobFixture f(/*depth=*/1, c.every, {}, c.schedule);
      f.LoadEveryone();  // the first check is wanted now; it holds the start, so no measure
      f.h_.Advance(2);
      f.AnswerCheck(5, 0, 0);
      f.h_.ClearInboxes();
      f.CompleteRound(0, 1, 3);
      if (c.timed) {
        // The next check comes right after the first round, and is measured: 2 s.
        CHECK(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{1});
        f.h_.Advance(2);
        f.AnswerCheck(5, 0, 1);
      } else {
        CHECK(f.Rounds("worker-0", Kind::kCheckRequest).empty());
      }
      f.h_.ClearInboxes();
      f.h_.Advance(1);
      f.CompleteRound(1, 6, 3);  // 1 s of rounds: 2 updates of the J = 10 (auto) or 1000
      CHECK(f.Rounds("worker-0", Kind::kCheckRequest).empty());
      CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{2});
      f.h_.Advance(1.5);
      f.CompleteRound(2, 2, 3);  // 2.5 s of rounds, 3 updates
      if (c.timed) {
        CHECK(f.Rounds("worker-1", Kind::kCheckRequest) == std::vector<uint64_t>{3});
        const auto inbox = f.h_.Inbox("scheduler-1");  // round 3 is asked for with the check
        REQUIRE(!inbox.empty());
        CHECK(inbox.back().body_case() == Kind::kCheckRequest);
        CHECK(inbox.back().check_request().chord_round() == 3);
      } else {
        CHECK(f.Rounds("worker-1", Kind::kCheckRequest).empty());
        CHECK(f.Requested("scheduler-1") == std::vector<uint64_t>{3});
      }
    }
  }
}

namespace {

// The result file `name`, or a failed test.
std::string FileContent(const std::vector<proto::ResultFile>& files, const std::string& name) {
  for (const auto& f : files) {
    if (f.name() == name) return f.content();
  }
  FAIL("no " << name);
  return "";
}

size_t Lines(const std::string& text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("DynamicJob: trace.csv has one row per state, none while the first check runs",
          "[dynamic_job][trace]") {
  DynamicJobFixture f;
  f.LoadEveryone();  // the first check is running
  f.h_.Advance(2);
  f.job_->OnTick(f.h_.now());                              // no timed row while the check runs
  f.AnswerCheck(/*violation=*/0.005, /*penalty=*/0.5, 0);  // converged
  for (size_t s = 0; s < 2; ++s) {
    auto e = MakeEnvelope("");
    e.mutable_model_slice();
    f.Deliver(kSchedulers[s], e);
  }
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_SUCCEEDED);
  const std::string trace = FileContent(f.job_->ResultFiles(), "trace.csv");
  INFO(trace);
  REQUIRE(Lines(trace) == 2);
  CHECK_THAT(trace, Catch::EndsWith(",0,0,2,dynamic,0\n"));  // the check's exact objective
  CHECK_THAT(FileContent(f.job_->ResultFiles(), "summary.json"),
             Catch::Contains("\"partial\": false"));
}

TEST_CASE("DynamicJob: a timed trace row comes only for a new state, never stamped later than it",
          "[dynamic_job][trace]") {
  DynamicJobFixture f(/*depth=*/2);
  f.StartRunning();  // the first check's row, at 0 updates
  f.h_.Advance(2);   // past --trace-every (1 s by default)
  f.CompleteRound(0, 0, 1.75);
  const double committed_at = f.job_->Info(f.h_.now()).seconds();  // the trace's clock
  // Round 1's chord and a tick, seconds later, with no commit between: the state is the same.
  f.h_.Advance(2);
  f.SendChord(1, 6);
  f.h_.Advance(2);
  f.job_->OnTick(f.h_.now());
  f.job_->Cancel(f.h_.now());
  const std::string trace = FileContent(f.job_->ResultFiles(), "trace.csv");
  INFO(trace);
  REQUIRE(Lines(trace) == 3);  // the header, the check's row, round 0's
  const std::string last = trace.substr(trace.rfind('\n', trace.size() - 2) + 1);
  CHECK(last.rfind(fmt::format("{:.6f},1,1,", committed_at), 0) == 0);
}

TEST_CASE(
    "DynamicJob: a cancelled job's results are its trace and the committed values, marked "
    "partial",
    "[dynamic_job][partial]") {
  DynamicJobFixture f(1);
  f.StartRunning();
  f.CompleteRound(0, 3, 3);  // parameter 3 (id 4 in the file): 1 + 2
  f.SendChord(1, 6);
  f.job_->Cancel(f.h_.now());
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_CANCELLED);
  const auto files = f.job_->ResultFiles();
  CHECK(FileContent(files, "coefficients.tsv") == "4\t3\n");
  CHECK(Lines(FileContent(files, "trace.csv")) >= 2);
  const std::string summary = FileContent(files, "summary.json");
  CHECK_THAT(summary, Catch::Contains("\"state\": \"CANCELLED\"") &&
                          Catch::Contains("\"partial\": true") &&
                          Catch::Contains("\"nonzeros\": 1"));
  // The settings it ran with, resolved (the fixture's spec: depth 1).
  CHECK_THAT(summary, Catch::Contains("\"engine\": {") && Catch::Contains("\"pipeline_depth\": 1"));
}

TEST_CASE(
    "DynamicJob: summary.json's waits split the solve into chords, shares and each side of a check",
    "[dynamic_job][waits]") {
  DynamicJobFixture f(/*depth=*/1, /*check_every=*/2);
  f.StartRunning();  // the solve starts at the end of the first check
  f.h_.Advance(0.003);
  f.SendChord(0, 3);  // 3 ms on round 0's chord
  f.h_.Advance(0.007);
  f.SendShare("worker-0", 0, {{3, 2.0}});
  f.SendShare("worker-1", 0, {});  // 7 ms on its shares
  f.h_.Advance(0.002);
  f.SendChord(1, 6);  // 2 ms on round 1's
  f.h_.Advance(0.004);
  f.SendShare("worker-0", 1, {{6, 2.0}});
  f.h_.Advance(0.0005);  // still on the workers: round 1 waits for worker-1
  f.SendShare("worker-1", 1, {});
  REQUIRE(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{2});
  f.h_.Advance(0.005);  // 5 ms on the workers' part of the check
  f.WorkersReport(2);
  f.h_.Advance(0.001);  // 1 ms on the schedulers' (converged: the job asks for its model)
  for (size_t s = 0; s < kSchedulers.size(); ++s) f.SchedulerReports(s, 0, 0, 2);
  f.h_.Advance(1);  // the model's collection is not solving
  for (const auto& s : kSchedulers) {
    auto e = MakeEnvelope("");
    e.mutable_model_slice();
    f.Deliver(s, e);
  }
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_SUCCEEDED);
  const auto summary = nlohmann::json::parse(FileContent(f.job_->ResultFiles(), "summary.json"));
  const auto& waits = summary.at("waits");
  INFO(waits.dump());
  // The stopwatch is the fake clock: handling takes no time, and every figure is exact (to the
  // rounding of the sums of seconds).
  constexpr double kExact = 1e-12;
  CHECK(waits.at("coordinator_s").get<double>() == 0.0);
  CHECK(waits.at("chord_s").get<double>() == Approx(0.005).margin(kExact));
  CHECK(waits.at("workers_s").get<double>() == Approx(0.0115).margin(kExact));
  CHECK(waits.at("check_workers_s").get<double>() == Approx(0.005).margin(kExact));
  CHECK(waits.at("check_schedulers_s").get<double>() == Approx(0.001).margin(kExact));
  CHECK(waits.at("other_s").get<double>() == Approx(0).margin(kExact));
  CHECK(waits.at("schedulers_share").get<double>() == Approx(0.006 / 0.0225).margin(1e-9));
}

TEST_CASE(
    "DynamicJob: every JobStart lists the members' endpoints by rank, so workers connect while "
    "loading",
    "[dynamic_job]") {
  DynamicJobFixture f;
  f.job_->Start(f.h_.now());
  auto all = kSchedulers;
  all.insert(all.end(), kWorkers.begin(), kWorkers.end());
  for (const auto& member : all) {
    CAPTURE(member);
    const auto inbox = f.h_.Inbox(member);
    REQUIRE_FALSE(inbox.empty());
    REQUIRE(inbox[0].has_job_start());
    const proto::JobStart& start = inbox[0].job_start();
    CHECK(std::vector<std::string>(start.scheduler_ids().begin(), start.scheduler_ids().end()) ==
          kSchedulers);
    CHECK(std::vector<std::string>(start.worker_ids().begin(), start.worker_ids().end()) ==
          kWorkers);
    REQUIRE(start.scheduler_endpoints_size() == 2);
    CHECK(start.scheduler_endpoints(1) == "inproc://scheduler-1");
  }
}

TEST_CASE("DynamicJob: a job cancelled while loading has no result files",
          "[dynamic_job][partial]") {
  DynamicJobFixture f;
  f.job_->Start(f.h_.now());
  f.job_->Cancel(f.h_.now());
  CHECK(f.job_->ResultFiles().empty());
}

// A checkpoint of parameters 3 = 2 and 7 = -1 after 100 updates, lambda_max 10.
proto::Checkpoint TwoParameterCheckpoint() {
  proto::Checkpoint cp;
  cp.set_job_id(kJob);
  cp.set_updates(100);
  cp.set_progress(100);
  cp.set_lambda_max(10);
  cp.set_trace("seconds,round,updates,objective,schedule,epoch\n1.000000,50,100,9,dynamic,0\n");
  cp.add_ids(3);
  cp.add_values(2);
  cp.add_ids(7);
  cp.add_values(-1);
  return cp;
}

std::vector<std::pair<uint64_t, double>> Pairs(const google::protobuf::RepeatedField<uint64_t>& ids,
                                               const google::protobuf::RepeatedField<double>& v) {
  std::vector<std::pair<uint64_t, double>> out;
  for (int k = 0; k < ids.size() && k < v.size(); ++k) out.emplace_back(ids[k], v[k]);
  return out;
}

TEST_CASE(
    "DynamicJob: a checkpoint holds the committed values, lambda_max and updates, none before a "
    "check",
    "[dynamic_job][recovery]") {
  DynamicJobFixture f(1);
  f.LoadEveryone();
  CHECK_FALSE(f.job_->TakeCheckpoint(f.h_.now()).has_value());  // lambda_max not measured yet
  f.AnswerCheck(5, 0, 0);
  f.CompleteRound(0, 3, 3);  // parameter 3: 1 + 2
  const auto cp = f.job_->TakeCheckpoint(f.h_.now());
  REQUIRE(cp.has_value());
  CHECK(cp->job_id() == kJob);
  CHECK(cp->lambda_max() == 10);
  CHECK(cp->updates() == 1);
  CHECK(cp->progress() == 1);
  CHECK(cp->round() == 1);
  CHECK(Pairs(cp->ids(), cp->values()) == std::vector<std::pair<uint64_t, double>>{{3, 3.0}});
  CHECK_THAT(cp->trace(), Catch::StartsWith("seconds,round,updates,objective,schedule,epoch\n"));
}

TEST_CASE(
    "DynamicJob: a resumed run restores the checkpoint as round 0 and checks against its "
    "lambda_max",
    "[dynamic_job][recovery]") {
  Incarnation incarnation;
  incarnation.epoch = 2;
  incarnation.seconds_before = 30;
  incarnation.resume = TwoParameterCheckpoint();
  DynamicJobFixture f(1, 1000, incarnation);
  f.job_->Start(f.h_.now());
  f.ReadySchedulers();
  for (size_t w = 0; w < kWorkers.size(); ++w) {
    auto e = MakeEnvelope("");
    e.mutable_ready()->set_num_rows(3);
    if (w == 0) {
      for (int i = 0; i < 3; ++i) {
        e.mutable_ready()->mutable_shared()->add_labels(1);
        e.mutable_ready()->mutable_shared()->add_values(1);
      }
    }
    f.Deliver(kWorkers[w], e);
  }
  f.h_.ClearInboxes();
  // Worker 0 owns parameter 3 (moves row 0 by 2), worker 1 parameter 7 (rows 0 and 2 by 1).
  auto share = [&](const std::string& w, uint64_t id, double value, std::vector<uint64_t> rows,
                   std::vector<double> d) {
    auto e = MakeEnvelope("", 0, 0);
    auto* p = e.mutable_column_partials();
    p->add_ids(id);
    p->add_values(value);
    p->mutable_change()->set_size(3);
    for (size_t k = 0; k < rows.size(); ++k) {
      p->mutable_change()->add_indices(rows[k]);
      p->mutable_change()->add_values(d[k]);
    }
    f.Deliver(w, e);
  };
  share("worker-0", 3, 2, {0}, {2});
  CHECK(f.h_.Inbox("worker-1").empty());  // waits for every worker
  share("worker-1", 7, -1, {0, 2}, {1, 1});
  const auto w1 = f.h_.Inbox("worker-1");
  REQUIRE(w1.size() == 2);
  REQUIRE(w1[0].has_shared_update());
  std::vector<double> dense(3, 0.0);
  ForEachEntry(w1[0].shared_update().change(), [&](uint64_t i, double v) { dense[i] += v; });
  CHECK(dense == std::vector<double>{3, 0, 1});
  CHECK(w1[1].has_check_request());
  CHECK(w1[1].round() == 1);
  for (const auto& e : w1) CHECK(e.epoch() == 2);
  // Restore(0) sends each scheduler its range's values, and the check follows at round 1.
  const auto s0 = f.h_.Inbox("scheduler-0");
  REQUIRE(s0.size() == 2);
  CHECK(Pairs(s0[0].commit().ids(), s0[0].commit().values()) ==
        std::vector<std::pair<uint64_t, double>>{{3, 2.0}});
  const auto s1 = f.h_.Inbox("scheduler-1");
  REQUIRE(s1.size() == 2);
  CHECK(Pairs(s1[0].commit().ids(), s1[0].commit().values()) ==
        std::vector<std::pair<uint64_t, double>>{{7, -1.0}});
  CHECK(s1[1].has_check_request());
  CHECK(s1[1].round() == 1);
  // Violation 0.005 against lambda_max 10 (not this check's max gradient, 10 as well, nor 0):
  // converged at --tolerance 1e-3.
  f.AnswerCheck(0.005, 3, 1);
  CHECK(f.Rounds("scheduler-0", Kind::kModelRequest) == std::vector<uint64_t>{1});
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.updates() == 100);
  CHECK(info.epoch() == 2);
  CHECK(info.seconds() >= 30);
  CHECK(info.violation() == Approx(0.0005));
}

TEST_CASE(
    "DynamicJob: a restore that leaves a checkpointed parameter without an owner fails the job",
    "[dynamic_job][recovery]") {
  Incarnation incarnation;
  incarnation.epoch = 1;
  incarnation.resume = TwoParameterCheckpoint();
  DynamicJobFixture f(1, 1000, incarnation);
  f.job_->Start(f.h_.now());
  f.ReadySchedulers();
  for (const auto& w : kWorkers) {
    auto e = MakeEnvelope("");
    e.mutable_ready()->set_num_rows(1);
    e.mutable_ready()->mutable_shared()->add_labels(1);
    e.mutable_ready()->mutable_shared()->add_values(1);
    f.Deliver(w, e);
  }
  for (const auto& w : kWorkers) {  // nobody claims parameter 7
    auto e = MakeEnvelope("", 0, 0);
    auto* p = e.mutable_column_partials();
    if (w == "worker-0") {
      p->add_ids(3);
      p->add_values(2);
    }
    p->mutable_change()->set_size(1);
    f.Deliver(w, e);
  }
  const auto info = f.job_->Info(f.h_.now());
  CHECK(info.state() == proto::JOB_FAILED);
  CHECK_THAT(info.error(), Catch::Contains("own 1 of the 2 checkpointed parameters"));
}

TEST_CASE("DynamicJob: messages of another epoch are refused, counted and never applied (fencing)",
          "[dynamic_job][recovery][faults]") {
  Incarnation incarnation;
  incarnation.epoch = 1;
  DynamicJobFixture f(1, 1000, incarnation);
  f.job_->Start(f.h_.now());
  f.h_.ClearInboxes();
  f.ReadySchedulers();
  // Epoch 0's workers (declared dead, come back) report Ready and an error: neither counts.
  for (const auto& w : kWorkers) {
    auto e = MakeEnvelope("");
    e.mutable_ready()->set_num_rows(50);
    f.DeliverStale(w, e, 0);
  }
  auto error = MakeEnvelope("");
  error.mutable_job_failed()->set_error("spoofed by a stale member");
  f.DeliverStale("worker-1", error, 0);
  CHECK(f.job_->fenced() == 3);
  CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_LOADING);
  CHECK(f.h_.Inbox("worker-0").empty());  // no Begin: the workers are not ready in this epoch
  f.ReadyWorkers({1.0});
  CHECK(f.h_.Kinds("worker-0") == std::vector{Kind::kBegin, Kind::kCheckRequest});
  const auto files = f.job_->Info(f.h_.now());
  CHECK(files.state() == proto::JOB_RUNNING);
}

TEST_CASE("DynamicJob: the commit merges the shares in chord order, and a share out of order fails",
          "[dynamic_job]") {
  const bool in_order = GENERATE(true, false);
  CAPTURE(in_order);
  DynamicJobFixture f(1, 1000, Incarnation{});
  f.StartRunning();
  // Round 0: parameters 1, 3 and 2, in that order; worker 0 owns 1 and 2, worker 1 owns 3.
  f.SendColumnChord({1, 3, 2}, 1.0);
  auto share = [&](const std::string& w, std::vector<uint64_t> ids) {
    auto e = MakeEnvelope("", 0, 0);
    auto* p = e.mutable_column_partials();
    for (uint64_t j : ids) {
      p->add_ids(j);
      p->add_values(1.0 + static_cast<double>(j));
    }
    p->mutable_change()->set_size(1);
    f.Deliver(w, e);
  };
  share("worker-0", in_order ? std::vector<uint64_t>{1, 2} : std::vector<uint64_t>{2, 1});
  share("worker-1", {3});
  const auto info = f.job_->Info(f.h_.now());
  if (in_order) {
    CHECK(info.state() != proto::JOB_FAILED);
    const auto s0 = f.h_.Inbox("scheduler-0");
    REQUIRE_FALSE(s0.empty());
    REQUIRE(s0[0].has_commit());
    CHECK(Pairs(s0[0].commit().ids(), s0[0].commit().values()) ==
          std::vector<std::pair<uint64_t, double>>{{1, 2.0}, {3, 4.0}, {2, 3.0}});
  } else {
    CHECK(info.state() == proto::JOB_FAILED);
    CHECK_THAT(info.error(), Catch::Contains("no worker updated parameter 1 (in chord order)"));
  }
}

TEST_CASE(
    "DynamicJob: with --aggregation tree the root's share commits a round and the shared update "
    "goes to the root alone, and another worker's share fails the job",
    "[dynamic_job][tree]") {
  DynamicJobFixture f(1, 1000, Incarnation{}, proto::SCHEDULE_UNSPECIFIED, 0,
                      proto::AGGREGATION_TREE);
  f.StartRunning();
  // Round 0: parameters 1, 3 and 2; worker 0 (the root) owns 1 and 2, worker 1 owns 3.
  f.SendColumnChord({1, 3, 2}, 1.0);
  SECTION("the root's share: its run, then worker 1's") {
    auto e = MakeEnvelope("", 0, 0);
    auto* p = e.mutable_column_partials();
    for (uint64_t j : {1, 2, 3}) {
      p->add_ids(j);
      p->add_values(1.0 + static_cast<double>(j));
    }
    p->add_run_ranks(0);
    p->add_run_sizes(2);
    p->add_run_ranks(1);
    p->add_run_sizes(1);
    p->set_moved(1);
    p->mutable_change()->set_size(1);
    p->mutable_change()->add_indices(0);
    p->mutable_change()->add_values(-0.5);
    f.Deliver("worker-0", e);
    const auto info = f.job_->Info(f.h_.now());
    INFO(info.error());
    CHECK(info.round() == 1);
    const auto s0 = f.h_.Inbox("scheduler-0");
    REQUIRE_FALSE(s0.empty());
    REQUIRE(s0[0].has_commit());
    // One worker moved: the step is whole.
    CHECK(Pairs(s0[0].commit().ids(), s0[0].commit().values()) ==
          std::vector<std::pair<uint64_t, double>>{{1, 2.0}, {3, 4.0}, {2, 3.0}});
    CHECK(f.Rounds("worker-0", Kind::kSharedUpdate) == std::vector<uint64_t>{0});
    CHECK(f.Rounds("worker-1", Kind::kSharedUpdate).empty());
  }
  SECTION("a share of worker 1's own") {
    f.SendShare("worker-1", 0, {{3, 4.0}});
    const auto info = f.job_->Info(f.h_.now());
    CHECK(info.state() == proto::JOB_FAILED);
    CHECK_THAT(info.error(), Catch::Contains("not the aggregation tree's root"));
  }
  SECTION("a root's share without worker 1's run") {
    f.SendShare("worker-0", 0, {{1, 2.0}, {2, 3.0}});
    const auto info = f.job_->Info(f.h_.now());
    CHECK(info.state() == proto::JOB_FAILED);
    CHECK_THAT(info.error(), Catch::Contains("round 0: 0 run ranks with 0 run sizes"));
  }
}

TEST_CASE(
    "DynamicJob: with --aggregation tree a check goes to the root, whose loss report answers for "
    "every worker",
    "[dynamic_job][tree]") {
  DynamicJobFixture f(1, 1000, Incarnation{}, proto::SCHEDULE_UNSPECIFIED, 0,
                      proto::AGGREGATION_TREE);
  f.LoadEveryone();  // the first check starts
  CHECK(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{0});
  CHECK(f.Rounds("worker-1", Kind::kCheckRequest).empty());
  SECTION("the root's report and the schedulers' end the check") {
    f.AnswerCheck(5, 0, 0);  // worker-0's report only (WorkersReport)
    CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_RUNNING);
    CHECK(f.Requested("scheduler-0") == std::vector<uint64_t>{0});
    // The round asked for with the check waits for nothing more than its chord and the root.
    f.SendColumnChord({1}, 0.0);
    auto e = MakeEnvelope("", 0, 0);
    e.mutable_column_partials()->add_ids(1);
    e.mutable_column_partials()->add_values(1.0);
    e.mutable_column_partials()->add_run_ranks(0);
    e.mutable_column_partials()->add_run_sizes(1);
    e.mutable_column_partials()->add_run_ranks(1);
    e.mutable_column_partials()->add_run_sizes(0);
    e.mutable_column_partials()->mutable_change()->set_size(1);
    f.Deliver("worker-0", e);
    CHECK(f.job_->Info(f.h_.now()).round() == 1);
  }
  SECTION("a report from another worker fails the job") {
    auto e = MakeEnvelope("", 0, 0);
    e.mutable_loss_report();
    f.Deliver("worker-1", e);
    const auto info = f.job_->Info(f.h_.now());
    CHECK(info.state() == proto::JOB_FAILED);
    CHECK_THAT(info.error(), Catch::Contains("a loss report from worker-1, which is not the "
                                             "aggregation tree's root"));
  }
}

TEST_CASE(
    "DynamicJob: the workers' compute times move a round's chord wait to them, never more than "
    "counted",
    "[dynamic_job][waits]") {
  const double compute = GENERATE(0.0, 0.002, 0.010);
  CAPTURE(compute);
  DynamicJobFixture f(1, 1000, Incarnation{});
  f.StartRunning();
  f.h_.Advance(0.004);  // round 0's chord not handled yet: counted as the scheduler's
  f.SendColumnChord({1, 3}, 1.0);
  f.h_.Advance(0.001);  // the chord handled: counted as the workers'
  auto share = [&](const std::string& w, uint64_t j) {
    auto e = MakeEnvelope("", 0, 0);
    auto* p = e.mutable_column_partials();
    p->add_ids(j);
    p->add_values(2.0);
    p->mutable_change()->set_size(1);
    p->set_compute_seconds(w == "worker-0" ? compute : compute / 2);  // the longest counts
    f.Deliver(w, e);
  };
  share("worker-0", 1);
  share("worker-1", 3);
  REQUIRE(f.job_->Info(f.h_.now()).round() == 1);
  f.job_->Cancel(f.h_.now());
  const auto summary = nlohmann::json::parse(FileContent(f.job_->ResultFiles(), "summary.json"));
  const auto& waits = summary.at("waits");
  INFO(waits.dump());
  // The workers worked `compute`, of which the ledger saw 0.001; the rest, up to the 0.004 it
  // gave the chord, moves.
  const double moved = std::clamp(compute - 0.001, 0.0, 0.004);
  constexpr double kExact = 1e-12;  // the stopwatch is the fake clock
  CHECK(waits.at("moved_s").get<double>() == Approx(moved).margin(kExact));
  CHECK(waits.at("chord_s").get<double>() == Approx(0.004 - moved).margin(kExact));
  CHECK(waits.at("workers_s").get<double>() == Approx(0.001 + moved).margin(kExact));
}

TEST_CASE("DynamicJob: a check's loss is that of the coordinator's replica of the shared vector",
          "[dynamic_job][trace]") {
  DynamicJobFixture f(1, 1000, Incarnation{});
  f.job_->Start(f.h_.now());
  f.ReadySchedulers();
  f.ReadyWorkers({3.0, 1.0});                              // the replica's loss is 9 + 1
  f.AnswerCheck(/*violation=*/0.005, /*penalty=*/0.5, 0);  // converged
  for (const auto& s : kSchedulers) {
    auto e = MakeEnvelope("");
    e.mutable_model_slice();
    f.Deliver(s, e);
  }
  REQUIRE(f.job_->Info(f.h_.now()).state() == proto::JOB_SUCCEEDED);
  const std::string trace = FileContent(f.job_->ResultFiles(), "trace.csv");
  INFO(trace);
  CHECK_THAT(trace, Catch::EndsWith(",0,0,11,dynamic,0\n"));  // 10 + both penalties
}

TEST_CASE(
    "DynamicJob: a round a check follows keeps its commit's time in trace.csv, with the check's "
    "objective",
    "[dynamic_job][trace]") {
  DynamicJobFixture f(1, /*check_every=*/1, Incarnation{});
  f.StartRunning();      // the first check's row: loss 1, penalty 0
  f.h_.Advance(0.0001);  // well within --trace-every (1 s): a timed row would wait
  f.SendColumnChord({1, 3}, 2.0);
  for (const auto& [w, j] : {std::pair{"worker-0", 1}, std::pair{"worker-1", 3}}) {
    auto e = MakeEnvelope("", 0, 0);
    e.mutable_column_partials()->add_ids(j);
    e.mutable_column_partials()->add_values(1.0);  // the penalty falls by 1 each: a full step
    e.mutable_column_partials()->mutable_change()->set_size(1);  // the shared vector stays
    f.Deliver(w, e);
  }
  // Committed, and a check follows at once (--check-every 1): the row is written now.
  REQUIRE(f.Rounds("worker-0", Kind::kCheckRequest) == std::vector<uint64_t>{1});
  const double committed_at = f.job_->Info(f.h_.now()).seconds();
  f.h_.Advance(0.0005);       // the check's workers and schedulers
  f.AnswerCheck(5, 0.25, 1);  // not converged
  f.h_.Advance(0.0005);
  f.job_->Cancel(f.h_.now());
  const std::string trace = FileContent(f.job_->ResultFiles(), "trace.csv");
  INFO(trace);
  REQUIRE(Lines(trace) == 3);  // the header, the first check's row, the commit's
  const std::string last = trace.substr(trace.rfind('\n', trace.size() - 2) + 1);
  // At the commit's time, with the check's objective: loss 1 (the replica) plus the schedulers'
  // penalties, 2 x 0.25. (The row written at the commit held the running
  // penalty, 0 - 1 - 1.)
  CHECK(last == fmt::format("{:.6f},1,2,1.5,dynamic,0\n", committed_at));
}

TEST_CASE(
    "DynamicJob: the workers' column counts are summed and sent once, a scheduler's fail the job",
    "[dynamic_job]") {
  auto counts = [](uint64_t rows, const std::vector<uint64_t>& entries) {
    auto e = MakeEnvelope("");
    e.mutable_column_counts()->set_rows(rows);
    e.mutable_column_counts()->mutable_counts()->Assign(entries.begin(), entries.end());
    return e;
  };
  {
    DynamicJobFixture f(1, 1000, Incarnation{});
    f.job_->Start(f.h_.now());
    f.h_.ClearInboxes();
    f.Deliver("worker-1", counts(3, {0, 1, 2, 5}));  // as far as its part's largest id
    f.Deliver("worker-1", counts(3, {0, 1, 2, 5}));  // a repeat: not counted again
    for (const auto& s : kSchedulers) CHECK(f.h_.Inbox(s).empty());  // worker-0's is missing
    f.Deliver("worker-0", counts(4, {3, 1, 4}));
    for (const auto& member : DynamicJobFixture::Everyone()) {
      CAPTURE(member);
      const auto inbox = f.h_.Inbox(member);
      REQUIRE(inbox.size() == 1);
      REQUIRE(inbox[0].has_column_counts());
      CHECK(inbox[0].column_counts().rows() == 7);
      const auto& got = inbox[0].column_counts().counts();
      CHECK(std::vector<uint64_t>(got.begin(), got.end()) == std::vector<uint64_t>{3, 2, 6, 5});
    }
    CHECK(f.job_->Info(f.h_.now()).state() == proto::JOB_LOADING);
  }
  {
    DynamicJobFixture f(1, 1000, Incarnation{});
    f.job_->Start(f.h_.now());
    f.Deliver("scheduler-0", counts(3, {3, 1, 4}));
    const auto info = f.job_->Info(f.h_.now());
    CHECK(info.state() == proto::JOB_FAILED);
    CHECK_THAT(info.error(), Catch::Contains("not a worker"));
  }
  {
    DynamicJobFixture f(1, 1000, Incarnation{});
    f.job_->Start(f.h_.now());
    f.Deliver("worker-1", counts(3, {3, 1, 4}));
    f.h_.Advance(101);
    f.job_->OnTick(f.h_.now());
    const auto info = f.job_->Info(f.h_.now());
    CHECK(info.state() == proto::JOB_FAILED);
    CHECK_THAT(info.error(), Catch::Contains("worker-0 (column counts)"));
    CHECK_THAT(info.error(), !Catch::Contains("worker-1"));
  }
}

}  // namespace strads
