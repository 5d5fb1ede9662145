// Unit tests of the runtime pieces without a cluster: the envelope, both transports, and the
// worker's pipeline bound driven message by message over the in-process hub.
#include <chrono>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <zmq.hpp>

#include <thread>

#include "apps/builtin_apps.h"
#include "common/background_load.h"
#include "common/event_loop.h"
#include "common/inproc_transport.h"
#include "common/protocol.h"
#include "common/zmq_transport.h"
#include "worker/worker.h"

namespace strads {
namespace {

using std::chrono::milliseconds;

const AppRegistry apps = BuiltinApps();

}  // namespace

TEST_CASE(
    "a background load (static or dynamic) that throws answers with an error, not an exception",
    "[background_load]") {
  BackgroundLoad<int> load;
  load.Start([]() -> Result<int> { throw std::bad_alloc(); });
  std::optional<Result<int>> result;
  for (int i = 0; i < 500 && !result; ++i) {
    result = load.Poll();
    if (!result) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(result);
  CHECK(result->status().code() == StatusCode::kInternal);
  CHECK_THAT(result->status().message(), Catch::Contains("bad_alloc"));
  CHECK_FALSE(load.Busy());
}

TEST_CASE("an envelope survives serialisation with its bulk arrays", "[protocol]") {
  auto e = MakeEnvelope("worker-1", 42, 7);
  auto* p = e.mutable_partials();
  for (int i = 0; i < 1000; ++i) p->add_sums(i * 0.5);
  p->set_loss(3.25);
  std::string bytes;
  REQUIRE(e.SerializeToString(&bytes));
  CHECK(bytes.size() < 1000 * 8 + 64);  // packed: about 8 bytes a number
  proto::Envelope back;
  REQUIRE(back.ParseFromString(bytes));
  CHECK(back.version() == kProtocolVersion);
  CHECK(back.job_id() == 42);
  CHECK(back.round() == 7);
  CHECK(back.sender() == "worker-1");
  REQUIRE(back.partials().sums_size() == 1000);
  CHECK(back.partials().sums(999) == 499.5);
  CHECK(BodyName(back) == "partials");
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
    "the event loop answers a message of another protocol version with an error and "
    "survives an actor that throws",
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
  CHECK_FALSE(b->Receive(milliseconds(10)));
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

TEST_CASE("a worker never computes round t before it has applied every commit up to t - D",
          "[worker][pipeline]") {
  // A 4-row shard with 3 features; the test plays coordinator and scheduler.
  auto dir =
      std::filesystem::temp_directory_path() / ("strads-worker-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto data = (dir / "tiny.svm").string();
  {
    std::ofstream out(data);
    out << "1 1:1 2:0.5\n2 2:1 3:1\n-1 1:2\n0.5 3:-1\n";
  }
  for (uint32_t depth : {1u, 2u, 3u}) {
    CAPTURE(depth);
    InProcHub hub;
    InProcTransport coordinator(hub, "coordinator");
    InProcTransport scheduler(hub, "scheduler-0");
    InProcTransport worker_transport(hub, "worker-0");
    MemberIdentity identity;
    identity.host = "test";
    Worker worker(worker_transport, identity, apps, MakeLogger("worker", "test", "off"));
    auto deliver = [&](const proto::Envelope& e) { worker.OnMessage(e, Clock::now()); };

    auto start = MakeEnvelope("coordinator", 1);
    start.mutable_job_start()->mutable_spec()->set_app("lasso");
    start.mutable_job_start()->mutable_spec()->set_data_path(data);
    start.mutable_job_start()->mutable_spec()->mutable_dynamic()->set_pipeline_depth(depth);
    start.mutable_job_start()->set_num_workers(1);
    deliver(start);
    std::optional<proto::Envelope> ready;
    for (int i = 0; i < 200 && !ready; ++i) {
      worker.OnTick(Clock::now());
      ready = coordinator.Receive(milliseconds(10));
      if (ready && ready->body_case() != proto::Envelope::kReady) ready.reset();
    }
    REQUIRE(ready);
    REQUIRE(ready->ready().error().empty());

    // Chords for rounds 0..5 arrive at once, no commit yet.
    for (uint64_t t = 0; t < 6; ++t) {
      auto chord = MakeEnvelope("scheduler-0", 1, t);
      chord.mutable_chord()->add_ids(t % 3);
      chord.mutable_chord()->add_values(0);
      chord.mutable_chord()->add_sq_norms(1);
      deliver(chord);
    }
    auto drain_partials = [&] {
      std::vector<uint64_t> rounds;
      while (auto e = coordinator.Receive(milliseconds(20))) {
        if (e->body_case() == proto::Envelope::kPartials) {
          // The bound itself: round t was computed with commits of rounds <= t - D applied.
          CHECK(e->partials().applied_through() + depth > e->round());
          rounds.push_back(e->round());
        }
      }
      return rounds;
    };
    auto first = drain_partials();
    REQUIRE(first.size() == depth);
    CHECK(worker.pending_chords() == 6 - depth);
    for (uint64_t t = 0; t < 6; ++t) {
      auto commit = MakeEnvelope("coordinator", 1, t);
      commit.mutable_commit()->add_ids(t % 3);
      commit.mutable_commit()->add_values(0.1);
      commit.mutable_commit()->add_deltas(0.1);
      deliver(commit);
      auto released = drain_partials();
      const size_t expected = t + depth < 6 ? 1 : 0;
      CHECK(released.size() == expected);
      if (expected) CHECK(released[0] == t + depth);
    }
    CHECK(worker.applied_rounds() == 6);
  }
}

TEST_CASE("dual pipeline: a chord's fresh head waits for every earlier commit, its tail does not",
          "[worker][pipeline]") {
  auto dir = std::filesystem::temp_directory_path() /
             ("strads-worker-dual-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto data = (dir / "tiny.svm").string();
  {
    std::ofstream out(data);
    out << "1 1:1 2:0.5\n2 2:1 3:1\n-1 1:2\n0.5 3:-1\n";
  }
  InProcHub hub;
  InProcTransport coordinator(hub, "coordinator");
  InProcTransport worker_transport(hub, "worker-0");
  Worker worker(worker_transport, MemberIdentity{}, apps, MakeLogger("worker", "test", "off"));
  auto deliver = [&](const proto::Envelope& e) { worker.OnMessage(e, Clock::now()); };
  auto start = MakeEnvelope("coordinator", 1);
  start.mutable_job_start()->mutable_spec()->set_app("lasso");
  start.mutable_job_start()->mutable_spec()->set_data_path(data);
  start.mutable_job_start()->mutable_spec()->mutable_dynamic()->set_pipeline_depth(3);
  start.mutable_job_start()->set_num_workers(1);
  deliver(start);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    worker.OnTick(Clock::now());
    auto e = coordinator.Receive(milliseconds(10));
    ready = e && e->body_case() == proto::Envelope::kReady;
  }
  REQUIRE(ready);
  for (uint64_t t = 0; t < 3; ++t) {
    auto chord = MakeEnvelope("scheduler-0", 1, t);
    for (uint64_t j = 0; j < 2; ++j) {
      chord.mutable_chord()->add_ids(j);
      chord.mutable_chord()->add_values(0);
      chord.mutable_chord()->add_sq_norms(1);
    }
    chord.mutable_chord()->set_fresh_count(1);
    deliver(chord);
  }
  auto rounds = [&] {
    std::vector<uint64_t> out;
    while (auto e = coordinator.Receive(milliseconds(20))) {
      if (e->body_case() == proto::Envelope::kPartials) {
        CHECK(e->partials().applied_through() == e->round());  // the head saw every commit
        CHECK(e->partials().sums_size() == 2);
        out.push_back(e->round());
      }
    }
    return out;
  };
  // D = 3 would allow rounds 0..2 at once; the fresh heads allow only round 0.
  CHECK(rounds() == std::vector<uint64_t>{0});
  for (uint64_t t = 0; t < 2; ++t) {
    auto commit = MakeEnvelope("coordinator", 1, t);
    commit.mutable_commit()->add_ids(0);
    commit.mutable_commit()->add_values(0.1 * (t + 1));
    commit.mutable_commit()->add_deltas(0.1);
    deliver(commit);
    CHECK(rounds() == std::vector<uint64_t>{t + 1});
  }
}

TEST_CASE("a commit out of round order is refused, not applied", "[worker][pipeline]") {
  InProcHub hub;
  InProcTransport coordinator(hub, "coordinator");
  InProcTransport worker_transport(hub, "worker-0");
  Worker worker(worker_transport, MemberIdentity{}, apps, MakeLogger("worker", "test", "off"));
  // Without a job every job message is dropped; nothing crashes on garbage.
  auto commit = MakeEnvelope("coordinator", 9, 3);
  commit.mutable_commit()->add_ids(1);
  worker.OnMessage(commit, Clock::now());
  proto::Envelope empty;
  worker.OnMessage(empty, Clock::now());
  CHECK(worker.applied_rounds() == 0);
}

}  // namespace strads
