// In-process cluster tests: every role as a thread over the in-process hub, the same classes as
// the daemons. The engine is checked against the sequential reference (the oracle), and the
// faults a user can cause or suffer (bad input, a dying worker, cancel) against their contract.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "apps/linear.pb.h"
#include "apps/linear/lasso_reference.h"
#include "cli/client.h"
#include "cli/embedded_cluster.h"
#include "common/data_loader.h"
#include "common/protocol.h"
#include "engine/dynamic_spec.h"
#include "test/app_params_edit.h"
#include "test/cluster_test_util.h"
#include "test/status_testing.h"
#include "test/temp_dir.h"
#include "tools/synthetic_lasso.h"
#include "wait_until.h"

namespace strads {
namespace {

namespace fs = std::filesystem;
using testing::EditAppParams;
using testing::FastOptions;

// A correlated synthetic problem written once per test binary.
const std::string& ProblemPath() {
  static const std::string path = [] {
    auto dir = fs::temp_directory_path() / ("strads-engine-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    SyntheticLassoOptions o{.rows = 300,
                            .features = 1200,
                            .group_size = 6,
                            .correlation = 0.8,
                            .density = 0.2,
                            .true_nonzeros = 20,
                            .seed = 7};
    auto p = (dir / "problem.svm").string();
    REQUIRE(WriteSyntheticLasso(o, p).ok());
    return p;
  }();
  return path;
}

// Lasso on the problem, with chords of 16 from 32 candidates and a bound of 60 s.
proto::JobSpec LassoSpec(double lambda) {
  proto::JobSpec s = testing::BaseSpec("lasso", ProblemPath(), lambda);
  s.mutable_dynamic()->set_chord_size(16);
  s.mutable_dynamic()->set_candidates(32);
  s.set_max_seconds(60);
  return s;
}

struct Submitted {
  proto::JobInfo info;
  std::string coefficients;
  nlohmann::json summary;  // summary.json
};

// Submits `spec` to the cluster and waits (hard deadline) for the job to end.
Submitted RunJob(EmbeddedCluster& cluster, const proto::JobSpec& spec, const std::string& client,
                 std::function<void(Client&, uint64_t)> while_running = {}) {
  InProcTransport transport(cluster.hub(), client);
  Client c(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
  const uint64_t id = testing::SubmitJob(c, client, spec);
  if (while_running) while_running(c, id);
  Submitted out{testing::WaitForJob(c, id), "", {}};
  if (out.info.state() == proto::JOB_SUCCEEDED) {
    // A fresh directory: files left by an earlier job or run must not stand in for this one's.
    testing::TempDir out_dir;
    const fs::path dir = out_dir.Path("out");
    auto fetched = c.FetchResults(id, dir.string());
    REQUIRE(fetched.ok());
    // Checked: an empty model must be an empty file, not a missing or unreadable one.
    const auto path = dir / "coefficients.tsv";
    REQUIRE(fs::is_regular_file(path));
    out.coefficients = testing::ReadFile(path);
    std::ifstream summary(dir / "summary.json");
    REQUIRE(summary.is_open());
    out.summary = nlohmann::json::parse(summary);
  }
  return out;
}

double ReferenceObjective(double lambda) {
  auto data = LoadDataset(DataSource{ProblemPath(), "", ""}, RowRange{});
  REQUIRE(data.ok());
  lasso::LassoReferenceOptions o;
  o.lambda = lambda;
  o.tolerance = 1e-9;
  auto r = lasso::SolveLassoReference(*data, o);
  REQUIRE(r.ok());
  REQUIRE(r->converged);
  return r->objective;
}

// lambda = lambda_max / 20 for the file at `path`, and the reference's optimum at that lambda.
std::pair<double, double> ReferenceAtTwentiethOfMax(const std::string& path) {
  auto data = LoadDataset(DataSource{path, "", ""}, RowRange{});
  REQUIRE(data.ok());
  lasso::LassoReferenceOptions o;
  o.lambda = 0.05 * (data->x.transpose() * data->y).cwiseAbs().maxCoeff();
  o.tolerance = 1e-9;
  auto reference = lasso::SolveLassoReference(*data, o);
  REQUIRE(reference.ok());
  return {o.lambda, reference->objective};
}

double LambdaMax() {
  auto data = LoadDataset(DataSource{ProblemPath(), "", ""}, RowRange{});
  REQUIRE(data.ok());
  return (data->x.transpose() * data->y).cwiseAbs().maxCoeff();
}

// 120 dense rows of 80 columns: `copies` copies of 80 / copies random columns, column j equal to
// column j mod (80 / copies). With 2 copies, worker 0 of two owns [0, 40), worker 1 [40, 80), and
// every parameter has a twin on the other worker; with 4 and two schedulers, each scheduler's
// partition holds 20 columns of each worker, each the copy of one of the other's.
void WriteTwins(const std::string& path, int copies = 2) {
  constexpr int kRows = 120, kColumns = 80;
  const int base = kColumns / copies;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(kRows, base);
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < base; ++j) x(i, j) = normal(rng);
  std::ofstream out(path);
  for (int i = 0; i < kRows; ++i) {
    out << x(i, 0) - 2 * x(i, 1) + 0.5 * x(i, 2) + 0.1 * normal(rng);
    for (int j = 0; j < kColumns; ++j) out << ' ' << j + 1 << ':' << x(i, j % base);
    out << '\n';
  }
  REQUIRE(out.good());
}

// Lasso on `path` without a dependency filter, chords of every parameter.
proto::JobSpec UnfilteredColumnsSpec(const std::string& path, double lambda) {
  auto spec = LassoSpec(lambda);
  spec.set_data_path(path);
  spec.mutable_dynamic()->set_rho(1.0);  // no filter
  spec.mutable_dynamic()->set_chord_size(1024);
  spec.mutable_dynamic()->set_candidates(2048);
  spec.mutable_dynamic()->set_max_updates(200000);
  return spec;
}

}  // namespace

TEST_CASE("engine at depth 1 reaches the reference optimum within 1e-6 relative, 1 and 4 passes",
          "[cluster][columns]") {
  const double lambda = 0.05 * LambdaMax();
  const double reference = ReferenceObjective(lambda);
  for (auto [schedulers, workers] : {std::pair{1u, 1u}, std::pair{2u, 2u}, std::pair{1u, 3u}}) {
    for (auto [chord_size, passes] :
         {std::pair{16u, 1u}, std::pair{1024u, 1u}, std::pair{16u, 4u}, std::pair{2048u, 4u}}) {
      CAPTURE(schedulers, workers, chord_size, passes);
      EmbeddedCluster cluster(schedulers, workers, FastOptions());
      auto spec = LassoSpec(lambda);
      spec.mutable_dynamic()->set_chord_size(chord_size);
      spec.mutable_dynamic()->set_candidates(2 * chord_size);
      spec.mutable_dynamic()->set_inner_passes(passes);
      auto job = RunJob(cluster, spec, "test-client");
      REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
      CHECK(job.info.converged());
      CHECK(std::abs(job.info.objective() - reference) / reference < 1e-6);
      CHECK_FALSE(job.coefficients.empty());
    }
  }
}

TEST_CASE("engine converges pipelined (depth 2, 4, 8) with every policy", "[cluster][columns]") {
  const double lambda = 0.05 * LambdaMax();
  const double reference = ReferenceObjective(lambda);
  for (uint32_t depth : {2u, 4u, 8u})
    for (auto schedule : {proto::SCHEDULE_DYNAMIC, proto::SCHEDULE_RANDOM, proto::SCHEDULE_CYCLIC,
                          proto::SCHEDULE_STATIC}) {
      CAPTURE(depth, schedule);
      EmbeddedCluster cluster(2, 2, FastOptions());
      auto spec = LassoSpec(lambda);
      spec.mutable_dynamic()->set_pipeline_depth(depth);
      spec.mutable_dynamic()->set_schedule(schedule);
      auto job = RunJob(cluster, spec, "test-client");
      REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
      CHECK(job.info.converged());
      CHECK(std::abs(job.info.objective() - reference) / reference < 1e-6);
    }
}

TEST_CASE(
    "a tree of workers (--aggregation tree) reaches the reference optimum at P = 4, 1 and 2 levels",
    "[cluster][columns][tree]") {
  const double lambda = 0.05 * LambdaMax();
  const double reference = ReferenceObjective(lambda);
  for (auto [fan_in, depth] : {std::pair{3u, 1u}, std::pair{2u, 2u}, std::pair{4u, 2u}}) {
    CAPTURE(fan_in, depth);
    EmbeddedCluster cluster(1, 4, FastOptions());
    auto spec = LassoSpec(lambda);
    spec.mutable_dynamic()->set_aggregation(proto::AGGREGATION_TREE);
    spec.mutable_dynamic()->set_fan_in(fan_in);
    spec.mutable_dynamic()->set_pipeline_depth(depth);  // the pipeline's depth, not the tree's
    auto job = RunJob(cluster, spec, "test-client");
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(std::abs(job.info.objective() - reference) / reference < 1e-6);
    CHECK(job.summary.at("engine").at("aggregation").get<std::string>() == "tree");
    CHECK(job.summary.at("engine").at("fan_in").get<uint32_t>() == fan_in);
  }
}

TEST_CASE("a tree of one level gives the star's results bit for bit, two levels the same optimum",
          "[cluster][columns][tree]") {
  // At pipeline depth 1 with checks every 2,000 updates a job is deterministic: every chord is
  // built after the commit before it. A tree of fan-in >= P - 1 adds the workers' changes in the
  // star's order (rank order), so every sum, step and value is the star's; fan-in 2 over 4
  // workers adds worker 3's change to worker 1's first, which may move the last bits only.
  const double lambda = 0.05 * LambdaMax();
  const double reference = ReferenceObjective(lambda);
  auto run = [&](proto::Aggregation aggregation, uint32_t fan_in) {
    EmbeddedCluster cluster(2, 4, FastOptions());
    auto spec = LassoSpec(lambda);
    spec.mutable_dynamic()->set_chord_size(64);
    spec.mutable_dynamic()->set_candidates(128);
    spec.mutable_dynamic()->set_check_every(2000);
    spec.mutable_dynamic()->set_aggregation(aggregation);
    spec.mutable_dynamic()->set_fan_in(fan_in);
    auto job = RunJob(cluster, spec, "test-client");
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    return job;
  };
  const auto star = run(proto::AGGREGATION_STAR, 0);
  const auto flat = run(proto::AGGREGATION_TREE, 3);
  const auto deep = run(proto::AGGREGATION_TREE, 2);
  REQUIRE_FALSE(star.coefficients.empty());
  CHECK(flat.coefficients == star.coefficients);
  CHECK(flat.info.updates() == star.info.updates());
  CHECK(flat.info.round() == star.info.round());
  CHECK(flat.summary.at("objective").get<double>() == star.summary.at("objective").get<double>());
  for (const auto* job : {&star, &flat, &deep}) {
    CHECK(std::abs(job->info.objective() - reference) / reference < 1e-6);
  }
}

TEST_CASE("the dual pipeline reaches the reference optimum: its stale lanes are line-searched",
          "[cluster][columns][dual]") {
  // The stale lane's shares are computed against a replica one round behind, so even one
  // worker's may not descend alone: the coordinator searches every stale-lane step on [0, 1].
  const double lambda = 0.05 * LambdaMax();
  const double reference = ReferenceObjective(lambda);
  for (auto [schedulers, workers, depth] :
       {std::tuple{1u, 1u, 2u}, std::tuple{1u, 2u, 2u}, std::tuple{2u, 2u, 4u}}) {
    CAPTURE(schedulers, workers, depth);
    EmbeddedCluster cluster(schedulers, workers, FastOptions());
    auto spec = LassoSpec(lambda);
    spec.mutable_dynamic()->set_pipeline_depth(depth);
    spec.mutable_dynamic()->set_dual_pipeline(true);
    auto job = RunJob(cluster, spec, "test-client");
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(std::abs(job.info.objective() - reference) / reference < 1e-6);
    CHECK(job.summary.at("engine").at("dual_pipeline").get<bool>());
    // About every other round a stale lane (a draw's second half; fewer where a draw is short).
    const auto stale = job.summary.at("stale_lane_rounds").get<uint64_t>();
    const auto rounds = job.summary.at("rounds").get<uint64_t>();
    CAPTURE(stale, rounds);
    CHECK(stale > rounds / 8);
    CHECK(stale <= rounds / 2 + 1);
  }
}

TEST_CASE(
    "without a dependency filter, twins on the other worker converge: the combined step is "
    "line-searched",
    "[cluster][columns]") {
  // Columns j and j + K are equal; worker 0 owns [0, K), worker 1 [K, 2K) (equal weights). Each
  // worker's share is exact, and the two together make the same correction twice: without the
  // step length (engine/step_length.h) the residual's part along a twin pair flips sign every
  // round and the job never converges.
  testing::TempDir dir;
  const std::string path = dir.Path("twins.svm");
  WriteTwins(path);
  const auto [lambda, reference_objective] = ReferenceAtTwentiethOfMax(path);
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto job = RunJob(cluster, UnfilteredColumnsSpec(path, lambda), "test-client");
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK(job.info.converged());
  CHECK(std::abs(job.info.objective() - reference_objective) / reference_objective < 1e-6);
}

TEST_CASE("the active worker takes the non-zero twins: whole steps, the same optimum",
          "[cluster][columns][active]") {
  // The twins of the test above, in blocks of ids (no grouping): each pair is split across the
  // workers, and without --active-worker the line search halves their combined step. With it,
  // every chord's non-zero parameters go to one worker (which holds every column), so once
  // a pair has moved its twins are updated in turn there, exactly; only rounds that move zero
  // twins on both workers are damped.
  // (With two schedulers, 4 copies: each partition holds twins, as in the grouping test below.)
  testing::TempDir dir;
  for (auto [schedulers, workers, depth] :
       {std::tuple{1u, 2u, 1u}, std::tuple{1u, 3u, 2u}, std::tuple{2u, 2u, 2u}}) {
    CAPTURE(schedulers, workers, depth);
    const int copies = schedulers == 1 ? 2 : 4;
    const std::string path = dir.Path("twins-" + std::to_string(copies) + ".svm");
    WriteTwins(path, copies);
    const auto [lambda, reference_objective] = ReferenceAtTwentiethOfMax(path);
    std::vector<double> steps;
    for (const bool active : {false, true}) {
      EmbeddedCluster cluster(schedulers, workers, FastOptions());
      auto spec = UnfilteredColumnsSpec(path, lambda);
      spec.mutable_dynamic()->set_group_rho(1.0);
      spec.mutable_dynamic()->set_pipeline_depth(depth);
      spec.mutable_dynamic()->set_active_worker(active);
      auto job = RunJob(cluster, spec, "test-client");
      REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
      CHECK(job.info.converged());
      CHECK(std::abs(job.info.objective() - reference_objective) / reference_objective < 1e-6);
      CHECK(job.summary.at("engine").at("active_worker").get<bool>() == active);
      steps.push_back(job.summary.at("mean_step_length").get<double>());
    }
    CAPTURE(steps);
    CHECK(steps[0] < 0.7);
    CHECK(steps[1] > 0.8);
    CHECK(steps[1] > steps[0] + 0.2);
  }
}

TEST_CASE(
    "the active worker's shares go up a tree like any other: one level gives the star's results "
    "bit for bit, two levels whole steps and the same optimum",
    "[cluster][columns][active][tree]") {
  // Two schedulers, four workers: the active workers are 0 (the root) and 1 (a worker in the
  // middle of the fan-in 2 tree, whose share holds parameters it does not own). At pipeline depth
  // 1 with rare checks a job is deterministic, and a tree of fan-in P - 1 adds the shares in the
  // star's order.
  testing::TempDir dir;
  const std::string path = dir.Path("twins-4.svm");
  WriteTwins(path, 4);
  const auto [lambda, reference_objective] = ReferenceAtTwentiethOfMax(path);
  auto run = [&](proto::Aggregation aggregation, uint32_t fan_in) {
    CAPTURE(aggregation, fan_in);
    EmbeddedCluster cluster(2, 4, FastOptions());
    auto spec = UnfilteredColumnsSpec(path, lambda);
    spec.mutable_dynamic()->set_group_rho(1.0);
    spec.mutable_dynamic()->set_check_every(2000);
    spec.mutable_dynamic()->set_active_worker(true);
    spec.mutable_dynamic()->set_aggregation(aggregation);
    spec.mutable_dynamic()->set_fan_in(fan_in);
    auto job = RunJob(cluster, spec, "test-client");
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(std::abs(job.info.objective() - reference_objective) / reference_objective < 1e-6);
    CHECK(job.summary.at("engine").at("active_worker").get<bool>());
    CHECK(job.summary.at("mean_step_length").get<double>() > 0.8);
    return job;
  };
  const auto star = run(proto::AGGREGATION_STAR, 0);
  const auto flat = run(proto::AGGREGATION_TREE, 3);
  const auto deep = run(proto::AGGREGATION_TREE, 2);
  REQUIRE_FALSE(star.coefficients.empty());
  CHECK(flat.coefficients == star.coefficients);
  CHECK(flat.info.updates() == star.info.updates());
  CHECK(flat.summary.at("objective").get<double>() == star.summary.at("objective").get<double>());
  CHECK(deep.summary.at("engine").at("aggregation").get<std::string>() == "tree");
}

TEST_CASE(
    "grouping puts each twin pair on one worker: whole steps, the same optimum, 1 and 2 schedulers",
    "[cluster][columns][grouping]") {
  // As above, but the twins' ids are far apart: with blocks of ids each pair is split across the
  // workers and the line search halves the combined step; grouped at 0.5 (the default of
  // --group-rho) each pair is one worker's, updated in turn, exactly, and no filter is needed.
  testing::TempDir dir;
  for (auto [schedulers, copies] : {std::pair{1u, 2}, std::pair{2u, 4}}) {
    const std::string path = dir.Path("twins-" + std::to_string(copies) + ".svm");
    WriteTwins(path, copies);
    const auto [lambda, reference_objective] = ReferenceAtTwentiethOfMax(path);
    // (The rounds are not compared: for exact twins a halved combined step is exactly the right
    // one, so blocks of ids cost no more rounds here; shuffled groups that are not copies do,
    // docs/benchmarks.md.)
    for (const double group_rho : {kDefaultGroupRho, 1.0}) {
      CAPTURE(schedulers, group_rho);
      EmbeddedCluster cluster(schedulers, 2, FastOptions());
      auto spec = UnfilteredColumnsSpec(path, lambda);
      spec.mutable_dynamic()->set_group_rho(group_rho);
      auto job = RunJob(cluster, spec, "test-client");
      REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
      CHECK(job.info.converged());
      CHECK(std::abs(job.info.objective() - reference_objective) / reference_objective < 1e-6);
      const double step = job.summary.at("mean_step_length").get<double>();
      CAPTURE(step);
      CHECK((group_rho < 1 ? step > 0.9 : step < 0.7));
      CHECK(job.summary.at("engine").at("grouped_ranges").get<uint32_t>() ==
            (group_rho < 1 ? schedulers : 0u));
    }
  }
}

TEST_CASE(
    "the default filter on dense data (rho 0.8) reaches the optimum at depth 1 and 2 in whole "
    "steps",
    "[cluster][columns]") {
  // The data are dense (DenseWayFits), so each scheduler builds lists and never puts two copies
  // of a column on different workers in one chord (copies on one worker are updated in turn,
  // exactly). Without the filter both workers update every copy every round and the line search
  // halves the step: the filter must show in the mean step length (every round's step is whole
  // when no chord has copies on two workers, up to the slight correlation of the random columns)
  // and in the updates made, and the optimum must not move.
  testing::TempDir dir;
  const std::string path = dir.Path("copies.svm");
  WriteTwins(path, 4);
  const auto [lambda, reference_objective] = ReferenceAtTwentiethOfMax(path);
  for (auto [schedulers, depth] : {std::pair{1u, 1u}, std::pair{2u, 2u}}) {
    std::vector<uint64_t> updates;
    for (const bool by_default : {true, false}) {
      CAPTURE(schedulers, depth, by_default);
      EmbeddedCluster cluster(schedulers, 2, FastOptions());
      auto spec = LassoSpec(lambda);
      spec.set_data_path(path);
      // As DynamicSpecFromOptions sets them without --rho, and with --rho 1.
      spec.mutable_dynamic()->set_rho(by_default ? kDefaultDenseRho : 1.0);
      spec.mutable_dynamic()->set_rho_if_dense(by_default);
      spec.mutable_dynamic()->set_chord_size(1024);
      spec.mutable_dynamic()->set_candidates(2048);
      spec.mutable_dynamic()->set_pipeline_depth(depth);
      spec.mutable_dynamic()->set_max_updates(200000);
      auto job = RunJob(cluster, spec, "test-client");
      REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
      CHECK(job.info.converged());
      CHECK(std::abs(job.info.objective() - reference_objective) / reference_objective < 1e-6);
      updates.push_back(job.info.updates());
      const double step = job.summary.at("mean_step_length").get<double>();
      CAPTURE(step);
      CHECK((by_default ? step > 0.9 : step < 0.7));
    }
    CAPTURE(updates[0], updates[1]);
    CHECK(updates[0] <= updates[1]);
  }
}

TEST_CASE(
    "lasso --intercept reaches the optimum of the centred data, the file kept sparse, and reports "
    "the intercept",
    "[cluster][columns][intercept]") {
  // The engine gets the sparse file with y shifted by 5 and --intercept; the reference solves the
  // problem with X's columns and y centred, a dense matrix. Same objective, and the intercept
  // mean(y) - mean(X) beta; without --intercept the shift costs the fit.
  const Dataset data = testing::Must(LoadDataset(DataSource{ProblemPath(), "", ""}, RowRange{}));
  testing::TempDir dir;
  const std::string shifted = dir.Path("shifted.svm");
  {
    std::ofstream out(shifted);
    out.precision(17);
    const Eigen::SparseMatrix<double, Eigen::RowMajor> rows(data.x);
    for (int64_t i = 0; i < rows.rows(); ++i) {
      out << data.y[i] + 5.0;
      for (decltype(rows)::InnerIterator it(rows, i); it; ++it) {
        out << ' ' << it.index() + 1 << ':' << it.value();
      }
      out << '\n';
    }
    REQUIRE(out.good());
  }
  const Eigen::MatrixXd dense(data.x);
  const Eigen::RowVectorXd means = dense.colwise().mean();
  Dataset centred;
  centred.x = (dense.rowwise() - means).sparseView();
  centred.y = data.y.array() - data.y.mean();
  lasso::LassoReferenceOptions o;
  o.lambda = 0.05 * (centred.x.transpose() * centred.y).cwiseAbs().maxCoeff();
  o.tolerance = 1e-10;
  const auto reference = testing::Must(lasso::SolveLassoReference(centred, o));
  REQUIRE(reference.converged);
  // The last: a tree of workers (two levels) with --active-worker, whose shares carry the
  // centred steps up the tree like any other.
  for (auto [schedulers, workers, tree] :
       {std::tuple{1u, 1u, false}, std::tuple{2u, 3u, false}, std::tuple{2u, 4u, true}}) {
    CAPTURE(schedulers, workers, tree);
    EmbeddedCluster cluster(schedulers, workers, FastOptions());
    auto spec = LassoSpec(o.lambda);
    spec.set_data_path(shifted);
    EditAppParams<proto::LinearModelSpec>(spec, [](auto& p) { p.set_intercept(true); });
    if (tree) {
      spec.mutable_dynamic()->set_aggregation(proto::AGGREGATION_TREE);
      spec.mutable_dynamic()->set_fan_in(2);
      spec.mutable_dynamic()->set_active_worker(true);
    }
    auto job = RunJob(cluster, spec, "test-client");
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(std::abs(job.info.objective() - reference.objective) / reference.objective < 1e-8);
    CHECK(job.summary.at("intercept").get<double>() ==
          Approx(data.y.mean() + 5.0 - means.dot(reference.beta)).margin(1e-6));
    CHECK(job.summary.at("lambda_max").get<double>() ==
          Approx((centred.x.transpose() * centred.y).cwiseAbs().maxCoeff()).epsilon(1e-9));
  }
  EmbeddedCluster cluster(1, 1, FastOptions());
  auto spec = LassoSpec(o.lambda);
  spec.set_data_path(shifted);
  auto job = RunJob(cluster, spec, "test-client");
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK(job.info.objective() > 2 * reference.objective);
  CHECK_FALSE(job.summary.contains("intercept"));
}

TEST_CASE("every scheduling policy converges to the optimum on a well-conditioned problem",
          "[cluster][policies]") {
  // Uncorrelated sparse features: no policy should need the dependency filter to be safe here.
  auto dir = fs::temp_directory_path() / ("strads-policy-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  SyntheticLassoOptions o{.rows = 400,
                          .features = 600,
                          .group_size = 1,
                          .correlation = 0.0,
                          .density = 0.1,
                          .true_nonzeros = 15,
                          .seed = 11};
  const auto path = (dir / "uncorrelated.svm").string();
  REQUIRE(WriteSyntheticLasso(o, path).ok());
  const auto [lambda, reference_objective] = ReferenceAtTwentiethOfMax(path);
  for (auto schedule : {proto::SCHEDULE_DYNAMIC, proto::SCHEDULE_RANDOM, proto::SCHEDULE_CYCLIC,
                        proto::SCHEDULE_STATIC}) {
    CAPTURE(ScheduleName(schedule));
    EmbeddedCluster cluster(1, 2, FastOptions());
    auto spec = LassoSpec(lambda);
    spec.set_data_path(path);
    spec.mutable_dynamic()->set_schedule(schedule);
    auto job = RunJob(cluster, spec, "test-client");
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(std::abs(job.info.objective() - reference_objective) / reference_objective < 1e-6);
  }
}

TEST_CASE("lambda above lambda_max gives the all-zero model at once", "[cluster]") {
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto job = RunJob(cluster, LassoSpec(1.01 * LambdaMax()), "test-client");
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK(job.info.converged());
  CHECK(job.info.updates() == 0);
  CHECK(job.coefficients.empty());
}

TEST_CASE("a limit stops the job before convergence and says so", "[cluster]") {
  EmbeddedCluster cluster(1, 1, FastOptions());
  auto spec = LassoSpec(0.01 * LambdaMax());
  spec.mutable_dynamic()->set_tolerance(1e-14);
  spec.mutable_dynamic()->set_max_updates(200);
  auto job = RunJob(cluster, spec, "test-client");
  REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
  CHECK_FALSE(job.info.converged());
  CHECK(job.info.updates() >= 200);
  CHECK(job.info.updates() <
        200 + 2 * spec.dynamic().chord_size() * std::max(1u, spec.dynamic().pipeline_depth()));
}

TEST_CASE("a missing data file fails the job with the file's name, the next job runs",
          "[cluster][faults]") {
  EmbeddedCluster cluster(1, 2, FastOptions());
  auto bad = LassoSpec(1.0);
  bad.set_data_path("/nonexistent/strads/data.svm");
  auto job = RunJob(cluster, bad, "client-a");
  CHECK(job.info.state() == proto::JOB_FAILED);
  CHECK_THAT(job.info.error(), Catch::Contains("/nonexistent/strads/data.svm"));
  auto good = RunJob(cluster, LassoSpec(0.1 * LambdaMax()), "client-b");
  CHECK(good.info.state() == proto::JOB_SUCCEEDED);
}

TEST_CASE("invalid specs are refused at submit with a clear message", "[cluster][faults]") {
  EmbeddedCluster cluster(1, 1, FastOptions());
  InProcTransport transport(cluster.hub(), "client");
  Client c(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
  auto submit = [&](proto::JobSpec spec) {
    auto req = MakeEnvelope("client");
    *req.mutable_submit()->mutable_spec() = spec;
    return c.Call(req);
  };
  auto negative = LassoSpec(-1.0);
  auto r1 = submit(negative);
  REQUIRE_FALSE(r1.ok());
  CHECK_THAT(r1.status().message(), Catch::Contains("lambda"));
  auto unknown = LassoSpec(1.0);
  unknown.set_app("nosuchapp");
  auto r2 = submit(unknown);
  REQUIRE_FALSE(r2.ok());
  CHECK_THAT(r2.status().message(), Catch::Contains("unknown app 'nosuchapp'"));
  auto zero_depth = LassoSpec(1.0);
  zero_depth.mutable_dynamic()->set_pipeline_depth(0);
  CHECK_FALSE(submit(zero_depth).ok());
  auto dual_at_depth_one = LassoSpec(1.0);
  dual_at_depth_one.mutable_dynamic()->set_dual_pipeline(true);
  auto r3 = submit(dual_at_depth_one);
  REQUIRE_FALSE(r3.ok());
  CHECK_THAT(r3.status().message(), Catch::Contains("--dual-pipeline needs --pipeline-depth 2"));
}

TEST_CASE("a worker that dies mid-job fails the job naming it, the next job runs",
          "[cluster][faults]") {
  // Worker 1 dies right after sending its share of its 20th round: mid-job, every run alike. In a
  // tree its share went to worker 0, which waits for its next one.
  const auto aggregation = GENERATE(proto::AGGREGATION_STAR, proto::AGGREGATION_TREE);
  CAPTURE(aggregation);
  EmbeddedCluster cluster(1, 3, FastOptions(), "warn",
                          [](const std::string& id, FaultInjectingTransport& t) {
                            if (id == "worker-1") {
                              t.KillAt(SendsOf(proto::Envelope::kColumnPartials), 20);
                            }
                          });
  auto spec = LassoSpec(0.001 * LambdaMax());
  spec.mutable_dynamic()->set_aggregation(aggregation);
  spec.mutable_dynamic()->set_fan_in(2);
  spec.mutable_dynamic()->set_check_every(
      uint64_t{1} << 50);  // never checks, so never converges: runs until stopped
  spec.set_max_seconds(30);
  auto job = RunJob(cluster, spec, "client-a");
  CHECK(cluster.faults(cluster.worker_id(1))->killed());
  CHECK(job.info.state() == proto::JOB_FAILED);
  CHECK_THAT(job.info.error(), Catch::Contains(cluster.worker_id(1)));
  auto next = RunJob(cluster, LassoSpec(0.1 * LambdaMax()), "client-b");
  CHECK(next.info.state() == proto::JOB_SUCCEEDED);
  CHECK(next.info.workers() == 2);
}

TEST_CASE(
    "a worker or scheduler killed mid-job: the job recovers without it, to the optimum within 1e-6",
    "[cluster][faults][recovery]") {
  const double lambda = 0.05 * LambdaMax();
  const double reference = ReferenceObjective(lambda);
  struct Case {
    const char* victim;
    proto::Envelope::BodyCase kind;  // killed right after its n-th message of this kind
    proto::Aggregation aggregation;
  };
  // In a tree (fan-in 2 over 3 workers) worker 1 is a leaf and worker 0 the root, whose
  // children's shares and updates then have nowhere to go.
  for (const Case& c :
       {Case{"worker-1", proto::Envelope::kColumnPartials, proto::AGGREGATION_STAR},
        Case{"scheduler-1", proto::Envelope::kChord, proto::AGGREGATION_STAR},
        Case{"worker-1", proto::Envelope::kColumnPartials, proto::AGGREGATION_TREE},
        Case{"worker-0", proto::Envelope::kColumnPartials, proto::AGGREGATION_TREE}}) {
    CAPTURE(c.victim, c.aggregation);
    EmbeddedCluster cluster(2, 3, FastOptions(), "error",
                            [&](const std::string& id, FaultInjectingTransport& t) {
                              if (id == c.victim) t.KillAt(SendsOf(c.kind), 30);
                            });
    auto spec = LassoSpec(lambda);
    // Each epoch's schedulers group their ranges anew, for the workers left, and the
    // checkpoint's values go to their new owners.
    spec.mutable_dynamic()->set_group_rho(kDefaultGroupRho);
    spec.mutable_recovery()->set_max_recoveries(2);
    spec.mutable_recovery()->set_recovery_wait_s(0);  // no replacement comes: re-plan at once
    spec.mutable_dynamic()->set_aggregation(c.aggregation);
    spec.mutable_dynamic()->set_fan_in(2);
    auto job = RunJob(cluster, spec, "test-client");
    CHECK(cluster.faults(c.victim)->killed());
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(std::abs(job.info.objective() - reference) / reference < 1e-6);
    REQUIRE(job.info.recoveries_size() == 1);
    CHECK_THAT(job.info.recoveries(0).cause(), Catch::Contains(c.victim));
    CHECK(job.info.recoveries(0).checkpoint_round() > 0);  // resumed, not started over
    CHECK(job.info.epoch() == 1);
    CHECK(job.info.workers() + job.info.schedulers() == 4);  // re-planned without the victim
    CHECK(job.summary.at("engine").at("grouped_ranges").get<uint32_t>() == job.info.schedulers());
  }
}

TEST_CASE("cancel mid-job ends it as CANCELLED and frees the members", "[cluster][faults]") {
  // Worker 0's shares are held: the job stops mid-job at its first round, every run alike.
  EmbeddedCluster cluster(1, 2, FastOptions(), "warn",
                          [](const std::string& id, FaultInjectingTransport& t) {
                            if (id == "worker-0")
                              t.Delay(SendsOf(proto::Envelope::kColumnPartials));
                          });
  FaultInjectingTransport& worker0 = *cluster.faults("worker-0");
  auto spec = LassoSpec(0.001 * LambdaMax());
  spec.mutable_dynamic()->set_check_every(
      uint64_t{1} << 50);  // never checks, so never converges: runs until stopped
  spec.set_max_seconds(30);
  auto job = RunJob(cluster, spec, "client-a", [&](Client& c, uint64_t id) {
    REQUIRE(testing::WaitUntil([&] { return worker0.held() > 0; }));
    auto req = MakeEnvelope("client-a", id);
    req.mutable_cancel();
    auto reply = c.Call(req);
    REQUIRE(reply.ok());
    CHECK(reply->cancel_reply().state() == proto::JOB_CANCELLED);
  });
  INFO(DescribeJob(job.info));
  CHECK(job.info.state() == proto::JOB_CANCELLED);
  worker0.ClearRules();
  worker0.Release();  // the held shares are of the cancelled job: the coordinator ignores them
  auto next = RunJob(cluster, LassoSpec(0.1 * LambdaMax()), "client-b");
  CHECK(next.info.state() == proto::JOB_SUCCEEDED);
}

}  // namespace strads
