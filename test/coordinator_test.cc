// Coordinator (coordinator/coordinator.h) as a unit: members and clients are mailboxes on an
// in-process hub that the test writes from and reads, time is a fake clock. The jobs are the real
// ones (a lasso spec); no member ever loads data, the tests only look at what the coordinator
// says and sends.
#include <catch2/catch.hpp>

#include <fstream>

#include "actor_harness.h"
#include "apps/builtin_apps.h"
#include "apps/linear.pb.h"
#include "common/atomic_file.h"
#include "coordinator/checkpoint_store.h"
#include "coordinator/coordinator.h"
#include "coordinator/job_journal.h"
#include "engine/job_spec.h"
#include "temp_dir.h"
#include "test/app_params_edit.h"

namespace strads {
namespace {

using Kind = proto::Envelope::BodyCase;
using testing::ActorHarness;
using testing::EditAppParams;

// A spec the coordinator accepts; nothing reads the file in these tests.
proto::JobSpec ValidSpec() {
  proto::JobSpec s;
  s.set_app("lasso");
  s.set_data_path("/data/never-read.svm");
  EditAppParams<proto::LinearModelSpec>(s, [&](auto& p) { p.set_lambda(0.1); });
  s.mutable_dynamic()->set_chord_size(4);
  s.mutable_dynamic()->set_candidates(8);
  s.mutable_dynamic()->set_tolerance(1e-6);
  s.mutable_dynamic()->set_pipeline_depth(1);
  return s;
}

class CoordinatorFixture {
 public:
  explicit CoordinatorFixture(CoordinatorOptions options = Options())
      : h_(kCoordinatorId, {"scheduler-0", "worker-0", "worker-1", "client"}),
        options_(std::move(options)) {
    Restart();
  }

  // A new coordinator over the same options (and work dir), as after a crash: the old one is
  // dropped without any goodbye.
  void Restart() {
    coordinator_.reset();
    coordinator_ =
        std::make_unique<Coordinator>(h_.transport(), options_, apps_, h_.log(), h_.now());
  }

  static CoordinatorOptions Options() {
    CoordinatorOptions o;
    o.expect_schedulers = 1;
    o.expect_workers = 2;
    o.heartbeat_interval_s = 0.5;
    o.heartbeat_timeout_s = 5;
    o.register_timeout_s = 30;
    o.status_endpoint = "tcp://status:1";
    return o;
  }

  void Send(const std::string& from, proto::Envelope e) {
    e.set_sender(from);
    coordinator_->OnMessage(e, h_.now());
  }
  void Register(const std::string& id, proto::Role role) {
    auto e = MakeEnvelope(id);
    e.mutable_register_()->set_role(role);
    e.mutable_register_()->set_host("host-" + id);
    e.mutable_register_()->set_pid(42);
    e.mutable_register_()->set_endpoint("inproc://" + id);
    Send(id, e);
  }
  void RegisterAll() {
    Register("scheduler-0", proto::ROLE_SCHEDULER);
    Register("worker-0", proto::ROLE_WORKER);
    Register("worker-1", proto::ROLE_WORKER);
  }
  void Heartbeat(const std::string& id) {
    auto e = MakeEnvelope(id);
    e.mutable_heartbeat();
    Send(id, e);
  }
  // The client's request; returns the coordinator's one reply.
  proto::Envelope Call(proto::Envelope request) {
    Send("client", std::move(request));
    auto inbox = h_.Inbox("client");
    REQUIRE(inbox.size() == 1);
    return inbox[0];
  }
  proto::Envelope Submit(const proto::JobSpec& spec) {
    auto e = MakeEnvelope("client");
    *e.mutable_submit()->mutable_spec() = spec;
    return Call(e);
  }
  // A client's cancel of job `id`: the coordinator's whole answer (a CancelReply or an Error).
  proto::Envelope Cancel(uint64_t id) {
    auto e = MakeEnvelope("client", id);
    e.mutable_cancel();
    return Call(e);
  }
  proto::StatusReply Status() {
    auto e = MakeEnvelope("client");
    e.mutable_status_request();
    return Call(e).status_reply();
  }
  proto::JobInfo Job(uint64_t id) {
    const auto status = Status();  // a named copy: jobs() refers into it
    for (const auto& j : status.jobs()) {
      if (j.job_id() == id) return j;
    }
    FAIL("no job " << id << " in the status");
    return {};
  }
  void Tick() { coordinator_->OnTick(h_.now()); }

  ActorHarness h_;
  const AppRegistry apps_ = BuiltinApps();
  CoordinatorOptions options_;
  std::unique_ptr<Coordinator> coordinator_;
};

}  // namespace

TEST_CASE("Coordinator: a member that registers is acknowledged with the heartbeat interval",
          "[coordinator]") {
  CoordinatorFixture f;
  f.Register("worker-0", proto::ROLE_WORKER);
  auto inbox = f.h_.Inbox("worker-0");
  REQUIRE(inbox.size() == 1);
  CHECK(inbox[0].register_ack().heartbeat_interval_s() == 0.5);
  const auto status = f.Status();
  REQUIRE(status.members_size() == 1);
  CHECK(status.members(0).id() == "worker-0");
  CHECK(status.members(0).role() == proto::ROLE_WORKER);
  CHECK(status.members(0).endpoint() == "inproc://worker-0");
}

TEST_CASE("Coordinator: only schedulers and workers register, a stranger's heartbeat gets an error",
          "[coordinator]") {
  CoordinatorFixture f;
  auto e = MakeEnvelope("client");
  e.mutable_register_()->set_role(proto::ROLE_COORDINATOR);
  CHECK_THAT(f.Call(e).error().message(), Catch::Contains("only schedulers and workers"));
  f.Heartbeat("worker-1");
  auto inbox = f.h_.Inbox("worker-1");
  REQUIRE(inbox.size() == 1);
  CHECK(inbox[0].error().message() == "not registered");
  CHECK(f.Status().members_size() == 0);
}

TEST_CASE(
    "Coordinator: a submitted job is queued until its members register, then JobStart goes "
    "to each",
    "[coordinator]") {
  CoordinatorFixture f;
  const auto reply = f.Submit(ValidSpec());
  REQUIRE(reply.has_submit_reply());
  const uint64_t id = reply.submit_reply().job_id();
  CHECK(id == 1);
  CHECK(f.Job(id).state() == proto::JOB_QUEUED);
  f.Register("scheduler-0", proto::ROLE_SCHEDULER);
  f.Register("worker-0", proto::ROLE_WORKER);
  CHECK(f.Job(id).state() == proto::JOB_QUEUED);  // the launcher announced two workers
  f.Register("worker-1", proto::ROLE_WORKER);
  CHECK(f.Job(id).state() == proto::JOB_LOADING);
  for (const std::string member : {"scheduler-0", "worker-0", "worker-1"}) {
    CAPTURE(member);
    auto kinds = f.h_.Kinds(member);
    CHECK(kinds == std::vector{Kind::kRegisterAck, Kind::kJobStart});
  }
  const auto status = f.Status();
  for (const auto& m : status.members()) CHECK(m.busy());
}

TEST_CASE("Coordinator: a second job waits in FIFO order for the running one", "[coordinator]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t first = f.Submit(ValidSpec()).submit_reply().job_id();
  const uint64_t second = f.Submit(ValidSpec()).submit_reply().job_id();
  CHECK(f.Job(first).state() == proto::JOB_LOADING);
  CHECK(f.Job(second).state() == proto::JOB_QUEUED);
  CHECK(f.Cancel(first).cancel_reply().state() == proto::JOB_CANCELLED);
  CHECK(f.Job(second).state() == proto::JOB_LOADING);
}

TEST_CASE("Coordinator: cancel of a job that has ended changes nothing and says it had ended",
          "[coordinator]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  const auto first = f.Cancel(id).cancel_reply();
  CHECK(first.state() == proto::JOB_CANCELLED);
  CHECK_FALSE(first.had_ended());
  const auto again = f.Cancel(id).cancel_reply();
  CHECK(again.state() == proto::JOB_CANCELLED);
  CHECK(again.had_ended());
  CHECK(f.Job(id).state() == proto::JOB_CANCELLED);
}

TEST_CASE("Coordinator: a member silent past the heartbeat timeout fails its job, naming it",
          "[coordinator][faults]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  for (int i = 0; i < 6; ++i) {  // 6 s: worker-1 stays silent, the others keep beating
    f.h_.Advance(1);
    f.Heartbeat("scheduler-0");
    f.Heartbeat("worker-0");
    f.Tick();
    if (i < 4) REQUIRE(f.Job(id).state() == proto::JOB_LOADING);  // within the 5 s timeout
  }
  const auto job = f.Job(id);
  CHECK(job.state() == proto::JOB_FAILED);
  CHECK_THAT(job.error(), Catch::Contains("worker worker-1 (host host-worker-1, pid 42) stopped "
                                          "responding"));
  const auto status = f.Status();
  CHECK(status.members_size() == 2);  // dropped
  for (const auto& m : status.members()) CHECK_FALSE(m.busy());
  CHECK(f.h_.Kinds("worker-0").back() == Kind::kJobEnd);
}

TEST_CASE(
    "Coordinator: a job short of members at the register timeout fails, naming what is missing",
    "[coordinator][faults]") {
  CoordinatorFixture f;
  f.Register("scheduler-0", proto::ROLE_SCHEDULER);
  f.Register("worker-0", proto::ROLE_WORKER);
  auto spec = ValidSpec();
  spec.set_workers(2);
  const uint64_t id = f.Submit(spec).submit_reply().job_id();
  f.h_.Advance(29);
  f.Heartbeat("scheduler-0");
  f.Heartbeat("worker-0");
  f.Tick();
  REQUIRE(f.Job(id).state() == proto::JOB_QUEUED);
  f.h_.Advance(2);
  f.Heartbeat("scheduler-0");
  f.Heartbeat("worker-0");
  f.Tick();
  const auto job = f.Job(id);
  CHECK(job.state() == proto::JOB_FAILED);
  CHECK_THAT(job.error(), Catch::Contains("available workers: worker-0") &&
                              Catch::Contains("1 worker never registered"));
}

TEST_CASE("Coordinator: cancel ends a running job, tells its members, and frees them",
          "[coordinator]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  f.h_.ClearInboxes();
  CHECK(f.Cancel(id).cancel_reply().state() == proto::JOB_CANCELLED);
  for (const std::string member : {"scheduler-0", "worker-0", "worker-1"}) {
    auto inbox = f.h_.Inbox(member);
    REQUIRE(inbox.size() == 1);
    CHECK(inbox[0].job_end().reason() == "cancelled");
  }
  const auto status = f.Status();
  for (const auto& m : status.members()) CHECK_FALSE(m.busy());
  CHECK(f.Cancel(99).error().message() == "no job 99");
}

TEST_CASE("Coordinator: status reports uptime, members with heartbeat age, and every job",
          "[coordinator]") {
  CoordinatorFixture f;
  f.h_.Advance(10);
  f.RegisterAll();
  f.Submit(ValidSpec());
  f.h_.Advance(2.5);
  f.Heartbeat("worker-0");
  auto bad = ValidSpec();
  bad.set_workers(2);  // queued behind the first
  f.Submit(bad);
  const auto s = f.Status();
  CHECK(s.coordinator() == kCoordinatorId);
  CHECK(s.uptime_s() == Approx(12.5));
  CHECK(s.status_endpoint() == "tcp://status:1");
  REQUIRE(s.members_size() == 3);
  std::map<std::string, double> age;
  for (const auto& m : s.members()) age[m.id()] = m.heartbeat_age_s();
  CHECK(age["worker-0"] == Approx(0));
  CHECK(age["worker-1"] == Approx(2.5));
  REQUIRE(s.jobs_size() == 2);
  CHECK(s.jobs(0).state() == proto::JOB_LOADING);
  CHECK(s.jobs(0).app() == "lasso");
  CHECK(s.jobs(0).workers() == 2);
  CHECK(s.jobs(1).state() == proto::JOB_QUEUED);
}

TEST_CASE("Coordinator: a bad spec is answered with an ErrorReply and the coordinator stays up",
          "[coordinator][faults]") {
  CoordinatorFixture f;
  auto unknown = ValidSpec();
  unknown.set_app("nosuchapp");
  CHECK_THAT(f.Submit(unknown).error().message(), Catch::Contains("unknown app 'nosuchapp'"));
  auto depth = ValidSpec();
  depth.mutable_dynamic()->set_pipeline_depth(0);
  CHECK_THAT(f.Submit(depth).error().message(), Catch::Contains("--pipeline-depth"));
  auto empty = MakeEnvelope("client");  // no body at all
  CHECK(f.Call(empty).has_error());
  CHECK_FALSE(f.coordinator_->Finished());
  CHECK(f.Status().jobs_size() == 0);
  CHECK(f.Submit(ValidSpec()).submit_reply().job_id() == 1);  // the next good one is accepted
}

TEST_CASE("Coordinator: results of a job that has not finished are refused with its state",
          "[coordinator]") {
  CoordinatorFixture f;
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  auto req = MakeEnvelope("client", id);
  req.mutable_result_request();
  CHECK_THAT(f.Call(req).error().message(), Catch::Contains("is QUEUED"));
}

TEST_CASE("Coordinator: shutdown cancels the queue, tells every member and finishes",
          "[coordinator]") {
  CoordinatorFixture f;
  f.Register("worker-0", proto::ROLE_WORKER);
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  f.h_.ClearInboxes();
  auto req = MakeEnvelope("client");
  req.mutable_shutdown_cluster();
  CHECK(f.Call(req).has_shutdown_cluster());
  CHECK(f.h_.Kinds("worker-0") == std::vector{Kind::kShutdown});
  CHECK(f.coordinator_->Finished());
  CHECK(f.Job(id).state() == proto::JOB_CANCELLED);
}

TEST_CASE("Coordinator: a submit asking for more members than the cluster has is refused at once",
          "[coordinator][hostile]") {
  CoordinatorFixture f;  // the launcher announced 1 scheduler and 2 workers
  f.RegisterAll();
  auto many_workers = ValidSpec();
  many_workers.set_workers(99);
  CHECK_THAT(f.Submit(many_workers).error().message(),
             Catch::Contains("--workers 99 can never be met: the cluster has 2 workers"));
  auto many_schedulers = ValidSpec();
  many_schedulers.set_schedulers(2);
  CHECK_THAT(f.Submit(many_schedulers).error().message(),
             Catch::Contains("--schedulers 2 can never be met: the cluster has 1 scheduler ("));
  CHECK(f.Status().jobs_size() == 0);  // nothing queued
  auto exact = ValidSpec();
  exact.set_workers(2);
  exact.set_schedulers(1);
  CHECK(f.Submit(exact).submit_reply().job_id() == 1);
}

TEST_CASE("Coordinator: with no member registered and none announced, a sized job waits",
          "[coordinator][hostile]") {
  CoordinatorOptions o = CoordinatorFixture::Options();
  o.expect_schedulers = o.expect_workers = 0;
  testing::ActorHarness h(kCoordinatorId, {"client"});
  const AppRegistry apps = BuiltinApps();
  Coordinator c(h.transport(), o, apps, h.log(), h.now());
  auto e = MakeEnvelope("client");
  auto spec = ValidSpec();
  spec.set_workers(4);
  *e.mutable_submit()->mutable_spec() = spec;
  c.OnMessage(e, h.now());
  auto inbox = h.Inbox("client");
  REQUIRE(inbox.size() == 1);
  CHECK(inbox[0].submit_reply().job_id() == 1);
}

TEST_CASE(
    "Coordinator: 50000 abandoned status subscriptions lapse after the TTL, a renewed one stays",
    "[coordinator][hostile]") {
  CoordinatorFixture f;
  auto subscribe = [&](const std::string& from) {
    auto e = MakeEnvelope(from);
    e.mutable_status_request()->set_subscribe(true);
    f.Send(from, e);
  };
  // Gone clients: the hub has no mailbox for them, as for a process that has exited.
  for (int i = 0; i < 50000; ++i) subscribe("gone-" + std::to_string(i));
  subscribe("client");
  CHECK(f.coordinator_->subscriber_count() == 50001);
  const double ttl = CoordinatorFixture::Options().subscription_ttl_s;
  for (double t = 0; t < ttl + 2; t += 1) {
    f.h_.Advance(1);
    f.Tick();
    if (static_cast<int>(t) % 10 == 9) subscribe("client");  // as Client::Wait renews
  }
  CHECK(f.coordinator_->subscriber_count() == 1);
  f.h_.Advance(ttl + 1);
  f.Tick();
  CHECK(f.coordinator_->subscriber_count() == 0);
}

namespace {

CoordinatorOptions WithWorkDir(const std::string& work_dir) {
  CoordinatorOptions o = CoordinatorFixture::Options();
  o.work_dir = work_dir;
  return o;
}

proto::Envelope Request(uint64_t job_id, proto::Envelope::BodyCase kind) {
  auto e = MakeEnvelope("client", job_id);
  if (kind == Kind::kCancel) e.mutable_cancel();
  if (kind == Kind::kResultRequest) e.mutable_result_request();
  return e;
}

}  // namespace

TEST_CASE("Coordinator: a restart over the work dir keeps the job table and never reuses an id",
          "[coordinator][journal]") {
  testing::TempDir dir;
  CoordinatorFixture f(WithWorkDir(dir.Path("work")));
  f.RegisterAll();
  const uint64_t cancelled = f.Submit(ValidSpec()).submit_reply().job_id();
  REQUIRE(f.Call(Request(cancelled, Kind::kCancel)).cancel_reply().state() == proto::JOB_CANCELLED);
  const uint64_t interrupted = f.Submit(ValidSpec()).submit_reply().job_id();
  const uint64_t queued = f.Submit(ValidSpec()).submit_reply().job_id();
  REQUIRE(f.Job(interrupted).state() == proto::JOB_LOADING);
  REQUIRE(f.Job(queued).state() == proto::JOB_QUEUED);

  f.Restart();
  f.h_.ClearInboxes();
  const auto status = f.Status();
  REQUIRE(status.jobs_size() == 3);
  CHECK(status.members_size() == 0);  // members are not journaled: they register again
  CHECK(f.Job(cancelled).state() == proto::JOB_CANCELLED);
  CHECK(f.Job(cancelled).error() == "cancelled");
  CHECK(f.Job(interrupted).state() == proto::JOB_FAILED);
  CHECK(f.Job(interrupted).error() == "coordinator restarted");
  CHECK(f.Job(queued).state() == proto::JOB_QUEUED);
  CHECK(f.Job(queued).spec().data_path() == ValidSpec().data_path());
  // The members come back and the queued job runs again; the next submission gets a new id.
  f.RegisterAll();
  CHECK(f.Job(queued).state() == proto::JOB_LOADING);
  CHECK(f.Submit(ValidSpec()).submit_reply().job_id() == queued + 1);

  // A second restart sees the states the first one wrote.
  f.Restart();
  CHECK(f.Job(interrupted).error() == "coordinator restarted");
  CHECK(f.Job(queued).state() == proto::JOB_FAILED);
  CHECK(f.Job(queued + 1).state() == proto::JOB_QUEUED);
  CHECK(f.Submit(ValidSpec()).submit_reply().job_id() == queued + 2);
}

TEST_CASE(
    "Coordinator: a journal written before protocol version 8 fails its unfinished jobs, "
    "saying why",
    "[coordinator][journal]") {
  // Version 7 kept a linear model's parameters in JobSpec field 25 (a LinearModelSpec), now
  // reserved: a parsed record keeps it as an unknown field, and the spec has no `params`.
  proto::JobSpec old = ValidSpec();
  proto::LinearModelSpec linear;
  linear.set_lambda(0.1);
  old.clear_params();
  old.GetReflection()->MutableUnknownFields(&old)->AddLengthDelimited(25,
                                                                      linear.SerializeAsString());
  testing::TempDir dir;
  JobJournal journal(dir.Path("work"));
  const std::pair<uint64_t, proto::JobState> jobs[] = {
      {1, proto::JOB_QUEUED}, {2, proto::JOB_RUNNING}, {3, proto::JOB_SUCCEEDED}};
  for (const auto& [id, state] : jobs) {
    proto::JobRecord record;
    record.mutable_info()->set_job_id(id);
    record.mutable_info()->set_state(state);
    *record.mutable_info()->mutable_spec() = old;
    REQUIRE(journal.Write(record).ok());
  }

  CoordinatorFixture f(WithWorkDir(dir.Path("work")));
  for (uint64_t id : {1, 2}) {
    CAPTURE(id);
    CHECK(f.Job(id).state() == proto::JOB_FAILED);
    CHECK(f.Job(id).error() ==
          "its spec is not valid after the restart: lasso: the spec holds its app's parameters as "
          "STRADS wrote them before protocol version 8 (JobSpec tags 23-25), which this version "
          "cannot read: submit the job again");
  }
  CHECK(f.Job(3).state() == proto::JOB_SUCCEEDED);  // a finished job stays as it was
  // Nothing of them runs again: members that register are sent no job, and the next
  // submission gets the next id and starts at once.
  f.h_.ClearInboxes();
  f.RegisterAll();
  for (const char* member : {"scheduler-0", "worker-0", "worker-1"}) {
    for (const auto& e : f.h_.Inbox(member)) CHECK(e.body_case() != Kind::kJobStart);
  }
  const uint64_t next = f.Submit(ValidSpec()).submit_reply().job_id();
  CHECK(next == 4);
  CHECK(f.Job(next).state() == proto::JOB_LOADING);
  // The failure is journaled: a second restart reads it back.
  f.Restart();
  CHECK(f.Job(2).state() == proto::JOB_FAILED);
}

TEST_CASE("Coordinator: after a restart, results come from the work dir, and a lost file is named",
          "[coordinator][journal]") {
  testing::TempDir dir;
  JobJournal journal(dir.Path("work"));
  proto::ResultFile file;
  file.set_name("coefficients.tsv");
  file.set_content("3\t0.25\n");
  auto written = journal.WriteResults(4, {file});
  REQUIRE(written.ok());
  proto::JobRecord record;
  record.mutable_info()->set_job_id(4);
  record.mutable_info()->set_state(proto::JOB_SUCCEEDED);
  record.mutable_info()->set_objective(1.5);
  record.set_result_dir(*written);
  record.add_result_files("coefficients.tsv");
  REQUIRE(journal.Write(record).ok());

  CoordinatorFixture f(WithWorkDir(dir.Path("work")));
  const auto reply = f.Call(Request(4, Kind::kResultRequest)).result_reply();
  CHECK(reply.job().objective() == 1.5);
  REQUIRE(reply.files_size() == 1);
  CHECK(reply.files(0).content() == "3\t0.25\n");
  CHECK(f.Submit(ValidSpec()).submit_reply().job_id() == 5);

  std::filesystem::remove(std::filesystem::path(*written) / "coefficients.tsv");
  CHECK_THAT(f.Call(Request(4, Kind::kResultRequest)).error().message(),
             Catch::Contains("result file of job 4 lost") && Catch::Contains("coefficients.tsv"));
}

TEST_CASE("Coordinator: a work dir it cannot use refuses submissions instead of losing them",
          "[coordinator][journal][faults]") {
  testing::TempDir dir;
  dir.Write("file", "not a directory");
  CoordinatorFixture f(WithWorkDir(dir.Path("file")));
  CHECK_FALSE(f.coordinator_->journal_status().ok());
  CHECK_THAT(f.Submit(ValidSpec()).error().message(), Catch::Contains("job journal is unusable"));
}

// ---- Recovery (issue 10): a job that loses a member runs again as the next epoch ----

proto::JobSpec RecoverableSpec(uint32_t max_recoveries = 2, double wait_s = 10) {
  auto spec = ValidSpec();
  spec.mutable_recovery()->set_max_recoveries(max_recoveries);
  spec.mutable_recovery()->set_recovery_wait_s(wait_s);
  spec.mutable_recovery()->set_checkpoint_every_s(30);
  return spec;
}

// Lets `seconds` pass in 1 s steps with every member but `silent` beating; returns the
// JobStart envelopes sent meanwhile to `watch`.
std::vector<proto::Envelope> Beat(CoordinatorFixture& f, int seconds, const std::string& silent,
                                  const std::string& watch = "worker-0") {
  std::vector<proto::Envelope> starts;
  for (int i = 0; i < seconds; ++i) {
    f.h_.Advance(1);
    for (const char* m : {"scheduler-0", "worker-0", "worker-1"}) {
      if (m != silent) f.Heartbeat(m);
    }
    f.Tick();
    for (auto& e : f.h_.Inbox(watch)) {
      if (e.has_job_start()) starts.push_back(e);
    }
  }
  return starts;
}

TEST_CASE(
    "Coordinator: a job that loses a member waits in RECOVERING, then runs as epoch 1 on those "
    "left",
    "[coordinator][recovery]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(RecoverableSpec(2, 10)).submit_reply().job_id();
  REQUIRE(f.Job(id).state() == proto::JOB_LOADING);
  CHECK(f.Job(id).epoch() == 0);
  f.h_.ClearInboxes();
  // worker-1 goes silent: dropped after the 5 s heartbeat timeout.
  CHECK(Beat(f, 6, "worker-1").empty());
  auto job = f.Job(id);
  REQUIRE(job.state() == proto::JOB_RECOVERING);
  REQUIRE(job.recoveries_size() == 1);
  CHECK(job.recoveries(0).epoch() == 0);
  CHECK_THAT(job.recoveries(0).cause(),
             Catch::Contains("worker worker-1") && Catch::Contains("stopped responding"));
  CHECK(job.recoveries(0).checkpoint_round() == 0);  // nothing to resume from: from scratch
  CHECK(job.error().empty());
  // It waits up to --recovery-wait (10 s) for a second worker, then re-plans over worker-0.
  CHECK(Beat(f, 9, "worker-1").empty());
  REQUIRE(f.Job(id).state() == proto::JOB_RECOVERING);
  const auto starts = Beat(f, 2, "worker-1");
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].epoch() == 1);
  CHECK(starts[0].job_start().epoch() == 1);
  CHECK(starts[0].job_start().num_workers() == 1);
  job = f.Job(id);
  CHECK(job.state() == proto::JOB_LOADING);
  CHECK(job.epoch() == 1);
  CHECK(job.recoveries_size() == 1);
  CHECK(job.recoveries(0).restarted_at_s() >= 15);
}

TEST_CASE("Coordinator: a recovering job takes a replacement member that registers within the wait",
          "[coordinator][recovery]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(RecoverableSpec(2, 10)).submit_reply().job_id();
  Beat(f, 6, "worker-1");
  REQUIRE(f.Job(id).state() == proto::JOB_RECOVERING);
  f.h_.ClearInboxes();
  f.h_.Advance(2);
  f.Register("worker-1", proto::ROLE_WORKER);  // restarted: it registers again
  const auto inbox = f.h_.Inbox("worker-1");
  REQUIRE(inbox.size() == 2);  // RegisterAck, then the job's next epoch
  REQUIRE(inbox[1].has_job_start());
  CHECK(inbox[1].job_start().epoch() == 1);
  CHECK(inbox[1].job_start().num_workers() == 2);
  CHECK(f.Job(id).state() == proto::JOB_LOADING);
}

TEST_CASE(
    "Coordinator: past --max-recoveries a lost member fails the job as before, with 0 at once",
    "[coordinator][recovery][faults]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(RecoverableSpec(1, 0)).submit_reply().job_id();
  Beat(f, 6, "worker-1");  // recovery 1: runs again at once on scheduler-0 and worker-0
  REQUIRE(f.Job(id).state() == proto::JOB_LOADING);
  REQUIRE(f.Job(id).epoch() == 1);
  Beat(f, 6, "worker-0");  // no recovery left
  auto job = f.Job(id);
  CHECK(job.state() == proto::JOB_FAILED);
  CHECK_THAT(job.error(), Catch::Contains("worker worker-0"));
  CHECK(job.recoveries_size() == 1);

  CoordinatorFixture g;
  g.RegisterAll();
  const uint64_t off = g.Submit(RecoverableSpec(0, 10)).submit_reply().job_id();
  Beat(g, 6, "worker-1");
  CHECK(g.Job(off).state() == proto::JOB_FAILED);
  CHECK(g.Job(off).recoveries_size() == 0);
}

TEST_CASE("Coordinator: a recovering job can be cancelled, and nothing starts it again",
          "[coordinator][recovery]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(RecoverableSpec(2, 10)).submit_reply().job_id();
  Beat(f, 6, "worker-1");
  REQUIRE(f.Job(id).state() == proto::JOB_RECOVERING);
  CHECK(f.Call(Request(id, Kind::kCancel)).cancel_reply().state() == proto::JOB_CANCELLED);
  f.h_.ClearInboxes();
  CHECK(Beat(f, 15, "worker-1").empty());
  CHECK(f.Job(id).state() == proto::JOB_CANCELLED);
}

TEST_CASE(
    "Coordinator: restarted under a running job, it resumes it from the last whole checkpoint",
    "[coordinator][recovery][journal]") {
  testing::TempDir dir;
  CoordinatorFixture f(WithWorkDir(dir.Path("work")));
  f.RegisterAll();
  const uint64_t id = f.Submit(RecoverableSpec(2, 10)).submit_reply().job_id();
  REQUIRE(f.Job(id).state() == proto::JOB_LOADING);
  CheckpointStore store(dir.Path("work"));
  proto::Checkpoint cp;
  cp.set_job_id(id);
  cp.set_progress(1234);
  cp.set_updates(1234);
  cp.set_lambda_max(10);
  cp.add_ids(3);
  cp.add_values(0.5);
  REQUIRE(store.Write(cp).ok());
  // The next checkpoint's write is killed before its rename: half of it in checkpoint.tmp.
  cp.set_progress(2000);
  cp.set_updates(2000);
  const std::string newer = cp.SerializeAsString();
  std::ofstream(store.PathOf(id).string() + ".tmp", std::ios::binary)
      << newer.substr(0, newer.size() / 2);

  f.Restart();
  auto job = f.Job(id);
  CHECK(job.state() == proto::JOB_RECOVERING);
  REQUIRE(job.recoveries_size() == 1);
  CHECK(job.recoveries(0).cause() == "coordinator restarted");
  CHECK(job.recoveries(0).checkpoint_round() == 1234);
  f.h_.ClearInboxes();
  f.RegisterAll();
  // The members load, then round 0 restores the checkpoint's values.
  CHECK(f.Job(id).state() == proto::JOB_LOADING);
  CHECK(f.Job(id).epoch() == 1);
  auto ready = [&](const std::string& from, bool scheduler) {
    auto e = MakeEnvelope(from, id);
    e.set_epoch(1);
    if (scheduler) {
      e.mutable_ready()->set_num_features(10);
      e.mutable_ready()->set_end_param(10);
    } else {
      e.mutable_ready()->set_num_rows(5);
      // The starting replica (the coordinator keeps its own from worker rank 0's).
      for (int i = 0; i < 5; ++i) {
        e.mutable_ready()->mutable_shared()->add_labels(1.0);
        e.mutable_ready()->mutable_shared()->add_values(1.0);
      }
    }
    f.Send(from, e);
  };
  ready("scheduler-0", true);
  ready("worker-0", false);
  ready("worker-1", false);
  bool restored = false;
  for (const auto& e : f.h_.Inbox("worker-1")) {
    if (e.has_restore() && e.round() == 0) {
      restored = e.restore().ids_size() == 1 && e.restore().ids(0) == 3 &&
                 e.restore().values(0) == 0.5 && e.epoch() == 1;
    }
  }
  CHECK(restored);
  CHECK(f.Job(id).updates() == 1234);
  CHECK(f.Job(id).error() == "");
}

TEST_CASE(
    "Coordinator: a peer reported unreachable is lost until its next heartbeat, the job recovers",
    "[coordinator][recovery]") {
  CoordinatorFixture f;
  f.RegisterAll();
  const uint64_t id = f.Submit(RecoverableSpec(2, 0)).submit_reply().job_id();
  f.h_.ClearInboxes();
  auto report = MakeEnvelope("worker-0", id);
  report.mutable_job_failed()->set_error("cannot send block 1 to worker-1: timed out");
  report.mutable_job_failed()->set_lost_peer("worker-1");
  f.Send("worker-0", report);
  auto job = f.Job(id);
  CHECK(job.state() == proto::JOB_LOADING);  // recovered at once (--recovery-wait 0)
  REQUIRE(job.recoveries_size() == 1);
  CHECK_THAT(job.recoveries(0).cause(), Catch::Contains("cannot send block 1 to worker-1"));
  CHECK(job.workers() == 1);  // without the suspect, although its last heartbeat is recent
  CHECK(f.h_.Kinds("worker-1") == std::vector{Kind::kJobEnd});  // epoch 0 ended, no epoch 1
  const auto w0 = f.h_.Inbox("worker-0");
  REQUIRE_FALSE(w0.empty());
  CHECK(w0.back().job_start().num_workers() == 1);
  // A data error of a member is no member loss: the job fails.
  CoordinatorFixture g;
  g.RegisterAll();
  const uint64_t bad = g.Submit(RecoverableSpec(2, 0)).submit_reply().job_id();
  auto error = MakeEnvelope("worker-0", bad);
  error.mutable_job_failed()->set_error("x.svm:3: bad label");
  g.Send("worker-0", error);
  CHECK(g.Job(bad).state() == proto::JOB_FAILED);
  CHECK(g.Job(bad).recoveries_size() == 0);
}

// ---- Limits (issue 42): no request makes the coordinator hold, journal or send huge texts ----

TEST_CASE("Coordinator: a 40 MB --data is refused at submit naming the limit, and nothing grows",
          "[coordinator][limits][hostile]") {
  testing::TempDir dir;
  CoordinatorFixture f(WithWorkDir(dir.Path("work")));
  auto huge = ValidSpec();
  huge.set_data_path("/" + std::string(40 << 20, 'a'));
  for (int i = 0; i < 4; ++i) {
    const auto reply = f.Submit(huge);
    REQUIRE(reply.has_error());
    CHECK_THAT(reply.error().message(),
               Catch::Contains("at most 65536 (the limit on a job spec, serialized)"));
    CHECK(reply.error().message().size() < 200);  // never echoes the text
  }
  auto long_path = ValidSpec();
  long_path.set_data_path("/" + std::string(5000, 'a'));
  CHECK_THAT(f.Submit(long_path).error().message(),
             Catch::Contains("--data is 5001 bytes long: at most 4096 (the limit on a path"));
  auto flags = ValidSpec();
  for (int i = 0; i < 200; ++i) (*flags.mutable_flags())["flag" + std::to_string(i)] = "x";
  CHECK_THAT(f.Submit(flags).error().message(), Catch::Contains("records 200 flags: at most 128"));
  auto long_flag = ValidSpec();
  (*long_flag.mutable_flags())["lambda"] = std::string(5000, '1');
  CHECK_THAT(f.Submit(long_flag).error().message(),
             Catch::Contains("at most 4096 (the limit on a flag in a job spec)"));
  auto app = ValidSpec();
  app.set_app(std::string(1000, 'x'));
  CHECK_THAT(f.Submit(app).error().message(),
             Catch::Contains("the app name is 1000 bytes long: at most 64"));
  // Bytes hidden in a field this version does not know count too.
  auto stuffed = ValidSpec();
  stuffed.GetReflection()->MutableUnknownFields(&stuffed)->AddLengthDelimited(
      99, std::string(1 << 20, 'z'));
  CHECK_THAT(f.Submit(stuffed).error().message(), Catch::Contains("the job spec is"));
  auto schedulers = ValidSpec();
  schedulers.set_schedulers(100000);
  CHECK_THAT(f.Submit(schedulers).error().message(),
             Catch::Contains("--schedulers must be at most 4096"));
  // Nothing was accepted, journaled or listed; the next good spec is job 1.
  CHECK(f.Status().jobs_size() == 0);
  CHECK(f.Status().ByteSizeLong() < 1000);
  CHECK_FALSE(std::filesystem::exists(dir.Path("work/journal/1.job")));
  CHECK(f.Submit(ValidSpec()).submit_reply().job_id() == 1);
}

TEST_CASE("Coordinator: a member's oversized host or endpoint is refused at registration",
          "[coordinator][limits][hostile]") {
  CoordinatorFixture f;
  auto e = MakeEnvelope("worker-0");
  e.mutable_register_()->set_role(proto::ROLE_WORKER);
  e.mutable_register_()->set_host(std::string(10 << 20, 'h'));
  f.Send("worker-0", e);
  auto inbox = f.h_.Inbox("worker-0");
  REQUIRE(inbox.size() == 1);
  CHECK_THAT(inbox[0].error().message(),
             Catch::Contains("host is 10485760 bytes long: at most 1024"));
  CHECK(f.Status().members_size() == 0);
}

TEST_CASE("Coordinator: the job table is answered in bounded pages that cover every job once",
          "[coordinator][limits]") {
  CoordinatorFixture f;
  // Jobs of about 60 KB each (a spec just under the limit): 40 of them are 2.4 MB.
  auto big = ValidSpec();
  for (int i = 0; i < 100; ++i) {
    (*big.mutable_flags())["f" + std::to_string(i)] = std::string(600, 'v');
  }
  REQUIRE(big.ByteSizeLong() < kMaxJobSpecBytes);
  REQUIRE(big.ByteSizeLong() > 55000);
  for (int i = 0; i < 40; ++i) REQUIRE(f.Submit(big).has_submit_reply());
  for (int i = 0; i < 1500; ++i) REQUIRE(f.Submit(ValidSpec()).has_submit_reply());
  std::vector<uint64_t> seen;
  uint64_t first = 0;
  int pages = 0;
  do {
    auto e = MakeEnvelope("client");
    e.mutable_status_request()->set_first_job_id(first);
    const auto page = f.Call(e).status_reply();
    CHECK(page.ByteSizeLong() <= kStatusPageBytes + 1024);
    CHECK(page.jobs_size() <= static_cast<int>(kStatusPageJobs));
    REQUIRE(page.jobs_size() > 0);
    for (const auto& j : page.jobs()) seen.push_back(j.job_id());
    first = page.next_job_id();
    ++pages;
  } while (first != 0 && pages < 100);
  CHECK(pages >= 4);  // 2.4 MB of big jobs, then 1500 small ones in pages of 1000
  REQUIRE(seen.size() == 1540);
  for (size_t k = 0; k < seen.size(); ++k) CHECK(seen[k] == k + 1);
  // One job: a page of one, as a client following it asks.
  auto one = MakeEnvelope("client");
  one.mutable_status_request()->set_first_job_id(1000);
  one.mutable_status_request()->set_max_jobs(1);
  const auto page = f.Call(one).status_reply();
  REQUIRE(page.jobs_size() == 1);
  CHECK(page.jobs(0).job_id() == 1000);
  CHECK(page.next_job_id() == 1001);
}

TEST_CASE("Coordinator: a huge spec journaled before the limits is kept in part after a restart",
          "[coordinator][limits][journal]") {
  testing::TempDir dir;
  JobJournal journal(dir.Path("work"));
  for (uint64_t id : {1, 2}) {
    proto::JobRecord record;
    record.mutable_info()->set_job_id(id);
    record.mutable_info()->set_state(id == 1 ? proto::JOB_SUCCEEDED : proto::JOB_QUEUED);
    *record.mutable_info()->mutable_spec() = ValidSpec();
    record.mutable_info()->mutable_spec()->set_data_path("/" + std::string(20 << 20, 'a'));
    REQUIRE(journal.Write(record).ok());
  }
  CoordinatorFixture f(WithWorkDir(dir.Path("work")));
  const auto status = f.Status();
  CHECK(status.ByteSizeLong() < 4096);
  REQUIRE(status.jobs_size() == 2);
  CHECK(status.jobs(0).state() == proto::JOB_SUCCEEDED);
  CHECK(status.jobs(0).spec().data_path().size() == 256 + 3);  // cut at 256 bytes, "..."
  CHECK(status.jobs(1).state() == proto::JOB_FAILED);
  CHECK_THAT(status.jobs(1).error(), Catch::Contains("above the limit of 65536 bytes"));
  // The journal keeps the part too.
  CHECK(std::filesystem::file_size(journal.RecordPath(1)) < 4096);
  CHECK(std::filesystem::file_size(journal.RecordPath(2)) < 4096);
}

// ---- A full disk (issue 42): a finished job's state is never lost ----

namespace {

// The file system, until the disk is "full": then every write fails as ENOSPC would.
class FullDisk : public FileWriter {
 public:
  Status WriteAtomically(const std::filesystem::path& path, std::string_view contents) override {
    if (full) {
      ++refused;
      return Status::IoError("cannot write " + path.string() + ".tmp: No space left on device");
    }
    return WriteFileAtomically(path, contents);
  }
  bool full = false;
  int refused = 0;
};

// The members of job `id` (epoch 0) report they have loaded it: it runs, and has results.
void LoadAll(CoordinatorFixture& f, uint64_t id) {
  for (const char* from : {"scheduler-0", "worker-0", "worker-1"}) {
    auto e = MakeEnvelope(from, id);
    if (from[0] == 's') {
      e.mutable_ready()->set_num_features(10);
      e.mutable_ready()->set_end_param(10);
    } else {
      e.mutable_ready()->set_num_rows(5);
      for (int i = 0; i < 5; ++i) {
        e.mutable_ready()->mutable_shared()->add_labels(1.0);
        e.mutable_ready()->mutable_shared()->add_values(1.0);
      }
    }
    f.Send(from, e);
  }
  REQUIRE(f.Job(id).state() == proto::JOB_RUNNING);
}

}  // namespace

TEST_CASE(
    "Coordinator: on a full disk a finished job's final state is kept, new jobs are refused with "
    "a storage error, and all is written once the disk has room",
    "[coordinator][journal][faults]") {
  testing::TempDir dir;
  FullDisk disk;
  CoordinatorOptions options = WithWorkDir(dir.Path("work"));
  options.file_writer = &disk;
  CoordinatorFixture f(options);
  f.RegisterAll();
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  REQUIRE(f.Job(id).state() == proto::JOB_LOADING);

  disk.full = true;
  REQUIRE(f.Call(Request(id, Kind::kCancel)).cancel_reply().state() == proto::JOB_CANCELLED);
  CHECK(disk.refused > 0);
  CHECK(f.Job(id).state() == proto::JOB_CANCELLED);
  CHECK_THAT(f.Status().store_problem(),
             Catch::Contains("No space left on device") && Catch::Contains("new jobs are refused"));
  CHECK_FALSE(f.coordinator_->store_status().ok());
  const auto refused = f.Submit(ValidSpec());
  REQUIRE(refused.has_error());
  CHECK(refused.error().kind() == proto::ERROR_KIND_STORAGE);
  CHECK_THAT(refused.error().message(), Catch::Contains("cannot write its work dir") &&
                                            Catch::Contains("No space left on device"));
  // Still full a second later: still kept, still refused.
  f.h_.Advance(1.5);
  f.Tick();
  CHECK(f.Submit(ValidSpec()).error().kind() == proto::ERROR_KIND_STORAGE);
  CHECK_FALSE(f.coordinator_->FlushStore(f.h_.now()).ok());

  // Room again: the next retry (once a second) writes the state, and new jobs are taken.
  disk.full = false;
  f.h_.Advance(1.5);
  f.Tick();
  CHECK(f.coordinator_->store_status().ok());
  CHECK(f.Status().store_problem().empty());
  const uint64_t next = f.Submit(ValidSpec()).submit_reply().job_id();
  CHECK(next == id + 1);
  // A restart reads the final state back: the job does not run again.
  f.Restart();
  CHECK(f.Job(id).state() == proto::JOB_CANCELLED);
  CHECK(f.Job(id).error() == "cancelled");
}

TEST_CASE(
    "Coordinator: result files the full disk refused are written later, and after a restart a "
    "job whose files were never written says so as a storage error",
    "[coordinator][journal][faults]") {
  testing::TempDir dir;
  FullDisk disk;
  CoordinatorOptions options = WithWorkDir(dir.Path("work"));
  options.file_writer = &disk;
  CoordinatorFixture f(options);
  f.RegisterAll();
  const uint64_t id = f.Submit(ValidSpec()).submit_reply().job_id();
  LoadAll(f, id);
  // Only the result files fail: the record (small) is written, saying why they are missing.
  class ResultsRefused : public FileWriter {
   public:
    Status WriteAtomically(const std::filesystem::path& path, std::string_view contents) override {
      if (path.extension() != ".job") {
        return Status::IoError("cannot write " + path.string() + ".tmp: No space left on device");
      }
      return WriteFileAtomically(path, contents);
    }
  };
  SECTION("the files are written once the disk has room") {
    disk.full = true;
    REQUIRE(f.Call(Request(id, Kind::kCancel)).cancel_reply().state() == proto::JOB_CANCELLED);
    const auto files = f.Call(Request(id, Kind::kResultRequest)).result_reply().files();
    REQUIRE(files.size() == 3);  // served from memory meanwhile
    disk.full = false;
    f.h_.Advance(1.5);
    f.Tick();
    CHECK(f.coordinator_->store_status().ok());
    f.Restart();
    const auto reply = f.Call(Request(id, Kind::kResultRequest));
    REQUIRE(reply.has_result_reply());
    CHECK(reply.result_reply().files_size() == files.size());
  }
  SECTION("a restart before they were written") {
    ResultsRefused results_refused;
    f.options_.file_writer = &results_refused;
    f.Restart();  // the job failed as the coordinator restarted; the next runs under this writer
    f.RegisterAll();
    const uint64_t next = f.Submit(ValidSpec()).submit_reply().job_id();
    LoadAll(f, next);
    REQUIRE(f.Call(Request(next, Kind::kCancel)).cancel_reply().state() == proto::JOB_CANCELLED);
    CHECK_FALSE(f.coordinator_->store_status().ok());
    f.Restart();
    CHECK(f.Job(next).state() == proto::JOB_CANCELLED);  // the final state was written
    const auto reply = f.Call(Request(next, Kind::kResultRequest));
    REQUIRE(reply.has_error());
    CHECK(reply.error().kind() == proto::ERROR_KIND_STORAGE);
    CHECK_THAT(reply.error().message(),
               Catch::Contains("result files were not written before the coordinator restarted") &&
                   Catch::Contains("No space left on device"));
  }
}

TEST_CASE(
    "CheckpointStore: keeps the last two checkpoints, a corrupt latest falls back to the one "
    "before",
    "[coordinator][recovery][journal][faults]") {
  testing::TempDir dir;
  CheckpointStore store(dir.Path("work"));
  auto checkpoint = [](uint64_t progress) {
    proto::Checkpoint cp;
    cp.set_job_id(3);
    cp.set_progress(progress);
    return cp;
  };
  REQUIRE(store.Write(checkpoint(10)).ok());
  REQUIRE(store.Write(checkpoint(20)).ok());
  REQUIRE(store.Write(checkpoint(30)).ok());
  CHECK(store.Read(3)->progress() == 30);
  const std::string latest = store.PathOf(3).string();
  CHECK(std::filesystem::exists(latest + ".previous"));
  CHECK_FALSE(std::filesystem::exists(latest + ".new"));
  // The latest is damaged: the one before is used, and the damage named.
  std::string bytes = testing::ReadFile(latest);
  bytes.back() ^= 0x55;
  std::ofstream(latest, std::ios::binary) << bytes;
  std::vector<std::string> skipped;
  auto read = store.Read(3, &skipped);
  REQUIRE(read.ok());
  CHECK(read->progress() == 20);
  REQUIRE(skipped.size() == 1);
  CHECK_THAT(skipped[0], Catch::Contains("checkpoint: ") && Catch::Contains("checksum"));
  // A crash between the write of checkpoint.new and its rename: the new one is whole and used.
  std::filesystem::rename(latest, latest + ".new");
  std::ofstream(latest + ".new", std::ios::binary)
      << testing::ReadFile(latest + ".previous");  // progress 20, whole
  CHECK(store.Read(3)->progress() == 20);
  store.Remove(3);
  CHECK(store.Read(3).status().code() == StatusCode::kNotFound);
}

}  // namespace strads
