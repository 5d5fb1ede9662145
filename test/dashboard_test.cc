// The web dashboard without a browser: the trace a job leaves (coordinator/job_trace.h), the
// snapshots handed to the HTTP threads (coordinator/dashboard_state.h), the routes
// (coordinator/dashboard_api.h) fed by a real Coordinator over the in-process transport with a
// fake clock, and the server itself on a loopback port (coordinator/http_dashboard.h).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <google/protobuf/text_format.h>

#include "actor_harness.h"
#include "apps/builtin_apps.h"
#include "apps/linear.pb.h"
#include "coordinator/coordinator.h"
#include "coordinator/dashboard_api.h"
#include "coordinator/dashboard_state.h"
#include "coordinator/http_dashboard.h"
#include "coordinator/status_json.h"
#include "test/app_params_edit.h"

// Last: it includes <resolv.h>, whose `_res` macro breaks Eigen (included by the apps).
#include <httplib.h>

namespace strads {
namespace {

using strads::testing::EditAppParams;
using json = nlohmann::json;

proto::JobInfo ParseJob(const std::string& text) {
  proto::JobInfo j;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &j));
  return j;
}

proto::JobInfo Lasso(uint64_t id, proto::JobState state, double seconds, uint64_t updates,
                     double objective) {
  proto::JobInfo j = ParseJob(R"pb(app: "lasso"
                                   spec { dynamic { schedule: SCHEDULE_DYNAMIC } })pb");
  j.set_job_id(id);
  j.set_state(state);
  j.set_seconds(seconds);
  j.set_updates(updates);
  j.set_round(updates / 10);
  j.set_objective(objective);
  return j;
}

proto::JobInfo Lda(proto::JobState state, uint64_t sub_rounds, double loglik,
                   std::vector<double> worker_seconds) {
  proto::JobInfo j = ParseJob(R"pb(
    job_id: 7
    app: "lda"
    objective_name: "loglik_per_token"
    work_unit: "tokens"
    spec { static_engine { iterations: 10 } }
  )pb");
  j.set_state(state);
  j.set_round(sub_rounds);
  j.set_updates(1000 * sub_rounds);
  j.set_seconds(0.5 * static_cast<double>(sub_rounds));
  j.set_objective(loglik);
  for (double s : worker_seconds) j.add_worker_seconds(s);
  return j;
}

proto::StatusReply StatusOf(std::initializer_list<proto::JobInfo> jobs) {
  proto::StatusReply s;
  s.set_coordinator("coordinator");
  for (const auto& j : jobs) *s.add_jobs() = j;
  return s;
}

json Body(const HttpReply& r) { return json::parse(r.body); }

}  // namespace

TEST_CASE("JobTrace: samples a job from its first running snapshot, each state once",
          "[dashboard]") {
  JobTrace trace;
  CHECK_FALSE(trace.Add(Lasso(1, proto::JOB_QUEUED, 0, 0, 0)));
  CHECK_FALSE(trace.Add(Lasso(1, proto::JOB_LOADING, 1, 0, 0)));
  CHECK(trace.Add(Lasso(1, proto::JOB_RUNNING, 2, 0, 50)));
  CHECK_FALSE(trace.Add(Lasso(1, proto::JOB_RUNNING, 2.25, 0, 50)));  // only time moved
  CHECK(trace.Add(Lasso(1, proto::JOB_RUNNING, 2.5, 100, 40)));
  CHECK(trace.Add(Lasso(1, proto::JOB_SUCCEEDED, 3, 100, 39.5)));  // the exact final objective
  const json j = trace.Json();
  CHECK(j["seconds"] == json({2.0, 2.5, 3.0}));
  CHECK(j["updates"] == json({0, 100, 100}));
  CHECK(j["round"] == json({0, 10, 10}));
  CHECK(j["objective"] == json({50.0, 40.0, 39.5}));
  CHECK_FALSE(j.contains("worker_seconds"));  // a dynamic job has no sub-rounds
}

TEST_CASE(
    "JobTrace: a static job has a null objective until evaluated and keeps per-worker seconds",
    "[dashboard]") {
  JobTrace trace;
  trace.Add(Lda(proto::JOB_RUNNING, 0, 0, {}));
  trace.Add(Lda(proto::JOB_RUNNING, 1, -9.5, {0.25, 0.5}));
  const json j = trace.Json();
  CHECK(j["objective"][0].is_null());
  CHECK(j["objective"][1] == -9.5);
  CHECK(j["worker_seconds"] == json({json::array(), json({0.25, 0.5})}));
}

TEST_CASE("JobTrace: when full, every other point goes, the first and the newest stay",
          "[dashboard]") {
  JobTrace trace(4);
  for (uint64_t u = 1; u <= 9; ++u) trace.Add(Lasso(1, proto::JOB_RUNNING, u, u, 10.0 / u));
  REQUIRE(trace.points().size() <= 4);
  CHECK(trace.points().front().updates == 1);
  CHECK(trace.points().back().updates == 9);
  for (size_t i = 1; i < trace.points().size(); ++i) {
    CHECK(trace.points()[i - 1].updates < trace.points()[i].updates);
  }
}

TEST_CASE("DashboardState: a finished job's trace is frozen and shared, the oldest traces go",
          "[dashboard]") {
  DashboardState state(/*max_traced_jobs=*/2);
  CHECK(state.Current()->status.jobs().empty());
  state.OnStatus(StatusOf({Lasso(1, proto::JOB_RUNNING, 1, 10, 5)}));
  state.OnStatus(StatusOf({Lasso(1, proto::JOB_SUCCEEDED, 2, 20, 4)}));
  const auto frozen = state.Current()->traces.at(1);
  CHECK(frozen->points().size() == 2);
  // A later snapshot of a finished job (e.g. a status after a restart of the clock) adds nothing.
  state.OnStatus(
      StatusOf({Lasso(1, proto::JOB_SUCCEEDED, 9, 90, 1), Lasso(2, proto::JOB_QUEUED, 0, 0, 0)}));
  CHECK(state.Current()->traces.at(1) == frozen);
  CHECK(state.Current()->traces.at(2)->points().empty());
  state.OnStatus(
      StatusOf({Lasso(1, proto::JOB_SUCCEEDED, 2, 20, 4), Lasso(2, proto::JOB_SUCCEEDED, 0, 0, 0),
                Lasso(3, proto::JOB_RUNNING, 1, 5, 3)}));
  const auto snapshot = state.Current();
  CHECK(snapshot->status.jobs_size() == 3);
  CHECK(snapshot->traces.count(1) == 0);
  CHECK(snapshot->traces.count(2) == 1);
  CHECK(snapshot->traces.at(3)->points().size() == 1);
  CHECK(DashboardReply(*snapshot, "/api/jobs/1/trace").status == 404);
  CHECK(Body(DashboardReply(*snapshot, "/api/jobs/1/trace"))["error"] ==
        "job 1: its trace is no longer kept");
}

TEST_CASE("DashboardApi: the page and its files are served from the binary", "[dashboard]") {
  const DashboardSnapshot empty;
  const HttpReply page = DashboardReply(empty, "/");
  CHECK(page.status == 200);
  CHECK(page.content_type.starts_with("text/html"));
  CHECK(page.body.find("<script src=\"/dashboard.js\"></script>") != std::string::npos);
  CHECK(page.body == DashboardReply(empty, "/index.html").body);
  const HttpReply js = DashboardReply(empty, "/dashboard.js");
  CHECK(js.status == 200);
  CHECK(js.content_type.starts_with("text/javascript"));
  CHECK(js.body.find("/api/status") != std::string::npos);
  CHECK(DashboardReply(empty, "/dashboard.css").content_type.starts_with("text/css"));
}

TEST_CASE("DashboardApi: unknown pages, unknown jobs and malformed ids are 404 with a reason",
          "[dashboard]") {
  const auto snapshot = StatusOf({Lasso(1, proto::JOB_RUNNING, 1, 10, 5)});
  DashboardState state;
  state.OnStatus(snapshot);
  const auto s = state.Current();
  const std::pair<const char*, const char*> cases[] = {
      {"/nope", "no page /nope"},
      {"/api", "no page /api"},
      {"/api/jobs/2/trace", "no job 2"},
      {"/api/jobs/x1/trace", "no job 'x1': a job id is a number"},
      {"/api/jobs//trace", "no job '': a job id is a number"},
      {"/api/jobs/-1/trace", "no job '-1': a job id is a number"},
      {"/api/jobs/99999999999999999999999/trace",
       "no job '99999999999999999999999': a job id is a number"},
      {"/api/jobs/1/trace/x", "no page /api/jobs/1/trace/x"},
      {"/api/jobs/trace", "no page /api/jobs/trace"},
      {"/\xff\xfe", "no page /\xef\xbf\xbd\xef\xbf\xbd"},  // not UTF-8: replaced, still JSON
  };
  for (const auto& [path, error] : cases) {
    INFO(path);
    const HttpReply r = DashboardReply(*s, path);
    CHECK(r.status == 404);
    CHECK(r.content_type == "application/json");
    CHECK(Body(r)["error"] == error);
  }
}

TEST_CASE("DashboardApi: a job's trace names its engine, objective and work unit", "[dashboard]") {
  DashboardState state;
  state.OnStatus(StatusOf(
      {Lasso(1, proto::JOB_RUNNING, 1, 10, 5), Lda(proto::JOB_RUNNING, 1, -9, {0.5, 0.25})}));
  state.OnStatus(StatusOf(
      {Lasso(1, proto::JOB_RUNNING, 2, 20, 4), Lda(proto::JOB_RUNNING, 2, -8, {0.5, 0.5})}));
  const json lasso = Body(DashboardReply(*state.Current(), "/api/jobs/1/trace"));
  CHECK(lasso["job_id"] == 1);
  CHECK(lasso["engine"] == "dynamic");
  CHECK(lasso["objective_name"] == "objective");
  CHECK(lasso["work_unit"] == "updates");
  CHECK(lasso["updates"] == json({10, 20}));
  CHECK(lasso["objective"] == json({5.0, 4.0}));
  const json lda = Body(DashboardReply(*state.Current(), "/api/jobs/7/trace"));
  CHECK(lda["engine"] == "static");
  CHECK(lda["objective_name"] == "loglik_per_token");
  CHECK(lda["work_unit"] == "tokens");
  CHECK(lda["round"] == json({1, 2}));
  CHECK(lda["worker_seconds"] == json({json({0.5, 0.25}), json({0.5, 0.5})}));
}

TEST_CASE("Dashboard: /api/status is 'strads status --json', published by the coordinator's loop",
          "[dashboard]") {
  testing::ActorHarness h(kCoordinatorId, {"worker-0", "scheduler-0", "client"});
  const AppRegistry apps = BuiltinApps();
  CoordinatorOptions options;
  options.status_endpoint = "tcp://status:1";
  Coordinator coordinator(h.transport(), options, apps, h.log(), h.now());
  DashboardState state;
  coordinator.set_status_observer(&state);
  auto send = [&](const std::string& from, proto::Envelope e) {
    e.set_sender(from);
    coordinator.OnMessage(e, h.now());
  };
  for (auto [id, role] : {std::pair{"worker-0", proto::ROLE_WORKER},
                          std::pair{"scheduler-0", proto::ROLE_SCHEDULER}}) {
    auto e = MakeEnvelope(id);
    e.mutable_register_()->set_role(role);
    e.mutable_register_()->set_host("host");
    send(id, e);
  }
  h.Advance(1);
  auto submit = MakeEnvelope("client");
  submit.mutable_submit()->mutable_spec()->set_app("lasso");
  submit.mutable_submit()->mutable_spec()->set_data_path("/never/read.svm");
  EditAppParams<proto::LinearModelSpec>(*submit.mutable_submit()->mutable_spec(),
                                        [&](auto& p) { p.set_lambda(0.1); });
  auto* dynamic = submit.mutable_submit()->mutable_spec()->mutable_dynamic();
  dynamic->set_chord_size(4);
  dynamic->set_candidates(8);
  dynamic->set_tolerance(1e-6);
  dynamic->set_pipeline_depth(1);
  send("client", submit);
  h.Advance(1);
  coordinator.OnTick(h.now());

  auto request = MakeEnvelope("client");
  request.mutable_status_request();
  send("client", request);
  proto::StatusReply answered;
  for (const auto& e : h.Inbox("client")) {
    if (e.has_status_reply()) answered = e.status_reply();
  }
  REQUIRE(answered.jobs_size() == 1);
  const HttpReply r = DashboardReply(*state.Current(), "/api/status");
  CHECK(r.status == 200);
  CHECK(r.content_type == "application/json");
  CHECK(r.body == StatusJson(answered).dump());
  CHECK(Body(r)["members"].size() == 2);
  CHECK(Body(r)["jobs"][0]["state"] == "LOADING");  // started on the two members
}

TEST_CASE("HttpDashboard: serves on a loopback port until destroyed, a port in use is an error",
          "[dashboard]") {
  DashboardState state;
  state.OnStatus(StatusOf({Lasso(1, proto::JOB_RUNNING, 1, 10, 5)}));
  const Logger log = MakeLogger("test", "dashboard", "off");
  auto dashboard = HttpDashboard::Start(state, "127.0.0.1", 0, log);
  REQUIRE(dashboard.ok());
  const int port = (*dashboard)->port();
  CHECK(port > 0);
  {
    httplib::Client client("127.0.0.1", port);
    auto status = client.Get("/api/status");
    REQUIRE(status);
    CHECK(status->status == 200);
    CHECK(status->body == StatusJson(state.Current()->status).dump());
    auto missing = client.Get("/api/jobs/5/trace");
    REQUIRE(missing);
    CHECK(missing->status == 404);
    auto post = client.Post("/api/status", "", "text/plain");
    REQUIRE(post);
    CHECK(post->status >= 400);  // only GET
  }
  auto second = HttpDashboard::Start(state, "127.0.0.1", port, log);
  REQUIRE_FALSE(second.ok());
  CHECK_THAT(second.status().message(), Catch::Contains(std::to_string(port)));
  CHECK_FALSE(HttpDashboard::Start(state, "127.0.0.1", 70000, log).ok());
  dashboard = Status::Cancelled("stopped");  // destroys the server
  httplib::Client client("127.0.0.1", port);
  CHECK_FALSE(client.Get("/api/status"));
}

namespace {

// A TCP connection to 127.0.0.1:`port` (a socket the test drives by hand), or -1.
int ConnectTo(int port) {
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(sock);
    return -1;
  }
  return sock;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Seconds until the server closes `sock` (reading and dropping what it sends), at most `limit`.
double SecondsUntilClosed(int sock, std::chrono::steady_clock::time_point t0, double limit) {
  timeval tv{static_cast<time_t>(limit), 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buffer[256];
  while (::recv(sock, buffer, sizeof(buffer), 0) > 0) {
  }
  return SecondsSince(t0);
}

}  // namespace

TEST_CASE(
    "HttpDashboard: two slow clients do not starve /api/status, are cut off at the request "
    "timeout, and connections past the cap are answered 503 at once",
    "[dashboard][hostile]") {
  DashboardState state;
  state.OnStatus(StatusOf({Lasso(1, proto::JOB_RUNNING, 1, 10, 5)}));
  const Logger log = MakeLogger("test", "dashboard", "off");
  HttpDashboardOptions options;  // the defaults, but a 1 s timeout to keep the test short
  options.request_timeout_s = 1;
  auto dashboard = HttpDashboard::Start(state, "127.0.0.1", 0, log, options);
  REQUIRE(dashboard.ok());
  const int port = (*dashboard)->port();
  auto get_status = [&] {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(3, 0);
    return client.Get("/api/status");
  };

  // Issue 42: two sockets sending a header line every few seconds (here every 0.2 s).
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int> slow = {ConnectTo(port), ConnectTo(port)};
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    for (int sock : slow) (void)::send(sock, "GET /api/status HTTP/1.1\r\n", 26, MSG_NOSIGNAL);
    while (!stop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      for (int sock : slow) (void)::send(sock, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int k = 0; k < 3; ++k) {
    const auto asked = std::chrono::steady_clock::now();
    auto status = get_status();
    REQUIRE(status);
    CHECK(status->status == 200);
    CHECK(SecondsSince(asked) < 0.5);
  }
  for (int sock : slow) {
    REQUIRE(sock >= 0);
    const double closed = SecondsUntilClosed(sock, t0, 5);
    CHECK(closed >= 0.9);
    CHECK(closed < 2.5);  // the 1 s timeout for the whole request, though bytes kept coming
  }
  stop = true;
  trickle.join();
  for (int sock : slow) ::close(sock);

  // Idle connections fill the cap (6): the next is answered 503 at once, not queued.
  std::vector<int> idle;
  for (size_t k = 0; k < options.max_connections; ++k) idle.push_back(ConnectTo(port));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto asked = std::chrono::steady_clock::now();
  auto busy = get_status();
  REQUIRE(busy);
  CHECK(busy->status == 503);
  CHECK(SecondsSince(asked) < 0.5);
  // Once they are cut off, it answers again.
  for (int sock : idle) (void)SecondsUntilClosed(sock, asked, 5);
  for (int sock : idle) ::close(sock);
  auto again = get_status();
  REQUIRE(again);
  CHECK(again->status == 200);
  CHECK_FALSE(HttpDashboard::Start(state, "127.0.0.1", 0, log, {2, 2, 1}).ok());
}

}  // namespace strads
