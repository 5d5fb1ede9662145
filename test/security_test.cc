// Issue 10, "Security": the pure logic behind CURVE clusters. Key files and authorized_clients
// (common/curve_keys.h), who a handshake admits, which messages a connection may send
// (common/sender_check.h), when a daemon needs keys (common/daemon_security.h), data roots
// (common/data_roots.h), keygen (cli/keygen.h) and the CLI's key files (cli/client_keys.h). The
// multi-process cases (a keyed cluster refusing clients and fake members) are in
// test/cluster_test.sh (curve_*).
#include <sys/stat.h>

#include <atomic>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "temp_dir.h"

#include "apps/builtin_apps.h"
#include "cli/client_keys.h"
#include "cli/keygen.h"
#include "common/curve_keys.h"
#include "common/daemon_security.h"
#include "common/data_roots.h"
#include "common/sender_check.h"
#include "engine/job_spec.h"

namespace strads {
namespace {

// A valid key whose Z85 text holds '#' (value 84 in the last digit of the first group) and '='.
std::string KeyWithHash() {
  std::string binary(32, '\0');
  binary[3] = 84;
  binary[7] = 66;  // '=' is digit 66
  return Z85FromBinaryKey(binary);
}

CurveKeyPair MakePair() {
  auto pair = GenerateCurveKeyPair();
  REQUIRE(pair.ok());
  return *pair;
}

}  // namespace

TEST_CASE("a key file round-trips, keys may hold '#' and '=', comments are whole lines",
          "[security][keys]") {
  const std::string key = KeyWithHash();
  REQUIRE(key.substr(0, 5) == "0000#");
  REQUIRE(key.find('=') != std::string::npos);
  REQUIRE(IsZ85Key(key));
  const CurveKeyPair pair{MakePair().public_key, key};
  auto parsed = ParseKeyFile(FormatKeyFile(pair, "a # comment"), "k", /*need_secret=*/true);
  REQUIRE(parsed.ok());
  CHECK(parsed->public_key == pair.public_key);
  CHECK(parsed->secret_key == key);
}

TEST_CASE("key file errors name FILE:LINE", "[security][keys]") {
  const std::string pub = MakePair().public_key;
  auto bad =
      ParseKeyFile("# c\npublic-key = " + pub + "\nsecret-key = short\n", "cluster.key", true);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        "cluster.key:3: secret-key is not a CURVE key (40 Z85 characters)");
  auto field = ParseKeyFile("\n\nprivate = x\n", "k", false);
  CHECK(field.status().message() == "k:3: expected 'public-key = KEY' or 'secret-key = KEY'");
  auto pub_only = ParseKeyFile("public-key = " + pub + "\n", "cluster.pub", true);
  CHECK_THAT(pub_only.status().message(), Catch::StartsWith("cluster.pub: no secret-key line"));
  CHECK(ParseKeyFile("public-key = " + pub + "\n", "cluster.pub", false).ok());
}

TEST_CASE("a secret key file readable by others is refused, a missing one is NotFound",
          "[security][keys]") {
  testing::TempDir dir;
  const std::string path = dir.Write("open.key", FormatKeyFile(MakePair(), "x"));
  REQUIRE(chmod(path.c_str(), 0644) == 0);
  auto read = ReadKeyFile(path, true);
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(read.status().message(), Catch::Contains("permissions 0644 are too open"));
  REQUIRE(chmod(path.c_str(), 0600) == 0);
  CHECK(ReadKeyFile(path, true).ok());
  CHECK(ReadKeyFile(dir.Path("none.key"), true).status().code() == StatusCode::kNotFound);
}

TEST_CASE("authorized_clients: one key per line with a comment, every bad line reported",
          "[security][keys]") {
  const std::string a = MakePair().public_key, b = KeyWithHash();
  auto keys = AuthorizedKeys::Parse("# clients\n\n" + a + " alice@h 2026\n" + b + "\n", "ac");
  REQUIRE(keys.ok());
  CHECK(keys->size() == 2);
  CHECK(keys->Contains(a));
  CHECK(keys->Contains(b));
  CHECK_FALSE(keys->Contains(MakePair().public_key));
  auto bad = AuthorizedKeys::Parse(a + "\nnot-a-key alice\n\n" + a + "x\n", "ac");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        "ac:2: not a CURVE public key (40 Z85 characters, then an optional comment)\n"
        "ac:4: not a CURVE public key (40 Z85 characters, then an optional comment)");
}

TEST_CASE("the ZAP decision: the cluster key is a member, listed keys clients, others refused",
          "[security][zap]") {
  CurveTrust trust;
  trust.member_public_key = MakePair().public_key;
  const std::string client = MakePair().public_key;
  auto keys = AuthorizedKeys::Parse(client + "\n", "ac");
  REQUIRE(keys.ok());
  trust.clients = *keys;
  CHECK(trust.Authorize("CURVE", trust.member_public_key).user_id == kMemberUserId);
  const ZapVerdict c = trust.Authorize("CURVE", client);
  CHECK(c.admitted);
  CHECK(c.user_id == kClientUserId);
  CHECK_FALSE(trust.Authorize("CURVE", MakePair().public_key).admitted);
  const ZapVerdict null = trust.Authorize("NULL", "");
  CHECK_FALSE(null.admitted);
  CHECK_THAT(null.reason, Catch::Contains("requires CURVE"));
}

TEST_CASE("CheckSender: the sender must be the connection, a client key sends only requests",
          "[security][sender]") {
  proto::Envelope e;
  e.set_sender("worker@h:1");
  e.mutable_job_failed()->set_error("spoofed");
  CHECK(CheckSender(e, "worker@h:1", "").ok());
  CHECK(CheckSender(e, "worker@h:1", kMemberUserId).ok());
  const Status other = CheckSender(e, "worker@evil", kMemberUserId);
  CHECK(other.code() == StatusCode::kFailedPrecondition);
  CHECK_THAT(other.message(), Catch::Contains("declares sender 'worker@h:1'"));
  CHECK_FALSE(CheckSender(e, "worker@h:1", kClientUserId).ok());

  proto::Envelope reg;
  reg.set_sender("worker@evil");
  reg.mutable_register_()->set_role(proto::ROLE_WORKER);
  CHECK_THAT(CheckSender(reg, "worker@evil", kClientUserId).message(),
             Catch::Contains("needs the cluster key"));
  CHECK(CheckSender(reg, "worker@evil", kMemberUserId).ok());

  proto::Envelope submit;
  submit.set_sender("cli@h:2");
  submit.mutable_submit();
  CHECK(CheckSender(submit, "cli@h:2", kClientUserId).ok());
  submit.mutable_shutdown_cluster();
  CHECK(CheckSender(submit, "cli@h:2", kClientUserId).ok());
}

TEST_CASE("no keys only on loopback, unless --insecure", "[security][bind]") {
  CHECK(IsLoopbackHost("127.0.0.1"));
  CHECK(IsLoopbackHost("127.1.2.3"));
  CHECK(IsLoopbackHost("localhost"));
  CHECK(IsLoopbackHost("::1"));
  CHECK_FALSE(IsLoopbackHost("10.0.0.1"));
  CHECK_FALSE(IsLoopbackHost("*"));
  CHECK_FALSE(IsLoopbackHost("128.0.0.1"));

  SecurityOptions none;
  CHECK(CheckKeysRequired("127.0.0.1", none).ok());
  const Status star = CheckKeysRequired("*", none);
  CHECK(star.code() == StatusCode::kFailedPrecondition);
  CHECK_THAT(star.message(), Catch::Contains("refusing to bind every interface (*) without keys"));
  CHECK_THAT(CheckKeysRequired("10.0.0.1", none).message(),
             Catch::Contains("strads-cluster keygen"));
  SecurityOptions insecure;
  insecure.insecure = true;
  CHECK(CheckKeysRequired("10.0.0.1", insecure).ok());
  SecurityOptions keyed;
  keyed.cluster_key = "/k";
  CHECK(CheckKeysRequired("10.0.0.1", keyed).ok());
  SecurityOptions clients_only;
  clients_only.authorized_clients = "/ac";
  CHECK_THAT(CheckKeysRequired("127.0.0.1", clients_only).message(),
             Catch::Contains("needs --cluster-key"));
  CHECK(RootWarning(0).has_value());
  CHECK_FALSE(RootWarning(1000).has_value());
}

TEST_CASE("data roots: a path inside is read, one outside (or escaping with ..) is refused",
          "[security][data-root]") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Path("data"));
  const std::string inside = dir.Write("data/a.svm", "1 1:1\n");
  const std::string outside = dir.Write("secret", "x\n");
  for (auto resolve : {DataRoots::Resolve::kBest, DataRoots::Resolve::kWalk}) {
    auto roots = DataRoots::Make({dir.Path("data")}, resolve);
    REQUIRE(roots.ok());
    CHECK(roots->Check(inside).ok());
    auto opened = roots->Open(inside);
    REQUIRE(opened.ok());
    CHECK(testing::ReadFile(opened->read_path()) == "1 1:1\n");
    CHECK(opened->path() == inside);
    CHECK_THAT(roots->Check(outside).message(), Catch::Contains("is outside the data roots"));
    CHECK_FALSE(roots->Check(dir.Path("data/../secret")).ok());
    CHECK_FALSE(roots->Check("relative/a.svm").ok());
    CHECK(roots->Check(dir.Path("data/missing.svm")).code() == StatusCode::kNotFound);
    // Not a regular file: a directory, a FIFO (opened without blocking, then refused).
    CHECK_THAT(roots->Check(dir.Path("data/.")).message(), Catch::Contains("outside"));
    std::filesystem::create_directories(dir.Path("data/sub"));
    CHECK_THAT(roots->Check(dir.Path("data/sub")).message(), Catch::Contains("not a regular file"));
    if (!std::filesystem::exists(dir.Path("data/fifo"))) {
      REQUIRE(mkfifo(dir.Path("data/fifo").c_str(), 0600) == 0);
    }
    CHECK_THAT(roots->Check(dir.Path("data/fifo")).message(),
               Catch::Contains("not a regular file"));
  }
  CHECK(DataRoots().Check(outside).ok());
  CHECK_FALSE(DataRoots::Make({dir.Path("nope")}).ok());
  CHECK_THAT(DataRoots::Make({inside}).status().message(), Catch::Contains("not a directory"));
}

TEST_CASE("data roots: a path outside gets the same error whether or not the file exists",
          "[security][data-root]") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Path("data"));
  dir.Write("secret", "x\n");
  auto roots = DataRoots::Make({dir.Path("data")});
  REQUIRE(roots.ok());
  const Status exists = roots->Check(dir.Path("secret"));
  const Status missing = roots->Check(dir.Path("nothing"));
  CHECK(exists.code() == missing.code());
  const std::string root = dir.Path("data");
  CHECK(exists.message() == dir.Path("secret") + " is outside the data roots of this member (" +
                                root + "); see --data-root");
  CHECK(missing.message() == dir.Path("nothing") + " is outside the data roots of this member (" +
                                 root + "); see --data-root");
  // Through a link inside the root: refused without following it, so what it points at (there
  // or not) makes no difference either.
  std::filesystem::create_symlink(dir.Path("secret"), dir.Path("data/to-secret"));
  std::filesystem::create_symlink(dir.Path("nothing"), dir.Path("data/to-nothing"));
  const std::string a = roots->Check(dir.Path("data/to-secret")).message();
  const std::string b = roots->Check(dir.Path("data/to-nothing")).message();
  CHECK_THAT(a, Catch::Contains("no link is followed"));
  CHECK(a.substr(a.find(':')) == b.substr(b.find(':')));
}

TEST_CASE("data roots: a link inside a root is never followed, by openat2 or by the walk",
          "[security][data-root]") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Path("data/real"));
  dir.Write("data/real/a.svm", "1 1:1\n");
  std::filesystem::create_symlink(dir.Path("data/real/a.svm"), dir.Path("data/link.svm"));
  std::filesystem::create_symlink("real", dir.Path("data/dirlink"));
  for (auto resolve : {DataRoots::Resolve::kBest, DataRoots::Resolve::kWalk}) {
    auto roots = DataRoots::Make({dir.Path("data")}, resolve);
    REQUIRE(roots.ok());
    CHECK(roots->Check(dir.Path("data/real/a.svm")).ok());
    CHECK_THAT(roots->Check(dir.Path("data/link.svm")).message(),
               Catch::Contains("no link is followed"));
    CHECK_THAT(roots->Check(dir.Path("data/dirlink/a.svm")).message(),
               Catch::Contains("no link is followed"));
  }
}

TEST_CASE(
    "data roots: a link swapped in and out while files are opened never yields the outside file",
    "[security][data-root]") {
  // As in issue 42: root/race.svm is, in turn, the file inside (a hard link: a regular file) and
  // a symbolic link to a file outside, swapped by rename as fast as a thread can.
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Path("data"));
  const std::string inside = dir.Write("data/inside.svm", "inside\n");
  const std::string outside = dir.Write("outside.svm", "outside\n");
  const std::string race = dir.Path("data/race.svm");
  std::filesystem::create_hard_link(inside, race);
  std::atomic<bool> stop{false};
  std::atomic<int> swaps{0};
  std::thread swapper([&] {
    const std::string tmp = dir.Path("data/swap.tmp");
    while (!stop) {
      std::filesystem::remove(tmp);
      std::filesystem::create_symlink(outside, tmp);
      std::filesystem::rename(tmp, race);
      std::filesystem::remove(tmp);
      std::filesystem::create_hard_link(inside, tmp);
      std::filesystem::rename(tmp, race);
      ++swaps;
    }
  });
  int opened = 0, refused = 0;
  for (auto resolve : {DataRoots::Resolve::kBest, DataRoots::Resolve::kWalk}) {
    auto roots = DataRoots::Make({dir.Path("data")}, resolve);
    REQUIRE(roots.ok());
    for (int i = 0; i < 2000; ++i) {
      auto file = roots->Open(race);
      if (!file.ok()) {
        ++refused;
        CHECK_THAT(file.status().message(), Catch::Contains("no link is followed"));
        continue;
      }
      ++opened;
      // Read twice by the descriptor's path, as a member's loaders do: the same file each time.
      for (int k = 0; k < 2; ++k) REQUIRE(testing::ReadFile(file->read_path()) == "inside\n");
    }
  }
  stop = true;
  swapper.join();
  INFO(opened << " opened, " << refused << " refused, " << swaps << " swaps");
  CHECK(opened > 0);
  CHECK(refused > 0);
}

TEST_CASE("data roots: a job's errors name its paths, not the descriptors' it reads them by",
          "[security][data-root]") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Path("data"));
  const std::string a = dir.Write("data/a.svm", "x\n");
  auto roots = DataRoots::Make({dir.Path("data")});
  REQUIRE(roots.ok());
  OpenedFiles files;
  std::string read = files.Add(std::move(roots->Open(a)).value());
  CHECK(read.rfind("/proc/self/fd/", 0) == 0);
  CHECK(files.Unalias(read + ":3: bad label 'x'") == a + ":3: bad label 'x'");
}

TEST_CASE("data roots: every file a job reads is mapped to the path it reads it by",
          "[security][data-root]") {
  const AppRegistry apps = BuiltinApps();
  auto map = [](const std::string& p) { return "/proc/self/fd/" + p.substr(p.rfind('/') + 1); };
  auto parse = [&](const std::string& app, std::vector<std::string> args) {
    auto spec = ParseJobSpec(apps, app, args, {}, nullptr);
    INFO(spec.status().message());
    REQUIRE(spec.ok());
    MapJobSpecPaths(apps, *spec, map);
    return *spec;
  };
  const auto lasso = parse("lasso", {"--data", "/d/x.mtx", "--labels", "/d/y", "--lambda", "1"});
  CHECK(JobSpecPaths(apps, lasso) ==
        std::vector<std::string>{"/proc/self/fd/x.mtx", "/proc/self/fd/y"});
  CHECK(lasso.dynamic().data_format() == "mm");  // from the extension the new path lacks
  const auto lda = parse("lda", {"--data", "/d/docword", "--vocab", "/d/vocab", "--topics", "4"});
  CHECK(JobSpecPaths(apps, lda) ==
        std::vector<std::string>{"/proc/self/fd/docword", "/proc/self/fd/vocab"});
  const auto mf = parse("mf", {"--data", "/d/train", "--test", "/d/test", "--rank", "4"});
  CHECK(JobSpecPaths(apps, mf) ==
        std::vector<std::string>{"/proc/self/fd/train", "/proc/self/fd/test"});
}

TEST_CASE("keygen makes the cluster keys once and lists each client key once",
          "[security][keygen]") {
  testing::TempDir dir;
  const std::string keys = dir.Path("run/keys"), alice = dir.Path("alice"), bob = dir.Path("bob");
  REQUIRE(Keygen(keys, alice, "alice@h").ok());
  auto cluster = ReadKeyFile(keys + "/cluster.key", true);
  REQUIRE(cluster.ok());
  auto pub = ReadKeyFile(alice + "/cluster.pub", false);
  REQUIRE(pub.ok());
  CHECK(pub->public_key == cluster->public_key);
  CHECK(pub->secret_key.empty());
  auto alice_key = ReadKeyFile(alice + "/client.key", true);
  REQUIRE(alice_key.ok());

  REQUIRE(Keygen(keys, alice, "alice@h").ok());  // again: nothing new
  REQUIRE(Keygen(keys, bob, "bob@h").ok());
  CHECK(ReadKeyFile(keys + "/cluster.key", true)->secret_key == cluster->secret_key);
  CHECK(ReadKeyFile(alice + "/client.key", true)->public_key == alice_key->public_key);
  auto listed = AuthorizedKeys::Read(keys + "/authorized_clients");
  REQUIRE(listed.ok());
  CHECK(listed->size() == 2);
  CHECK(listed->Contains(alice_key->public_key));

  dir.Write("run/keys/authorized_clients", "garbage\n");
  auto damaged = Keygen(keys, alice, "alice@h");
  REQUIRE_FALSE(damaged.ok());
  CHECK_THAT(damaged.status().message(), Catch::Contains("authorized_clients:1: not a CURVE"));
}

TEST_CASE("the CLI's keys: none by default, or both files, errors naming the file",
          "[security][client-keys]") {
  testing::TempDir dir;
  CHECK(ClientConfigDir("/x", "/home/u") == "/x/strads");
  CHECK(ClientConfigDir(nullptr, "/home/u") == "/home/u/.config/strads");
  ClientKeyPaths paths{"", "", dir.Path("config")};
  auto none = LoadClientKeys(paths);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  REQUIRE(Keygen(dir.Path("keys"), dir.Path("config"), "c").ok());
  auto found = LoadClientKeys(paths);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->server_public_key ==
        ReadKeyFile(dir.Path("keys/cluster.pub"), false)->public_key);

  ClientKeyPaths no_cluster{dir.Path("config/client.key"), dir.Path("nope.pub"), ""};
  auto missing = LoadClientKeys(no_cluster);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Catch::Contains("nope.pub: no such key file"));
  CHECK_THAT(missing.status().message(), Catch::Contains("the cluster's public key"));
}

}  // namespace strads
