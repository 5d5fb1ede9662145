// Unit tests of the launcher's logic (cli/hostfile, launcher_options, cluster_plan,
// registration_waiter, shell_words, local_host): no sockets, no processes.
#include <catch2/catch.hpp>

#include "temp_dir.h"

#include "cli/cluster_plan.h"
#include "cli/hostfile.h"
#include "cli/launcher_options.h"
#include "cli/local_host.h"
#include "cli/registration_waiter.h"
#include "cli/shell_words.h"
#include "common/counted_noun.h"

using namespace strads;

namespace {

Hostfile Parse(const std::string& text) {
  auto hf = ParseHostfile(text, "hosts.txt");
  REQUIRE(hf.ok());
  return *hf;
}

std::string Errors(const std::string& text) {
  auto hf = ParseHostfile(text, "hosts.txt");
  REQUIRE_FALSE(hf.ok());
  return hf.status().message();
}

LauncherOptions Options(std::vector<std::string> args) {
  auto o = ParseLauncherOptions(args, "/tmp/default-run");
  REQUIRE(o.ok());
  return *o;
}

std::string OptionError(std::vector<std::string> args) {
  auto o = ParseLauncherOptions(args, "/tmp/default-run");
  REQUIRE_FALSE(o.ok());
  return o.status().message();
}

proto::StatusReply Listing(const std::vector<std::pair<proto::Role, std::string>>& members) {
  proto::StatusReply r;
  for (const auto& [role, host] : members) {
    auto* m = r.add_members();
    m->set_role(role);
    m->set_host(host);
  }
  return r;
}

}  // namespace

TEST_CASE("a hostfile lists one host per daemon, comments and CRs ignored", "[hostfile]") {
  const auto hf = Parse(
      "# cluster\n\n127.0.0.1 coordinator scheduler=2  # front\r\n"
      "node1\tworker=3 scheduler\nnode2 worker");
  CHECK(hf.coordinator == "127.0.0.1");
  CHECK(hf.schedulers == std::vector<std::string>{"127.0.0.1", "127.0.0.1", "node1"});
  CHECK(hf.workers == std::vector<std::string>{"node1", "node1", "node1", "node2"});
}

TEST_CASE("hostfile errors name the file and line, all of them at once", "[hostfile]") {
  const auto e = Errors(
      "127.0.0.1 coordinator scheduler\n127.0.0.1 wroker=2 worker=0\nnode1\n"
      "-oProxyCommand=x worker\nworker node2\nnode3 coordinator=2\n");
  CHECK_THAT(e, Catch::Contains("hosts.txt:2: unknown role 'wroker'"));
  CHECK_THAT(e, Catch::Contains("hosts.txt:2: bad count '0' for role 'worker'"));
  CHECK_THAT(e, Catch::Contains("hosts.txt:3: host 'node1' has no roles"));
  CHECK_THAT(e, Catch::Contains("hosts.txt:4: bad host name '-oProxyCommand=x'"));
  CHECK_THAT(e, Catch::Contains("hosts.txt:5: line starts with role 'worker'"));
  CHECK_THAT(e, Catch::Contains("hosts.txt:6: coordinator count must be 1, got 2"));
  CHECK_THAT(e, Catch::Contains("hosts.txt:6: second coordinator (the first is on line 1)"));
  CHECK_THAT(e, Catch::Contains("hosts.txt: no worker"));
}

TEST_CASE("bad counts are refused whatever their form", "[hostfile]") {
  for (std::string bad : {"two", "0", "-1", "1.5", "", "10000", "1=2"}) {
    CHECK_THAT(Errors("127.0.0.1 coordinator scheduler\n127.0.0.1 worker=" + bad),
               Catch::Contains("hosts.txt:2: bad count '" + bad + "' for role 'worker'"));
  }
  CHECK(Parse("127.0.0.1 coordinator scheduler worker=0002").workers.size() == 2);
}

TEST_CASE("a hostfile needs one coordinator, a scheduler and a worker", "[hostfile]") {
  const auto e = Errors("# nothing\n");
  CHECK_THAT(e, Catch::Contains("hosts.txt: no coordinator"));
  CHECK_THAT(e, Catch::Contains("hosts.txt: no scheduler"));
  CHECK_THAT(e, Catch::Contains("hosts.txt: no worker"));
  CHECK(ReadHostfile("/nonexistent/hosts").status().message() ==
        "/nonexistent/hosts: no such hostfile");
}

TEST_CASE("launcher options: values, defaults and the errors users see", "[options]") {
  const auto o = Options({"start", "--hostfile=h", "--port", "0", "--run-dir", "/tmp/x/../r",
                          "--dry-run", "--timeout", "007"});
  CHECK(o.command == "start");
  CHECK(o.hostfile == "h");
  CHECK(o.port == 0);
  CHECK(o.run_dir == "/tmp/r");
  CHECK(o.dry_run);
  CHECK(o.timeout_s == 7);
  CHECK(Options({"stop"}).run_dir == "/tmp/default-run");
  CHECK(Options({"--help", "--bogus"}).help);
  CHECK(OptionError({"start", "--bogus"}) == "unknown option '--bogus'");
  CHECK(OptionError({"reboot"}) ==
        "unknown command 'reboot' (expected start, stop, status, restart or keygen)");
  CHECK(OptionError({"--dry-run"}) ==
        "no command given (expected start, stop, status, restart or keygen)");
  CHECK(OptionError({"restart"}) == "restart needs a role (restart coordinator)");
  CHECK_THAT(OptionError({"restart", "worker"}), Catch::StartsWith("cannot restart 'worker'"));
  CHECK(OptionError({"restart", "coordinator"}) == "restart needs --hostfile FILE");
  CHECK_THAT(OptionError({"stop", "--coordinator-ports", "7700"}),
             Catch::StartsWith("bad --coordinator-ports '7700'"));
  CHECK_THAT(OptionError({"stop", "--coordinator-ports", "7700,0"}),
             Catch::StartsWith("bad --coordinator-ports"));
  CHECK(OptionError({"start"}) == "start needs --hostfile FILE");
  CHECK(OptionError({"stop", "--timeout"}) == "option --timeout needs a value");
  CHECK_THAT(OptionError({"stop", "--port", "65535"}), Catch::StartsWith("bad --port '65535'"));
  CHECK_THAT(OptionError({"stop", "--timeout", "0"}), Catch::StartsWith("bad --timeout '0'"));
  CHECK_THAT(OptionError({"stop", "--log-level", "loud"}), Catch::StartsWith("bad --log-level"));
  CHECK(OptionError({"stop", "--bin-dir="}) == "--bin-dir needs a non-empty value");
  CHECK(OptionError({"stop", "start"}) ==
        "unexpected argument 'start' (command is already 'stop')");
}

TEST_CASE("shell quoting leaves safe words alone and survives quotes", "[shell]") {
  CHECK(ShellQuote("tcp://127.0.0.1:7700") == "tcp://127.0.0.1:7700");
  CHECK(ShellQuote("") == "''");
  CHECK(ShellQuote("a b") == "'a b'");
  CHECK(ShellQuote("it's") == "'it'\\''s'");
  CHECK(ShellJoin({"echo", "$HOME"}) == "echo '$HOME'");
}

TEST_CASE("local hosts: loopback, the given names, case and brackets ignored", "[local]") {
  const LocalHost local({"Node0", "10.0.0.5", "fe80::1"});
  CHECK(local.Contains("127.0.0.1"));
  CHECK(local.Contains("LOCALHOST"));
  CHECK(local.Contains("[::1]"));
  CHECK(local.Contains("node0"));
  CHECK(local.Contains("10.0.0.5"));
  CHECK(local.Contains("[FE80::1]"));
  CHECK_FALSE(local.Contains("node1"));
  CHECK_FALSE(local.Contains("10.0.0.50"));
}

TEST_CASE("the start plan: coordinator flags, one member per hostfile entry", "[plan]") {
  const auto hf = Parse("127.0.0.1 coordinator scheduler=2 worker\nnode1 worker=2\n");
  auto o = Options({"start", "--hostfile", "h", "--run-dir", "/r", "--port", "9100"});
  o.bin_dir = "/b";
  const LocalHost local({});
  const ClusterPlan plan(hf, o, local, "/work", /*has_setsid=*/true);
  const auto& c = plan.coordinator();
  CHECK(c.name == "coordinator-127.0.0.1-0");
  CHECK(c.local);
  CHECK(ShellJoin(c.command) ==
        "setsid nohup /b/strads-coordinator --port 9100 --status-port 9101 --expect-schedulers 2 "
        "--expect-workers 3 --work-dir /r/coordinator --endpoint-file /r/coordinator.endpoint "
        "--advertise-host 127.0.0.1 --log-level info --bind-host 127.0.0.1");
  const auto members = plan.Members("tcp://h:1");
  REQUIRE(members.size() == 5);
  CHECK(members[1].name == "scheduler-127.0.0.1-1");
  CHECK(members[1].pid_file == "/r/pids/scheduler-127.0.0.1-1.pid");
  CHECK(members[4].name == "worker-node1-1");
  CHECK_FALSE(members[4].local);
  CHECK(members[4].command[0] == "ssh");
  CHECK(members[4].command[6] == "node1");
  CHECK(members[4].command[7] ==
        "cd /work 2>/dev/null || cd || exit 1; mkdir -p /r/logs || exit 1; b=/b/strads-worker; "
        "[ -x \"$b\" ] || b=strads-worker; nohup \"$b\" --coordinator tcp://h:1 --advertise-host "
        "node1 --log-level info --bind-host node1 --cpu 1 > /r/logs/worker-node1-1.log 2>&1 < "
        "/dev/null & echo $!");
  // Workers sharing a host get a CPU each (--cpu: their index there); a lone worker is left free.
  CHECK_THAT(ShellJoin(members[3].argv), Catch::EndsWith("--bind-host node1 --cpu 0"));
  CHECK_THAT(ShellJoin(members[2].argv), !Catch::Contains("--cpu"));
  CHECK_THAT(ShellJoin(members[0].argv), !Catch::Contains("--cpu"));
  CHECK(plan.NeededPrograms() ==
        std::vector<std::string>{"strads-coordinator", "strads-scheduler", "strads-worker", "ssh"});
  const ExpectedMembers expected = {{{proto::ROLE_SCHEDULER, "127.0.0.1"}, 2},
                                    {{proto::ROLE_WORKER, "127.0.0.1"}, 1},
                                    {{proto::ROLE_WORKER, "node1"}, 2}};
  CHECK(plan.Expected() == expected);
}

TEST_CASE("launcher: --bind none leaves every worker to the OS, --bind takes cores or none",
          "[plan]") {
  const auto hf = Parse("127.0.0.1 coordinator scheduler worker=3\n");
  auto o = Options({"start", "--hostfile", "h", "--run-dir", "/r", "--bind", "none"});
  CHECK_FALSE(o.bind_workers);
  const LocalHost local({});
  const ClusterPlan plan(hf, o, local, "/work", /*has_setsid=*/true);
  for (const auto& m : plan.Members("tcp://h:1")) {
    CHECK_THAT(ShellJoin(m.argv), !Catch::Contains("--cpu"));
  }
  o = Options({"start", "--hostfile", "h", "--run-dir", "/r", "--bind=cores"});
  CHECK(o.bind_workers);
  const ClusterPlan bound(hf, o, local, "/work", /*has_setsid=*/true);
  const auto members = bound.Members("tcp://h:1");
  REQUIRE(members.size() == 4);
  CHECK_THAT(ShellJoin(members[3].argv), Catch::EndsWith("--cpu 2"));
  auto bad = ParseLauncherOptions({"start", "--hostfile", "h", "--bind", "numa"}, "/r");
  REQUIRE(!bad.ok());
  CHECK(bad.status().message() == "bad --bind 'numa' (expected cores or none)");
}

TEST_CASE("with keys, data roots and --insecure the plan passes them to the daemons",
          "[plan][security]") {
  const auto hf = Parse("10.0.0.1 coordinator scheduler worker\n");
  auto o = Options(
      {"start", "--hostfile", "h", "--run-dir", "/r", "--data-root", "/data", "--insecure"});
  o.bin_dir = "/b";
  o.cluster_key = KeysDir(o) + "/cluster.key";
  const LocalHost local({});
  const ClusterPlan plan(hf, o, local, "/work", /*has_setsid=*/false);
  const std::string coordinator = ShellJoin(plan.coordinator().argv);
  CHECK_THAT(coordinator, Catch::Contains("--bind-host 10.0.0.1 --cluster-key /r/keys/cluster.key "
                                          "--authorized-clients /r/keys/authorized_clients "
                                          "--insecure"));
  CHECK_THAT(coordinator, !Catch::Contains("--data-root"));
  const std::string worker = ShellJoin(plan.Members("tcp://h:1").at(0).argv);
  CHECK_THAT(worker, Catch::EndsWith("--bind-host 10.0.0.1 --cluster-key /r/keys/cluster.key "
                                     "--insecure --data-root /data"));
  CHECK_THAT(worker, !Catch::Contains("authorized"));
  CHECK_THAT(plan.DryRun("/b/strads"),
             Catch::Contains("/b/strads --client-key /r/keys/cluster.key --cluster-key "
                             "/r/keys/cluster.key --coordinator"));
}

TEST_CASE("the dry run counts schedulers and workers with nouns that agree", "[plan]") {
  const LocalHost local({});
  const auto o = Options({"start", "--hostfile", "h", "--run-dir", "/r"});
  const ClusterPlan one(Parse("127.0.0.1 coordinator scheduler worker\n"), o, local, "/w", true);
  CHECK_THAT(one.DryRun("strads"), Catch::Contains("1 coordinator, 1 scheduler, 1 worker;") &&
                                       Catch::Contains("lists 1 scheduler and 1 worker,"));
  const ClusterPlan two(Parse("127.0.0.1 coordinator scheduler=2 worker=3\n"), o, local, "/w",
                        true);
  CHECK_THAT(two.DryRun("strads"), Catch::Contains("1 coordinator, 2 schedulers, 3 workers;"));
  CHECK(CountedNoun(0, "job") == "0 jobs");
}

TEST_CASE("a restart pins the coordinator to the ports recorded in the endpoint file", "[plan]") {
  testing::TempDir dir;
  const std::string recorded =
      dir.Write("coordinator.endpoint", "tcp://127.0.0.1:41234\ntcp://127.0.0.1:41999\n");
  const auto ports = RecordedPorts(recorded);
  REQUIRE(ports.ok());
  CHECK(ports.value() == std::make_pair(41234, 41999));
  CHECK(RecordedPorts(dir.Path("none")).status().code() == StatusCode::kNotFound);
  CHECK_THAT(RecordedPorts(dir.Write("half", "tcp://127.0.0.1:41234\n")).status().message(),
             Catch::Contains("expected two lines tcp://HOST:PORT"));
  CHECK_FALSE(RecordedPorts(dir.Write("bad", "tcp://h:1\ntcp://h:99999\n")).ok());

  auto o = Options({"restart", "coordinator", "--hostfile", "h", "--run-dir", "/r", "--port", "0",
                    "--coordinator-ports", "41234,41999"});
  CHECK(o.role == "coordinator");
  const LocalHost local({});
  const ClusterPlan plan(Parse("localhost coordinator scheduler worker"), o, local, "/", false);
  CHECK_THAT(ShellJoin(plan.coordinator().command),
             Catch::StartsWith("nohup strads-coordinator --port 41234 --status-port 41999 "));
}

TEST_CASE("port 0 asks for free ports for both coordinator sockets", "[plan]") {
  auto o = Options({"start", "--hostfile", "h", "--run-dir", "/r", "--port", "0"});
  const LocalHost local({});
  const ClusterPlan plan(Parse("localhost coordinator scheduler worker"), o, local, "/", false);
  CHECK_THAT(ShellJoin(plan.coordinator().command),
             Catch::StartsWith("nohup strads-coordinator --port 0 --status-port 0 "));
  CHECK_THAT(plan.DryRun("strads"), Catch::Contains("cluster wait start --hostfile h"));
}

TEST_CASE("launcher: --http-port and --http-address reach the coordinator, no dashboard by default",
          "[plan]") {
  const LocalHost local({});
  const Hostfile hosts = Parse("localhost coordinator scheduler worker");
  auto plain = Options({"start", "--hostfile", "h", "--run-dir", "/r"});
  CHECK(plain.http_port == -1);
  CHECK_THAT(ShellJoin(ClusterPlan(hosts, plain, local, "/", false).coordinator().argv),
             !Catch::Contains("--http"));
  auto o = Options({"start", "--hostfile", "h", "--run-dir", "/r", "--http-port=0",
                    "--http-address", "0.0.0.0"});
  CHECK_THAT(ShellJoin(ClusterPlan(hosts, o, local, "/", false).coordinator().argv),
             Catch::EndsWith(" --http-port 0 --http-address 0.0.0.0"));
  CHECK(Options({"stop", "--http-port", "65535"}).http_port == 65535);
  CHECK_THAT(OptionError({"stop", "--http-port", "65536"}),
             Catch::StartsWith("bad --http-port '65536'"));
  CHECK_THAT(OptionError({"stop", "--http-port", "-1"}), Catch::StartsWith("bad --http-port '-1'"));
  CHECK(OptionError({"stop", "--http-port"}) == "option --http-port needs a value");
}

namespace {

// A clock that advances only when the waiter pauses.
struct FakeTime {
  RegistrationWaiter::Clock::time_point now{};
  int pauses = 0;
  RegistrationWaiter Waiter(ExpectedMembers expected) {
    return RegistrationWaiter(
        std::move(expected), [this] { return now; },
        [this](std::chrono::milliseconds d) {
          now += d;
          ++pauses;
        });
  }
};

const ExpectedMembers kTwoWorkers = {{{proto::ROLE_SCHEDULER, "a"}, 1},
                                     {{proto::ROLE_WORKER, "b"}, 2}};

auto NoneExited() {
  return []() -> std::optional<std::string> { return std::nullopt; };
}

}  // namespace

TEST_CASE("registration: done as soon as every member is listed from its host", "[waiter]") {
  FakeTime t;
  int asked = 0;
  auto ask = [&]() -> Result<proto::StatusReply> {
    ++asked;
    if (asked < 3) return Listing({{proto::ROLE_SCHEDULER, "a"}, {proto::ROLE_WORKER, "b"}});
    return Listing(
        {{proto::ROLE_SCHEDULER, "a"}, {proto::ROLE_WORKER, "b"}, {proto::ROLE_WORKER, "b"}});
  };
  const auto out = t.Waiter(kTwoWorkers).Wait(ask, NoneExited(), std::chrono::seconds(10));
  CHECK(out.status.ok());
  CHECK(asked == 3);
  CHECK(t.pauses == 2);
}

TEST_CASE("registration: a member from the wrong host does not count", "[waiter]") {
  FakeTime t;
  auto ask = []() -> Result<proto::StatusReply> {
    return Listing(
        {{proto::ROLE_SCHEDULER, "a"}, {proto::ROLE_WORKER, "b"}, {proto::ROLE_WORKER, "c"}});
  };
  const auto out = t.Waiter(kTwoWorkers).Wait(ask, NoneExited(), std::chrono::seconds(2));
  CHECK(out.status.code() == StatusCode::kDeadlineExceeded);
  CHECK(out.status.message() ==
        "after 2 s the coordinator lists 1/1 scheduler and 2/2 workers; not registered: 1 of 2 "
        "workers on b");
  CHECK(out.missing == std::vector<std::string>{"worker"});
  CHECK(t.now - RegistrationWaiter::Clock::time_point{} >= std::chrono::seconds(2));
}

TEST_CASE("registration: an exited daemon ends the wait at once, named", "[waiter]") {
  FakeTime t;
  auto ask = []() -> Result<proto::StatusReply> { return Listing({}); };
  auto exited = []() -> std::optional<std::string> { return "worker on b (pid 7)"; };
  const auto out = t.Waiter(kTwoWorkers).Wait(ask, exited, std::chrono::seconds(30));
  CHECK(out.status.code() == StatusCode::kFailedPrecondition);
  CHECK(out.status.message() == "worker on b (pid 7) exited");
  CHECK(out.missing == std::vector<std::string>{"scheduler", "worker"});
  CHECK(t.pauses == 0);
}

TEST_CASE("registration: a coordinator that never answers is a clear timeout", "[waiter]") {
  FakeTime t;
  auto ask = []() -> Result<proto::StatusReply> {
    return Status::Unavailable("coordinator unreachable: no answer within 1000 ms");
  };
  const auto out = t.Waiter(kTwoWorkers).Wait(ask, NoneExited(), std::chrono::seconds(1));
  CHECK(out.status.message() ==
        "after 1 s the coordinator did not answer: coordinator unreachable: no answer within "
        "1000 ms");
}
