// In-process cluster tests of the static engine (lda, mf): the coordinator, schedulers and workers
// as threads over the in-process hub — the same classes as the daemons. Oracles:
//  - mf ccd through the engine equals the sequential CCD++ reference to 1e-9 relative;
//  - the distributed engine computes exactly what RunStaticLocally (the schedule in one process)
//    computes: identical model files for the same seed, P and S;
// and the faults a user can cause or suffer: bad input, a dying worker, cancel.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apps/builtin_apps.h"
#include "apps/lda.pb.h"
#include "apps/mf.pb.h"
#include "apps/mf/array_mtx.h"
#include "apps/mf/mf_reference.h"
#include "apps/mf/ratings.h"
#include "cli/client.h"
#include "cli/embedded_cluster.h"
#include "common/protocol.h"
#include "engine/job_spec.h"
#include "engine/static_driver.h"
#include "test/app_params_edit.h"
#include "test/cluster_test_util.h"
#include "test/temp_dir.h"
#include "test/wait_until.h"

namespace strads {
namespace {

using testing::EditAppParams;
using testing::FastOptions;
using testing::SubmitJob;
using testing::TempDir;
using testing::WaitForJob;

// A low-rank-plus-noise ratings matrix with power-law row and column popularity.
std::string RatingsText(uint32_t rows, uint32_t cols, uint32_t per_row, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::pair<uint32_t, uint32_t>> cells;
  for (uint32_t i = 0; i < rows; ++i) {
    std::set<uint32_t> seen = {i % cols};  // every row and column non-empty
    while (seen.size() < per_row) seen.insert(uint32_t(cols * std::pow(u(rng), 2.0)) % cols);
    for (uint32_t j : seen) cells.emplace_back(i, j);
  }
  for (uint32_t j = 0; j < cols; ++j) cells.emplace_back(j % rows, j);
  std::sort(cells.begin(), cells.end());
  cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  std::string out = "%%MatrixMarket matrix coordinate real general\n";
  out += fmt::format("{} {} {}\n", rows, cols, cells.size());
  for (auto [i, j] : cells) {
    const double v = 1 + 4 * std::fmod(0.37 * i + 0.61 * j + 0.1 * u(rng), 1.0);
    out += fmt::format("{} {} {:.4f}\n", i + 1, j + 1, v);
  }
  return out;
}

// A bag-of-words corpus from 4 disjoint planted topics of 10 words each.
std::string DocwordText(uint32_t docs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> counts;
  for (uint32_t d = 0; d < docs; ++d) {
    const uint32_t topic = d % 4;
    for (int t = 0; t < 30; ++t) counts[{d, topic * 10 + uint32_t(rng() % 10)}]++;
  }
  std::string out = fmt::format("{}\n40\n{}\n", docs, counts.size());
  for (auto [key, c] : counts) out += fmt::format("{} {} {}\n", key.first + 1, key.second + 1, c);
  return out;
}

proto::JobSpec MfSpec(const std::string& data, const std::string& algorithm) {
  proto::JobSpec s;
  s.set_app("mf");
  s.set_data_path(data);
  EditAppParams<proto::MfSpec>(s, [&](auto& p) {
    p.set_algorithm(algorithm);
    p.set_rank(4);
    p.set_lambda(0.05);
  });
  s.mutable_static_engine()->set_iterations(3);
  s.set_seed(5);
  EditAppParams<proto::MfSpec>(s, [&](auto& p) {
    p.set_learning_rate(0.02);
    p.set_decay(0.1);
    p.set_inner_iterations(1);
  });
  s.mutable_static_engine()->set_balance("work");
  return s;
}

proto::JobSpec LdaSpec(const std::string& data) {
  proto::JobSpec s;
  s.set_app("lda");
  s.set_data_path(data);
  EditAppParams<proto::LdaSpec>(s, [&](auto& p) {
    p.set_topics(4);
    p.set_alpha(0.1);
    p.set_beta(0.01);
  });
  s.mutable_static_engine()->set_iterations(5);
  s.set_seed(9);
  s.mutable_static_engine()->set_balance("work");
  return s;
}

struct Outcome {
  proto::JobInfo info;
  std::map<std::string, std::string> files;
};

// Submits `spec` to an embedded cluster of S schedulers and P workers and waits for the end.
Outcome RunOnCluster(const proto::JobSpec& spec, uint32_t schedulers, uint32_t workers,
                     std::function<void(EmbeddedCluster&, Client&, uint64_t)> while_running = {},
                     FaultScript faults = {}) {
  EmbeddedCluster cluster(schedulers, workers, FastOptions(), "warn", std::move(faults));
  InProcTransport transport(cluster.hub(), "test-client");
  Client c(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
  const uint64_t id = SubmitJob(c, "test-client", spec);
  if (while_running) while_running(cluster, c, id);
  Outcome out{WaitForJob(c, id), {}};
  if (out.info.state() == proto::JOB_SUCCEEDED) {
    TempDir dir;
    REQUIRE(c.FetchResults(id, dir.Path("out")).ok());
    for (const auto& entry : std::filesystem::directory_iterator(dir.Path("out"))) {
      out.files[entry.path().filename().string()] = testing::ReadFile(entry.path());
    }
  }
  return out;
}

// The CCD++ reference on `data` with MfSpec's parameters.
mf::MfResult CcdReference(const std::string& data, uint32_t iterations) {
  auto ratings = mf::LoadRatings(data);
  REQUIRE(ratings.ok());
  mf::MfOptions o;
  o.rank = 4;
  o.lambda = 0.05;
  o.iterations = iterations;
  o.seed = 5;
  auto reference = mf::SolveCcdReference(*ratings, o);
  REQUIRE(reference.ok());
  return std::move(reference).value();
}

double MaxRelDiff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

// The job's W.mtx and H.mtx equal the reference's factors to 1e-9 (relative, max entry).
void CheckFactorsEqual(const Outcome& run, TempDir& dir, const mf::MfResult& reference) {
  auto W = mf::ReadArrayMtx(dir.Write("W.mtx", run.files.at("W.mtx")));
  auto H = mf::ReadArrayMtx(dir.Write("H.mtx", run.files.at("H.mtx")));
  REQUIRE(W.ok());
  REQUIRE(H.ok());
  CHECK(MaxRelDiff(*W, reference.model.W) < 1e-9);
  CHECK(MaxRelDiff(*H, reference.model.H) < 1e-9);
}

// One recovery allowed, no wait for a replacement, a checkpoint after every iteration.
void RecoverFromEveryIteration(proto::JobSpec& spec) {
  spec.mutable_recovery()->set_max_recoveries(1);
  spec.mutable_recovery()->set_recovery_wait_s(0);
  spec.mutable_recovery()->set_checkpoint_every_s(1e-9);
}

}  // namespace

TEST_CASE("mf ccd through the engine equals the CCD++ reference to 1e-9", "[static][cluster]") {
  TempDir dir;
  const auto data = dir.Write("r.mtx", RatingsText(120, 80, 8, 1));
  const auto reference = CcdReference(data, 3);
  for (auto [schedulers, workers] : {std::pair{1u, 1u}, std::pair{2u, 3u}}) {
    CAPTURE(schedulers, workers);
    auto run = RunOnCluster(MfSpec(data, "ccd"), schedulers, workers);
    REQUIRE(run.info.state() == proto::JOB_SUCCEEDED);
    CheckFactorsEqual(run, dir, reference);
    const auto summary = nlohmann::json::parse(run.files.at("summary.json"));
    CHECK(summary["objective"].get<double>() == Approx(reference.objective).epsilon(1e-9));
    CHECK(run.info.iteration() == 3);
    // The trace: iteration 0 (initial) and one row per iteration.
    CHECK(std::count(run.files.at("trace.csv").begin(), run.files.at("trace.csv").end(), '\n') ==
          5);
    CHECK(
        run.files.at("trace.csv").rfind("seconds,iteration,objective,train_rmse,test_rmse\n", 0) ==
        0);
  }
}

TEST_CASE("the distributed engine computes exactly what the one-process schedule computes",
          "[static][cluster]") {
  TempDir dir;
  const auto ratings = dir.Write("r.mtx", RatingsText(150, 90, 6, 2));
  const auto corpus = dir.Write("docword.txt", DocwordText(60, 3));
  struct Case {
    proto::JobSpec spec;
    std::vector<std::string> files;
  };
  std::vector<Case> cases = {{MfSpec(ratings, "sgd"), {"W.mtx", "H.mtx"}},
                             {LdaSpec(corpus), {"doc_topic.mtx", "word_topic.mtx", "topics.txt"}}};
  const AppRegistry apps = BuiltinApps();
  for (auto& c : cases) {
    c.spec.mutable_static_engine()->set_blocks_per_worker(2);
    const uint32_t schedulers = 2, workers = 2;
    CAPTURE(c.spec.app());
    auto app = apps.FindStatic(c.spec.app());
    REQUIRE(app.ok());
    StaticLocalOptions options;
    options.workers = workers;
    options.schedulers = schedulers;
    auto local = RunStaticLocally(**app, c.spec, options);
    REQUIRE(local.ok());
    auto run = RunOnCluster(c.spec, schedulers, workers);
    REQUIRE(run.info.state() == proto::JOB_SUCCEEDED);
    for (const auto& name : c.files) {
      CAPTURE(name);
      auto it = std::find_if(local->files.begin(), local->files.end(),
                             [&](const proto::ResultFile& f) { return f.name() == name; });
      REQUIRE(it != local->files.end());
      CHECK(run.files.at(name) == it->content());
    }
    // Per (sub-round, worker) compute times are recorded: 2 x 2 blocks = 4 sub-rounds per pass.
    const std::string& sub = run.files.at("subrounds.csv");
    CHECK(sub.rfind("iteration,pass,sub_round,worker,block,seconds,work\n", 0) == 0);
    CHECK(std::count(sub.begin(), sub.end(), '\n') > 4 * 2 * 5);
  }
}

TEST_CASE("lda on the engine: counts add up and the planted topics come out", "[static][cluster]") {
  TempDir dir;
  const auto corpus = dir.Write("docword.txt", DocwordText(80, 4));
  auto spec = LdaSpec(corpus);
  spec.mutable_static_engine()->set_iterations(30);
  spec.mutable_static_engine()->set_eval_every(10);
  auto run = RunOnCluster(spec, 1, 2);
  REQUIRE(run.info.state() == proto::JOB_SUCCEEDED);
  CHECK(run.info.objective_name() == "loglik_per_token");
  // Status carries each worker's compute seconds of the last sub-round.
  REQUIRE(run.info.worker_seconds_size() == 2);
  CHECK(run.info.worker_seconds(0) > 0);
  CHECK(run.info.imbalance() >= 1.0);
  // word_topic.mtx: every token counted once; each planted topic's words in one topic.
  std::istringstream in(run.files.at("word_topic.mtx"));
  std::string line;
  std::getline(in, line);
  REQUIRE(line.rfind("%%MatrixMarket matrix coordinate integer general", 0) == 0);
  while (in.peek() == '%') std::getline(in, line);
  uint64_t rows, cols, nnz;
  in >> rows >> cols >> nnz;
  CHECK(rows == 40);
  CHECK(cols == 4);
  std::map<uint32_t, std::map<uint32_t, int64_t>> by_planted;  // planted -> topic -> count
  int64_t total = 0;
  for (uint64_t k = 0; k < nnz; ++k) {
    uint32_t w, t;
    int64_t c;
    in >> w >> t >> c;
    CHECK(c > 0);
    total += c;
    by_planted[(w - 1) / 10][t] += c;
  }
  CHECK(total == 80 * 30);
  for (auto& [planted, topics] : by_planted) {
    int64_t best = 0, sum = 0;
    for (auto [t, c] : topics) {
      best = std::max(best, c);
      sum += c;
    }
    CAPTURE(planted);
    CHECK(best >= 0.95 * sum);
  }
  // trace: iterations 0, 10, 20, 30.
  const std::string& trace = run.files.at("trace.csv");
  CHECK(trace.rfind("seconds,iteration,tokens,loglik_per_token\n", 0) == 0);
  CHECK(std::count(trace.begin(), trace.end(), '\n') == 5);
}

TEST_CASE("static jobs fail cleanly on bad input, a dead worker and cancel", "[static][cluster]") {
  TempDir dir;
  SECTION("a docword header that disagrees with the body fails the job with file:line") {
    const auto bad = dir.Write("bad.txt", "3\n5\n4\n1 1 2\n2 3 1\n3 5 1\n");
    auto run = RunOnCluster(LdaSpec(bad), 1, 2);
    CHECK(run.info.state() == proto::JOB_FAILED);
    CHECK_THAT(run.info.error(), Catch::Contains("bad.txt"));
  }
  SECTION("ratings with an id out of range") {
    const auto bad = dir.Write(
        "bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 2.0\n");
    auto run = RunOnCluster(MfSpec(bad, "ccd"), 1, 1);
    CHECK(run.info.state() == proto::JOB_FAILED);
    CHECK_THAT(run.info.error(), Catch::Contains("bad.mtx:4"));
  }
  SECTION("more workers than rows: the idle workers' empty parts do not stall the job") {
    const auto tiny = dir.Write(
        "tiny.mtx",
        "%%MatrixMarket matrix coordinate real general\n3 2 4\n1 1 1\n2 2 2\n3 1 3\n1 2 1\n");
    auto run = RunOnCluster(MfSpec(tiny, "ccd"), 1, 5);
    CHECK(run.info.state() == proto::JOB_SUCCEEDED);
    CHECK(run.files.count("W.mtx") == 1);
  }
  SECTION("an unknown algorithm is refused at submit") {
    const auto data = dir.Write("r.mtx", RatingsText(20, 10, 3, 1));
    auto spec = MfSpec(data, "lbfgs");
    CHECK_FALSE(ValidateJobSpec(BuiltinApps(), spec).ok());
    CHECK_THAT(ValidateJobSpec(BuiltinApps(), spec).message(), Catch::Contains("lbfgs"));
  }
  SECTION("a worker that dies mid-job fails the job, naming it") {
    const auto corpus = dir.Write("docword.txt", DocwordText(400, 5));
    auto spec = LdaSpec(corpus);
    spec.mutable_static_engine()->set_iterations(100000);
    // Worker 1 dies right after reporting its 6th sub-round: mid-job, every run alike.
    auto run = RunOnCluster(spec, 1, 2, {}, [](const std::string& id, FaultInjectingTransport& t) {
      if (id == "worker-1") t.KillAt(SendsOf(proto::Envelope::kSubRoundDone), 6);
    });
    CHECK(run.info.state() == proto::JOB_FAILED);
    CHECK(run.info.iteration() >= 1);
    CHECK_THAT(run.info.error(), Catch::Contains("worker-1"));
  }
  SECTION("cancel mid-job") {
    const auto corpus = dir.Write("docword.txt", DocwordText(200, 6));
    auto spec = LdaSpec(corpus);
    spec.mutable_static_engine()->set_iterations(100000);
    // Worker 0's first SubRoundDone is held: the job stops at its first barrier, every run
    // alike, and is cancelled there.
    auto run = RunOnCluster(
        spec, 1, 2,
        [](EmbeddedCluster& cluster, Client& c, uint64_t id) {
          REQUIRE(testing::WaitUntil([&] { return cluster.faults("worker-0")->held() > 0; }));
          auto req = MakeEnvelope("test-client", id);
          req.mutable_cancel();
          REQUIRE(c.Call(req).ok());
        },
        [](const std::string& id, FaultInjectingTransport& t) {
          if (id == "worker-0") t.Delay(SendsOf(proto::Envelope::kSubRoundDone));
        });
    CHECK(run.info.state() == proto::JOB_CANCELLED);
  }
}

// An mf ccd job of 8 iterations on 2 schedulers and 3 workers, checkpointed after every
// iteration, whose member `victim` dies at its `nth` message of kind `kind`: it recovers once, from
// a checkpoint of iteration `min_checkpoint` or later, names the victim, and still ends equal to
// the CCD++ reference (factors and objective). Its outcome, for the checks particular to the
// victim's role.
Outcome KilledMfCcdJob(TempDir& dir, const std::string& victim, proto::Envelope::BodyCase kind,
                       uint64_t nth, uint64_t min_checkpoint) {
  const auto data = dir.Write("r.mtx", RatingsText(120, 80, 8, 1));
  const auto reference = CcdReference(data, 8);
  auto spec = MfSpec(data, "ccd");
  spec.mutable_static_engine()->set_iterations(8);
  RecoverFromEveryIteration(spec);
  auto run = RunOnCluster(spec, 2, 3, {}, [&](const std::string& id, FaultInjectingTransport& t) {
    if (id == victim) t.KillAt(SendsOf(kind), nth);
  });
  REQUIRE(run.info.state() == proto::JOB_SUCCEEDED);
  REQUIRE(run.info.recoveries_size() == 1);
  CHECK_THAT(run.info.recoveries(0).cause(), Catch::Contains(victim));
  CHECK(run.info.recoveries(0).checkpoint_round() >= min_checkpoint);
  CHECK(run.info.iteration() == 8);
  CheckFactorsEqual(run, dir, reference);
  const auto summary = nlohmann::json::parse(run.files.at("summary.json"));
  CHECK(summary["objective"].get<double>() == Approx(reference.objective).epsilon(1e-9));
  CHECK(summary["recoveries"].size() == 1);
  return run;
}

TEST_CASE("a worker killed mid-job: mf ccd resumes to the CCD++ reference, lda keeps its counts",
          "[static][cluster][recovery]") {
  TempDir dir;
  // 3 workers, 4 blocks each: 12 sub-rounds a pass. Worker 1 dies after its 60th sub-round,
  // in iteration 3 of 8; the job resumes after an iteration, not from 0.
  const auto run = KilledMfCcdJob(dir, "worker-1", proto::Envelope::kSubRoundDone, 60, 1);
  CHECK(run.info.workers() == 2);

  // LDA: the topic assignments and word-topic rows of its last checkpoint, restored on the worker
  // left (lda_app_test shows the restored state is the saved one); the counts still add up.
  const auto corpus = dir.Write("docword.txt", DocwordText(400, 5));
  auto lda = LdaSpec(corpus);
  RecoverFromEveryIteration(lda);
  // 2 workers, 2 blocks: 2 sub-rounds a pass, 4 SubRoundDones of worker 1 an iteration (2 in the
  // initial evaluation): its 9th is in iteration 2, after the checkpoint of iteration 1.
  auto again = RunOnCluster(lda, 1, 2, {}, [](const std::string& id, FaultInjectingTransport& t) {
    if (id == "worker-1") t.KillAt(SendsOf(proto::Envelope::kSubRoundDone), 9);
  });
  REQUIRE(again.info.state() == proto::JOB_SUCCEEDED);
  REQUIRE(again.info.recoveries_size() == 1);
  CHECK(again.info.recoveries(0).checkpoint_round() >= 1);
  CHECK(again.info.iteration() == 5);
  const auto lda_summary = nlohmann::json::parse(again.files.at("summary.json"));
  CHECK(lda_summary["tokens"].get<double>() == 400 * 30);
}

TEST_CASE(
    "a scheduler killed mid-job: mf ccd resumes on the one left and equals the CCD++ reference",
    "[static][cluster][recovery]") {
  TempDir dir;
  // Rank 4, one inner iteration: 13 passes an iteration (1 in iteration 0). Scheduler 1's 30th
  // PassDone is in iteration 3, after the checkpoint of iteration 2.
  const auto run = KilledMfCcdJob(dir, "scheduler-1", proto::Envelope::kPassDone, 30, 2);
  CHECK(run.info.schedulers() == 1);
}

}  // namespace strads
