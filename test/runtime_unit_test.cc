// Unit tests of the runtime pieces without a cluster: the envelope, both transports, and the
// worker driven message by message over the in-process hub.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include <catch2/catch.hpp>

#include <spdlog/sinks/ostream_sink.h>
#include <zmq.hpp>

#include <thread>

#include "apps/builtin_apps.h"
#include "apps/linear.pb.h"
#include "common/background_load.h"
#include "common/data_loader.h"
#include "common/event_loop.h"
#include "common/inproc_transport.h"
#include "common/log_throttle.h"
#include "common/protocol.h"
#include "common/wire_frames.h"
#include "common/zmq_transport.h"
#include "engine/app_params.h"
#include "member_messages.h"
#include "temp_dir.h"
#include "worker/dynamic_worker_job.h"
#include "worker/worker.h"

namespace strads {
namespace {

using std::chrono::milliseconds;

// Binds `server` to a free loopback port; its endpoint.
std::string BindLoopback(ZmqTransport& server) {
  auto bound = server.Bind("tcp://127.0.0.1:0");
  REQUIRE(bound.ok());
  return *bound;
}

}  // namespace

TEST_CASE(
    "a background load (static or dynamic) that throws answers with an error, not an exception",
    "[background_load]") {
  const Execution execution = GENERATE(Execution::kThreads, Execution::kInline);
  CAPTURE(execution == Execution::kInline);
  BackgroundLoad<int> load(execution);
  load.Start([]() -> Result<int> { throw std::bad_alloc(); });
  std::optional<Result<int>> result = load.Poll();
  if (execution == Execution::kInline) CHECK(result);  // done when Start returned
  for (int i = 0; i < 500 && !result; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    result = load.Poll();
  }
  REQUIRE(result);
  CHECK(result->status().code() == StatusCode::kInternal);
  CHECK_THAT(result->status().message(), Catch::Contains("bad_alloc"));
  CHECK_FALSE(load.Busy());
}

TEST_CASE("a background load is fresh only while it runs and is younger than kFresh", "[runtime]") {
  BackgroundLoad<int> load;
  CHECK_FALSE(load.fresh());  // none started
  std::promise<void> go;
  std::shared_future<void> gate = go.get_future().share();
  load.Start([gate]() -> Result<int> {
    gate.wait();
    return 7;
  });
  CHECK(load.fresh());
  std::this_thread::sleep_for(BackgroundLoad<int>::kFresh + std::chrono::milliseconds(20));
  CHECK(load.running());
  CHECK_FALSE(load.fresh());  // still running, no longer fresh
  go.set_value();
  std::optional<Result<int>> result;
  for (int i = 0; i < 500 && !result; ++i) {
    result = load.Poll();
    if (!result) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(result);
  CHECK(**result == 7);
  CHECK_FALSE(load.fresh());  // done
}

TEST_CASE("an envelope survives serialisation with its bulk arrays", "[protocol]") {
  auto e = MakeEnvelope("worker-1", 42, 7);
  auto* p = e.mutable_column_partials();
  for (int i = 0; i < 1000; ++i) p->add_values(i * 0.5);
  p->set_applied_through(3);
  std::string bytes;
  REQUIRE(e.SerializeToString(&bytes));
  CHECK(bytes.size() < 1000 * 8 + 64);  // packed: about 8 bytes a number
  proto::Envelope back;
  REQUIRE(back.ParseFromString(bytes));
  CHECK(back.version() == kProtocolVersion);
  CHECK(back.job_id() == 42);
  CHECK(back.round() == 7);
  CHECK(back.sender() == "worker-1");
  REQUIRE(back.column_partials().values_size() == 1000);
  CHECK(back.column_partials().values(999) == 499.5);
  CHECK(back.column_partials().applied_through() == 3);
  CHECK(BodyName(back) == "column_partials");
}

TEST_CASE("a message of another protocol version is refused with both versions named",
          "[protocol]") {
  auto e = MakeEnvelope("x");
  CHECK(CheckVersion(e).ok());
  e.set_version(kProtocolVersion + 1);
  Status st = CheckVersion(e);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains(std::to_string(kProtocolVersion + 1)));
}

TEST_CASE(
    "the event loop answers another protocol version with an error and survives a throwing actor",
    "[protocol]") {
  struct Thrower : Actor {
    int messages = 0;
    void OnMessage(const proto::Envelope&, Clock::time_point) override {
      ++messages;
      throw std::runtime_error("boom");
    }
    void OnTick(Clock::time_point) override {}
    bool Finished() const override { return messages >= 2; }
  };
  InProcHub hub;
  InProcTransport node(hub, "node");
  InProcTransport peer(hub, "peer");
  Thrower actor;
  std::atomic<bool> stop{false};
  std::thread loop([&] { RunEventLoop(node, actor, stop, MakeLogger("test", "node", "off")); });
  auto old = MakeEnvelope("peer");
  old.set_version(kProtocolVersion + 7);
  REQUIRE(peer.Send("node", old).ok());
  auto reply = peer.Receive(milliseconds(2000));
  REQUIRE(reply);
  REQUIRE(reply->body_case() == proto::Envelope::kError);
  CHECK_THAT(reply->error().message(), Catch::Contains("version"));
  REQUIRE(peer.Send("node", MakeEnvelope("peer")).ok());  // throws inside the actor
  REQUIRE(peer.Send("node", MakeEnvelope("peer")).ok());  // still served
  loop.join();
  CHECK(actor.messages == 2);
}

TEST_CASE("in-process transport delivers in order and refuses unknown or departed peers",
          "[transport]") {
  InProcHub hub;
  InProcTransport a(hub, "a");
  auto b = std::make_unique<InProcTransport>(hub, "b");
  for (int i = 0; i < 5; ++i) REQUIRE(a.Send("b", MakeEnvelope("a", 0, i)).ok());
  for (int i = 0; i < 5; ++i) {
    auto e = b->Receive(milliseconds(100));
    REQUIRE(e);
    CHECK(e->round() == static_cast<uint64_t>(i));
  }
  CHECK_FALSE(b->Receive(milliseconds(0)));  // every send was delivered at once
  CHECK(a.Send("nobody", MakeEnvelope("a")).code() == StatusCode::kUnavailable);
  b.reset();
  CHECK(a.Send("b", MakeEnvelope("a")).code() == StatusCode::kUnavailable);
}

TEST_CASE("ZeroMQ transport binds port 0, reports the endpoint and routes replies back",
          "[transport]") {
  zmq::context_t context;
  ZmqTransport server(context, "server");
  auto bound = server.Bind("tcp://127.0.0.1:0");
  REQUIRE(bound.ok());
  CHECK(bound->rfind("tcp://127.0.0.1:", 0) == 0);
  CHECK(bound->find(":0") == std::string::npos);
  ZmqTransport client(context, "client", milliseconds(2000));
  REQUIRE(client.Connect("server", *bound).ok());
  auto request = MakeEnvelope("client", 1, 2);
  request.mutable_status_request();
  REQUIRE(client.Send("server", request).ok());
  auto got = server.Receive(milliseconds(2000));
  REQUIRE(got);
  CHECK(got->sender() == "client");
  // The server never connected to the client: the reply goes back through its ROUTER.
  auto reply = MakeEnvelope("server", 1, 2);
  reply.mutable_status_reply()->set_coordinator("server");
  REQUIRE(server.Send("client", reply).ok());
  auto back = client.Receive(milliseconds(2000));
  REQUIRE(back);
  CHECK(back->status_reply().coordinator() == "server");
  CHECK(server.Send("stranger", reply).code() == StatusCode::kUnavailable);
}

TEST_CASE("ZeroMQ carries bulk arrays as raw frames both ways, owned or copied", "[transport]") {
  zmq::context_t context;
  ZmqTransport server(context, "server");
  const std::string bound = BindLoopback(server);
  ZmqTransport client(context, "client", milliseconds(2000));
  REQUIRE(client.Connect("server", bound).ok());
  auto partials = MakeEnvelope("client", 1, 5);
  auto* p = partials.mutable_column_partials();
  for (int i = 0; i < kMinRawElements + 10; ++i) {  // ids and values travel raw
    p->add_ids(static_cast<uint64_t>(i) * 7);
    p->add_values(i * 0.5);
  }
  p->mutable_change()->set_dense(true);
  for (int i = 0; i < 1000; ++i) p->mutable_change()->add_values(-i);  // stays in the header
  const proto::Envelope sent = partials;
  REQUIRE(client.SendOwned("server", std::move(partials)).ok());  // DEALER, moved
  auto got = server.Receive(milliseconds(2000));
  REQUIRE(got);
  CHECK(got->raw_arrays_size() == 0);
  CHECK(got->SerializeAsString() == sent.SerializeAsString());
  REQUIRE(server.Send("client", sent).ok());  // ROUTER, copied
  auto back = client.Receive(milliseconds(2000));
  REQUIRE(back);
  CHECK(back->SerializeAsString() == sent.SerializeAsString());
  CHECK(server.malformed_frames() == 0);
  CHECK(client.malformed_frames() == 0);
}

TEST_CASE("ZeroMQ counts the bytes and messages it sends and receives, by kind of peer",
          "[transport]") {
  zmq::context_t context;
  ZmqTransport worker(context, "worker@h:1");
  const std::string bound = BindLoopback(worker);
  ZmqTransport coordinator(context, "coordinator", milliseconds(2000));
  REQUIRE(coordinator.Connect("worker@h:1", bound).ok());
  auto update = MakeEnvelope("coordinator", 1, 3);
  for (int i = 0; i < kMinRawElements + 10; ++i) {  // a raw frame as well as the header
    update.mutable_shared_update()->mutable_change()->add_values(i);
  }
  const uint64_t raw_bytes = 8 * static_cast<uint64_t>(kMinRawElements + 10);
  REQUIRE(coordinator.Send("worker@h:1", update).ok());
  REQUIRE(worker.Receive(milliseconds(2000)));
  auto report = MakeEnvelope("worker@h:1", 1, 3);
  report.mutable_loss_report();
  REQUIRE(worker.Send("coordinator", report).ok());  // back through its ROUTER
  REQUIRE(coordinator.Receive(milliseconds(2000)));

  auto traffic = [](const Transport& t) {
    google::protobuf::RepeatedPtrField<proto::PeerTraffic> out;
    REQUIRE(t.traffic());
    t.traffic()->Export(out);
    return out;
  };
  const auto at_coordinator = traffic(coordinator);
  REQUIRE(at_coordinator.size() == 1);
  CHECK(at_coordinator[0].peer() == proto::ROLE_WORKER);
  CHECK(at_coordinator[0].messages_sent() == 1);
  CHECK(at_coordinator[0].messages_received() == 1);
  CHECK(at_coordinator[0].bytes_sent() > raw_bytes);  // the header too
  CHECK(at_coordinator[0].bytes_sent() < raw_bytes + 200);
  const auto at_worker = traffic(worker);
  REQUIRE(at_worker.size() == 1);
  CHECK(at_worker[0].peer() == proto::ROLE_COORDINATOR);
  CHECK(at_worker[0].bytes_received() == at_coordinator[0].bytes_sent());
  CHECK(at_worker[0].bytes_sent() == at_coordinator[0].bytes_received());
  CHECK(TrafficCounter::RoleOf("scheduler-1") == proto::ROLE_SCHEDULER);
  CHECK(TrafficCounter::RoleOf("client-7f3a") == proto::ROLE_UNSPECIFIED);
}

TEST_CASE("ZeroMQ counts and drops a message whose raw frames do not match its header",
          "[transport]") {
  zmq::context_t context;
  ZmqTransport server(context, "server");
  zmq::socket_t raw(context, zmq::socket_type::dealer);
  raw.set(zmq::sockopt::routing_id, "client");
  raw.connect(BindLoopback(server));
  auto e = MakeEnvelope("client");
  e.mutable_commit()->add_values(1.0);
  e.add_raw_arrays()->add_path(36);  // lists one array, sends none
  const std::string header = e.SerializeAsString();
  REQUIRE(raw.send(zmq::buffer(header), zmq::send_flags::none));
  CHECK_FALSE(server.Receive(milliseconds(300)));
  CHECK(server.malformed_frames() == 1);
  auto ok = MakeEnvelope("client");
  ok.mutable_status_request();
  const std::string good = ok.SerializeAsString();
  REQUIRE(raw.send(zmq::buffer(good), zmq::send_flags::none));
  auto got = server.Receive(milliseconds(2000));
  REQUIRE(got);  // the inbox still serves
  CHECK(got->body_case() == proto::Envelope::kStatusRequest);
}

TEST_CASE("ZeroMQ: 30000 malformed messages make one warning with a count, not 30000",
          "[transport][hostile]") {
  std::ostringstream lines;
  auto log = std::make_shared<spdlog::logger>(
      "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(lines));
  zmq::context_t context;
  ZmqTransport server(context, "server", milliseconds(3000), std::nullopt, log);
  zmq::socket_t raw(context, zmq::socket_type::dealer);
  raw.set(zmq::sockopt::routing_id, "client");
  raw.set(zmq::sockopt::sndhwm, 0);
  raw.connect(BindLoopback(server));
  auto e = MakeEnvelope("client");
  e.add_raw_arrays()->add_path(36);  // lists one array, sends none: malformed
  const std::string garbage = e.SerializeAsString();
  constexpr int kGarbage = 30000;
  int sent = 0;
  for (int i = 0; i < kGarbage; ++i)
    sent += raw.send(zmq::buffer(garbage), zmq::send_flags::none) ? 1 : 0;
  REQUIRE(sent == kGarbage);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (server.malformed_frames() < kGarbage && std::chrono::steady_clock::now() < deadline) {
    (void)server.Receive(milliseconds(50));
  }
  REQUIRE(server.malformed_frames() == kGarbage);  // each one counted
  const std::string text = lines.str();
  const auto warnings = std::count(text.begin(), text.end(), '\n');
  INFO(text.substr(0, 2000));
  CHECK(warnings >= 1);
  CHECK(warnings <= 2);  // a line per 10 s
  CHECK_THAT(text, Catch::Contains("dropped a malformed message"));
}

TEST_CASE("LogThrottle: the first occurrence in full, then a line per interval with the count",
          "[logging]") {
  LogThrottle throttle(std::chrono::seconds(10));
  const auto t0 = LogThrottle::Clock::time_point{} + std::chrono::hours(1);
  CHECK(throttle.Note("bad", t0) == "bad");
  for (int i = 1; i <= 99; ++i) CHECK_FALSE(throttle.Note("bad", t0 + milliseconds(i * 50)));
  CHECK(throttle.untold() == 99);
  CHECK(throttle.Note("worse", t0 + std::chrono::seconds(12)) ==
        "worse (and 99 more like it in the last 12.0 s)");
  CHECK(throttle.untold() == 0);
  CHECK(throttle.Note("again", t0 + std::chrono::seconds(30)) == "again");
}

TEST_CASE("ZeroMQ send to an endpoint nobody listens on fails within the send timeout",
          "[transport]") {
  zmq::context_t context;
  ZmqTransport client(context, "client", milliseconds(300));
  REQUIRE(client.Connect("ghost", "tcp://127.0.0.1:1").ok());
  auto start = std::chrono::steady_clock::now();
  Status st = client.Send("ghost", MakeEnvelope("client"));
  CHECK(st.code() == StatusCode::kUnavailable);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
}

// The order of a worker's rounds is tested on DynamicWorkerJob itself (test/member_job_test.cc);
// here the worker as a whole, as the coordinator sees it.

namespace {

// The worker's jobs, with their loads run inline (Execution::kInline): when a call into the worker
// returns, everything it leads to has been sent.
Result<std::unique_ptr<MemberJob>> MakeInlineWorkerJob(const JobContext& context) {
  JobContext inline_context = context;
  inline_context.execution = Execution::kInline;
  return MakeWorkerJob(inline_context);
}

// A worker on an in-process hub with the test as its coordinator.
struct WorkerBench {
  InProcHub hub;
  InProcTransport coordinator{hub, "coordinator"};
  InProcTransport transport{hub, "worker-0"};
  const AppRegistry apps = BuiltinApps();
  Member worker{transport,
                proto::ROLE_WORKER,
                MemberIdentity{},
                apps,
                MakeLogger("worker", "test", "off"),
                MakeInlineWorkerJob};

  void Deliver(const proto::Envelope& e) { worker.OnMessage(e, Clock::now()); }
  // Sends job `job` the whole file's column counts of `data`, as the coordinator does once the
  // workers have counted their parts (a worker loads its columns only then).
  void DeliverCounts(uint64_t job, const std::string& data, uint32_t epoch = 0) {
    auto e = testing::ColumnCountsEnvelope(job, data);
    e.set_epoch(epoch);
    Deliver(e);
  }
  // The next Ready or JobFailed the coordinator receives (the messages before it are dropped),
  // ticking the worker a few times, or nullopt: the loads run inline, one tick sees each end.
  std::optional<proto::Envelope> AwaitAnswer() {
    for (int tick = 0; tick < 3; ++tick) {
      while (auto e = coordinator.Receive(milliseconds(0))) {
        if (e->has_ready() || e->has_job_failed()) return e;
      }
      worker.OnTick(Clock::now());
    }
    return std::nullopt;
  }
};

proto::Envelope JobStartEnvelope(uint64_t job, const std::string& app, proto::Engine engine,
                                 const std::string& data) {
  auto start = MakeEnvelope("coordinator", job);
  start.mutable_job_start()->mutable_spec()->set_app(app);
  start.mutable_job_start()->mutable_spec()->set_data_path(data);
  // A linear model refuses a spec without its message; lambda 0 does here (no check is reached).
  if (app == "lasso") {
    SetAppParams(proto::LinearModelSpec(), *start.mutable_job_start()->mutable_spec());
  }
  start.mutable_job_start()->set_engine(engine);
  start.mutable_job_start()->set_num_workers(1);
  return start;
}

// Shared update `round` of job `job`: entry 1 of tiny.svm's 4-row replica moved by 0.5.
proto::Envelope SharedUpdateEnvelope(uint64_t job, uint64_t round) {
  return testing::SharedUpdateOf(job, round, 4, 1, 0.5);
}

}  // namespace

TEST_CASE("a shared update out of round order is refused, not applied, and reported", "[worker]") {
  testing::TempDir dir;
  const auto data = dir.Write("tiny.svm", "1 1:1 2:0.5\n2 2:1 3:1\n-1 1:2\n0.5 3:-1\n");
  WorkerBench bench;
  // Without a job every job message is dropped; nothing crashes on garbage.
  bench.Deliver(MakeEnvelope("coordinator", 9, 3));
  bench.Deliver(proto::Envelope{});
  CHECK(bench.worker.job() == nullptr);

  bench.Deliver(JobStartEnvelope(1, "lasso", proto::ENGINE_DYNAMIC, data));
  bench.DeliverCounts(1, data);
  auto ready = bench.AwaitAnswer();
  REQUIRE(ready);
  REQUIRE(ready->has_ready());
  auto* job = dynamic_cast<DynamicWorkerJob*>(bench.worker.job());
  REQUIRE(job != nullptr);

  bench.Deliver(SharedUpdateEnvelope(1, 3));  // round 0 is expected
  auto refused = bench.AwaitAnswer();
  REQUIRE(refused);
  CHECK_THAT(refused->job_failed().error(), Catch::Contains("shared_update of round 3"));
  CHECK(job->applied_rounds() == 0);
}

TEST_CASE("a JobStart a member cannot build (unknown engine, unknown app) is the job's error",
          "[worker]") {
  WorkerBench bench;
  SECTION("no engine named") {
    bench.Deliver(JobStartEnvelope(2, "lasso", proto::ENGINE_UNSPECIFIED, "unused"));
    auto failed = bench.AwaitAnswer();
    REQUIRE(failed);
    CHECK_THAT(failed->job_failed().error(), Catch::Contains("engine"));
  }
  SECTION("an app of the other engine") {
    bench.Deliver(JobStartEnvelope(2, "lda", proto::ENGINE_DYNAMIC, "unused"));
    auto failed = bench.AwaitAnswer();
    REQUIRE(failed);
    CHECK_THAT(failed->job_failed().error(), Catch::Contains("lda"));
  }
  CHECK(bench.worker.job() == nullptr);
}

TEST_CASE(
    "a worker stamps and fences its job epoch, and a JobStart of the next epoch replaces the job",
    "[worker][recovery]") {
  testing::TempDir dir;
  const auto data = dir.Write("tiny.svm", "1 1:1 2:0.5\n2 2:1 3:1\n-1 1:2\n0.5 3:-1\n");
  WorkerBench bench;
  auto start = JobStartEnvelope(1, "lasso", proto::ENGINE_DYNAMIC, data);
  start.set_epoch(3);
  start.mutable_job_start()->set_epoch(3);
  bench.Deliver(start);
  bench.DeliverCounts(1, data, 3);
  auto ready = bench.AwaitAnswer();
  REQUIRE(ready);
  REQUIRE(ready->has_ready());
  CHECK(ready->epoch() == 3);
  auto* job = dynamic_cast<DynamicWorkerJob*>(bench.worker.job());
  REQUIRE(job != nullptr);

  // A shared update of epoch 2 (an earlier run of the job) is neither applied nor an error.
  auto stale = SharedUpdateEnvelope(1, 0);
  stale.set_epoch(2);
  bench.Deliver(stale);
  auto stale_end = MakeEnvelope("coordinator", 1);
  stale_end.set_epoch(2);
  stale_end.mutable_job_end()->set_reason("an old run ended");
  bench.Deliver(stale_end);
  CHECK(bench.worker.job() == job);  // the JobEnd of epoch 2 did not end epoch 3
  CHECK(job->applied_rounds() == 0);
  CHECK_FALSE(bench.AwaitAnswer());  // no error report

  auto current = stale;
  current.set_epoch(3);
  bench.Deliver(current);
  CHECK(job->applied_rounds() == 1);

  auto next = start;
  next.set_epoch(4);
  next.mutable_job_start()->set_epoch(4);
  bench.Deliver(next);
  REQUIRE(bench.worker.job() != nullptr);
  CHECK(bench.worker.job()->epoch() == 4);  // a new job (its address may be the old one's)
}

}  // namespace strads
