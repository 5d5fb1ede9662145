// The mf app on the static engine (apps/mf/mf_app.h), run through RunStaticLocally and checked
// against the sequential references (apps/mf/mf_reference.h): CCD++ to 1e-9 at any P and S,
// SGD's trajectory, test RMSE, reproducibility, balancing, outputs and bad input.
#include "apps/mf/mf_app.h"
#include "apps/mf.pb.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "test/status_testing.h"
#include "test/temp_dir.h"

#include "apps/mf/array_mtx.h"
#include "apps/mf/mf_reference.h"
#include "apps/mf/ratings.h"
#include "apps/mf/unseen_file.h"
#include "engine/static_driver.h"
#include "test/app_params_edit.h"

namespace strads::mf {
namespace {

using strads::testing::EditAppParams;
using strads::testing::ReadFile;
using strads::testing::TempDir;

// A rank-`rank` matrix plus noise observed on a random Omega (and a "diagonal", so that no row or
// column is empty), as MatrixMarket coordinate text. Row lengths vary, so blocks by work differ
// from uniform ones.
std::string PlantedMtx(uint64_t seed, uint32_t rows, uint32_t cols, int rank, double density) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::MatrixXd w(rows, rank), h(cols, rank);
  for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = unit(rng);
  for (Eigen::Index k = 0; k < h.size(); ++k) h.data()[k] = unit(rng);
  std::string body;
  uint64_t nnz = 0;
  for (uint32_t i = 0; i < rows; ++i) {
    const double row_density = density * (0.5 + 1.5 * static_cast<double>(i % 7) / 6.0);
    for (uint32_t j = 0; j < cols; ++j) {
      const bool diagonal = j == i % cols || i == j % rows;
      if (diagonal || unit(rng) < row_density) {
        const double v = w.row(i).dot(h.row(j)) + 0.1 * (unit(rng) - 0.5);
        body += fmt::format("{} {} {}\n", i + 1, j + 1, v);
        ++nnz;
      }
    }
  }
  return fmt::format("%%MatrixMarket matrix coordinate real general\n{} {} {}\n", rows, cols, nnz) +
         body;
}

proto::JobSpec Spec(const std::string& data, const std::string& algorithm, uint32_t iterations) {
  proto::JobSpec spec;
  spec.set_app("mf");
  spec.set_data_path(data);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) {
    p.set_algorithm(algorithm);
    p.set_rank(4);
    p.set_lambda(0.1);
  });
  spec.mutable_static_engine()->set_iterations(iterations);
  spec.set_seed(7);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) {
    p.set_learning_rate(0.1);
    p.set_decay(0.0);
  });
  return spec;
}

MfOptions Options(const proto::JobSpec& spec) {
  const proto::MfSpec mf = AppParams<proto::MfSpec>(spec).value();
  MfOptions o;
  o.rank = mf.rank();
  o.lambda = mf.lambda();
  o.iterations = spec.static_engine().iterations();
  o.seed = spec.seed();
  o.learning_rate = mf.learning_rate();
  o.decay = mf.decay();
  o.ccd_inner = std::max<uint32_t>(1, mf.inner_iterations());
  o.regularization = ParseRegularization(mf.regularization()).value();
  if (mf.cg_steps() > 0) o.cg_steps = mf.cg_steps();
  o.implicit = mf.implicit();
  o.alpha = mf.alpha();
  return o;
}

StaticLocalResult Run(const proto::JobSpec& spec, uint32_t workers, uint32_t schedulers = 1) {
  static const MfApp app;
  StaticLocalOptions options;
  options.workers = workers;
  options.schedulers = schedulers;
  Result<StaticLocalResult> result = RunStaticLocally(app, spec, options);
  INFO(result.status().message());
  REQUIRE(result.ok());
  return std::move(result).value();
}

Status RunStatus(const proto::JobSpec& spec, uint32_t workers = 1) {
  static const MfApp app;
  StaticLocalOptions options;
  options.workers = workers;
  return RunStaticLocally(app, spec, options).status();
}

Eigen::MatrixXd File(const TempDir& dir, const StaticLocalResult& result, const std::string& name) {
  for (const auto& file : result.files) {
    if (file.name() != name) continue;
    Result<Eigen::MatrixXd> m = ReadArrayMtx(dir.Write(name, file.content()));
    REQUIRE(m.ok());
    return std::move(m).value();
  }
  FAIL("no result file " << name);
  return {};
}

double RelativeDiff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

double Relative(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

double Objective(const StaticLocalResult& r, size_t evaluation) {
  static const MfApp app;
  return app.Objective(r.metrics.at(evaluation));
}

// Checks a CCD++ run at P workers, S schedulers against SolveCcdReference.
void ExpectCcdMatchesReference(const proto::JobSpec& spec, uint32_t workers, uint32_t schedulers,
                               double tolerance) {
  TempDir dir;
  Result<Ratings> ratings = LoadRatings(spec.data_path());
  REQUIRE(ratings.ok());
  std::vector<double> objectives;
  Result<MfResult> reference = SolveCcdReference(
      *ratings, Options(spec), [&](const MfTracePoint& p) { objectives.push_back(p.objective); });
  REQUIRE(reference.ok());
  const StaticLocalResult run = Run(spec, workers, schedulers);
  REQUIRE(run.metrics.size() == spec.static_engine().iterations() + 1);
  for (size_t i = 0; i < objectives.size(); ++i) {
    INFO("iteration " << i);
    CHECK(Relative(Objective(run, i), objectives[i]) <= tolerance);
  }
  CHECK(Relative(Objective(run, spec.static_engine().iterations()), reference->objective) <=
        tolerance);
  CHECK(RelativeDiff(File(dir, run, "W.mtx"), reference->model.W) <= tolerance);
  CHECK(RelativeDiff(File(dir, run, "H.mtx"), reference->model.H) <= tolerance);
}

TEST_CASE("mf ccd at one worker equals SolveCcdReference to 1e-9 after 3 iterations") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(1, 40, 30, 3, 0.3)), "ccd", 3);
  for (const char* form : {"weighted", "plain"}) {
    INFO(form);
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_regularization(form); });
    SECTION(std::string(form) + ": one inner alternation") {
      ExpectCcdMatchesReference(spec, 1, 1, 1e-9);
    }
    SECTION(std::string(form) + ": two inner alternations, four blocks") {
      EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_inner_iterations(2); });
      spec.mutable_static_engine()->set_blocks_per_worker(4);
      ExpectCcdMatchesReference(spec, 1, 1, 1e-9);
    }
  }
}

TEST_CASE("mf ccd at 2 and 3 workers and 2 schedulers matches the reference to 1e-9") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(2, 45, 37, 3, 0.3)), "ccd", 3);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_inner_iterations(2); });
  for (const char* form : {"weighted", "plain"}) {
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_regularization(form); });
    for (uint32_t workers : {2u, 3u}) {
      for (uint32_t k : {1u, 2u}) {
        INFO(form << ", P = " << workers << ", K = " << k);
        spec.mutable_static_engine()->set_blocks_per_worker(k);
        ExpectCcdMatchesReference(spec, workers, 2, 1e-9);
      }
    }
  }
}

TEST_CASE("mf sgd at one worker and one block reaches SolveSgdReference's objective to 1e-6") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(11, 50, 40, 3, 0.3)), "sgd", 6);
  spec.mutable_static_engine()->set_blocks_per_worker(1);
  for (const char* form : {"weighted", "plain"}) {
    INFO(form);
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_regularization(form); });
    Result<Ratings> ratings = LoadRatings(spec.data_path());
    REQUIRE(ratings.ok());
    std::vector<double> reference;
    Result<MfResult> solved = SolveSgdReference(
        *ratings, Options(spec), [&](const MfTracePoint& p) { reference.push_back(p.objective); });
    REQUIRE(solved.ok());
    const StaticLocalResult run = Run(spec, 1, 1);
    REQUIRE(run.metrics.size() == reference.size());
    for (size_t i = 0; i < reference.size(); ++i) {
      INFO("epoch " << i);
      CHECK(Relative(Objective(run, i), reference[i]) <= 1e-6);
    }
    CHECK(Objective(run, 6) < 0.5 * Objective(run, 0));
    TempDir out;
    CHECK(RelativeDiff(File(out, run, "W.mtx"), solved->model.W) <= 1e-6);
    CHECK(RelativeDiff(File(out, run, "H.mtx"), solved->model.H) <= 1e-6);
  }
}

TEST_CASE("mf als matches SolveAlsReference to 1e-9 at 1 to 3 workers, either penalty") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(14, 45, 37, 3, 0.3)), "als", 4);
  for (const char* form : {"weighted", "plain"}) {
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) {
      p.set_regularization(form);
      p.set_cg_steps(2);
    });
    Result<Ratings> ratings = LoadRatings(spec.data_path());
    REQUIRE(ratings.ok());
    std::vector<double> objectives;
    Result<MfResult> reference = SolveAlsReference(
        *ratings, Options(spec), [&](const MfTracePoint& p) { objectives.push_back(p.objective); });
    REQUIRE(reference.ok());
    CHECK(objectives.back() < 0.3 * objectives.front());
    for (uint32_t workers : {1u, 2u, 3u}) {
      INFO(form << ", P = " << workers);
      spec.mutable_static_engine()->set_blocks_per_worker(workers == 1 ? 1 : 2);
      const StaticLocalResult run = Run(spec, workers, 2);
      REQUIRE(run.metrics.size() == objectives.size());
      for (size_t i = 0; i < objectives.size(); ++i) {
        INFO("iteration " << i);
        CHECK(Relative(Objective(run, i), objectives[i]) <= (workers == 1 ? 1e-12 : 1e-9));
      }
      TempDir out;
      CHECK(RelativeDiff(File(out, run, "W.mtx"), reference->model.W) <= 1e-9);
      CHECK(RelativeDiff(File(out, run, "H.mtx"), reference->model.H) <= 1e-9);
    }
  }
}

TEST_CASE("mf als --implicit reaches SolveAlsReference's objective to 1e-6 at 1 to 3 workers") {
  TempDir dir;
  // Values in about [-0.05, 3]: a few are <= 0 (preference 0, confidence 1 + alpha |a|).
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(15, 45, 37, 3, 0.3)), "als", 4);
  for (const char* form : {"weighted", "plain"}) {
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) {
      p.set_regularization(form);
      p.set_cg_steps(2);
      p.set_implicit(true);
      p.set_alpha(2.5);
    });
    Result<Ratings> ratings = LoadRatings(spec.data_path());
    REQUIRE(ratings.ok());
    std::vector<double> objectives;
    Result<MfResult> reference = SolveAlsReference(
        *ratings, Options(spec), [&](const MfTracePoint& p) { objectives.push_back(p.objective); });
    REQUIRE(reference.ok());
    CHECK(objectives.back() < 0.5 * objectives.front());
    CHECK(Relative(reference->objective, ImplicitObjective(*ratings, reference->model, 0.1,
                                                           Options(spec).regularization, 2.5)) <=
          1e-12);
    for (uint32_t workers : {1u, 2u, 3u}) {
      INFO(form << ", P = " << workers);
      spec.mutable_static_engine()->set_blocks_per_worker(workers == 1 ? 1 : 2);
      const StaticLocalResult run = Run(spec, workers, workers == 3 ? 2 : 1);
      REQUIRE(run.metrics.size() == objectives.size());
      for (size_t i = 0; i < objectives.size(); ++i) {
        INFO("iteration " << i);
        CHECK(Relative(Objective(run, i), objectives[i]) <= 1e-6);
      }
      TempDir out;
      CHECK(RelativeDiff(File(out, run, "W.mtx"), reference->model.W) <= 1e-6);
      CHECK(RelativeDiff(File(out, run, "H.mtx"), reference->model.H) <= 1e-6);
      // A pair without factors is predicted as preference 0, not the mean of the values.
      REQUIRE(run.files[2].name() == "unseen.txt");
      CHECK(run.files[2].content().find("\nmean 0\n") != std::string::npos);
    }
  }
}

TEST_CASE("mf weighted and plain regularisation are different objectives") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(12, 30, 20, 2, 0.3)), "ccd", 2);
  const StaticLocalResult weighted = Run(spec, 2);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_regularization("plain"); });
  const StaticLocalResult plain = Run(spec, 2);
  // Same initial H and W = 0: the same squared error, different penalties of H.
  CHECK(weighted.metrics[0].at("sq_err") == plain.metrics[0].at("sq_err"));
  CHECK(weighted.metrics[0].at("h_penalty") > 2 * plain.metrics[0].at("h_penalty"));
  CHECK(weighted.files[0].content() != plain.files[0].content());
  nlohmann::ordered_json summary;
  MfApp().Summarize(weighted.metrics.back(), summary);
  CHECK(summary["regularization"] == "weighted");
  MfApp().Summarize(plain.metrics.back(), summary);
  CHECK(summary["regularization"] == "plain");
}

TEST_CASE("mf ccd objective never increases") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(3, 50, 40, 3, 0.2)), "ccd", 6);
  spec.mutable_static_engine()->set_blocks_per_worker(2);
  const StaticLocalResult run = Run(spec, 3, 2);
  for (size_t i = 1; i < run.metrics.size(); ++i) {
    INFO("iteration " << i);
    CHECK(Objective(run, i) <= Objective(run, i - 1) * (1 + 1e-12));
  }
  CHECK(Objective(run, 6) < 0.5 * Objective(run, 0));
}

TEST_CASE("mf sgd follows the reference's trajectory and lowers the RMSE") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(4, 60, 50, 3, 0.3)), "sgd", 8);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_lambda(0.01); });
  Result<Ratings> ratings = LoadRatings(spec.data_path());
  REQUIRE(ratings.ok());
  std::vector<double> reference;
  REQUIRE(SolveSgdReference(*ratings, Options(spec), [&](const MfTracePoint& p) {
            reference.push_back(p.objective);
          }).ok());
  for (uint32_t workers : {1u, 2u, 3u}) {
    INFO("P = " << workers);
    const StaticLocalResult run = Run(spec, workers, 2);
    REQUIRE(run.metrics.size() == reference.size());
    // The same initial model exactly; then the same steps in a different (stratified) order: the
    // first epoch, which takes the objective down fastest, depends on it most.
    CHECK(Relative(Objective(run, 0), reference[0]) <= 1e-12);
    for (size_t i = 1; i < reference.size(); ++i) {
      INFO("epoch " << i);
      CHECK(std::abs(Objective(run, i) - reference[i]) <= (i == 1 ? 0.1 : 0.02) * reference[i]);
      CHECK(run.metrics[i].at("sq_err") < run.metrics[i - 1].at("sq_err"));
    }
    CHECK(Objective(run, 8) < 0.2 * Objective(run, 0));
    CHECK(run.work == 8 * ratings->nnz());
  }
}

TEST_CASE("mf reports the test RMSE when a test file is given, and only then") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(5, 30, 20, 2, 0.4)), "ccd", 2);
  const StaticLocalResult without = Run(spec, 2);
  CHECK(without.trace.front() == "seconds,iteration,objective,train_rmse,test_rmse");
  CHECK(without.trace.back().back() == ',');
  CHECK(without.metrics.back().count("test_ratings") == 0);

  const std::string test = dir.Write("t.mtx",
                                     "%%MatrixMarket matrix coordinate real general\n30 20 3\n"
                                     "1 2 0.5\n17 5 1.5\n30 20 0.25\n");
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_test_path(test); });
  const StaticLocalResult with = Run(spec, 2);
  const auto& m = with.metrics.back();
  CHECK(m.at("test_ratings") == 3);
  const double rmse = std::sqrt(m.at("test_sq_err") / 3);
  CHECK(std::isfinite(rmse));
  CHECK(with.trace.back().substr(with.trace.back().rfind(',') + 1) == fmt::format("{:.10g}", rmse));
  nlohmann::ordered_json summary;
  MfApp().Summarize(m, summary);
  CHECK(summary["last_test_rmse"].get<double>() == rmse);
  CHECK(summary["rows"] == 30);
  CHECK(summary["cols"] == 20);
  CHECK(summary["rank"] == 4);
  CHECK(summary["algorithm"] == "ccd");
  CHECK(summary["lambda"] == 0.1);
  CHECK(summary["objective"].get<double>() == MfApp().Objective(m));

  // The test matrix's size line must match the training matrix.
  const std::string bad =
      dir.Write("bad.mtx", "%%MatrixMarket matrix coordinate real general\n31 20 1\n1 1 1\n");
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_test_path(bad); });
  const Status st = RunStatus(spec);
  CHECK(st.message().find("bad.mtx:2:") != std::string::npos);
}

TEST_CASE("mf accepts rows and columns without ratings: zero factors, the mean for their pairs") {
  TempDir dir;
  // PlantedMtx's matrix with row 5 and column 7 (1-based) emptied.
  std::istringstream in(PlantedMtx(13, 30, 20, 2, 0.3));
  std::string line, body;
  std::getline(in, line);
  std::getline(in, line);
  uint64_t nnz = 0;
  while (std::getline(in, line)) {
    uint64_t i, j;
    std::istringstream(line) >> i >> j;
    if (i == 5 || j == 7) continue;
    body += line + "\n";
    ++nnz;
  }
  const std::string data = dir.Write(
      "a.mtx",
      fmt::format("%%MatrixMarket matrix coordinate real general\n30 20 {}\n{}", nnz, body));
  const std::string test = dir.Write("t.mtx",
                                     "%%MatrixMarket matrix coordinate real general\n30 20 3\n"
                                     "5 1 0.5\n2 7 1.5\n3 3 0.25\n");
  Result<Ratings> ratings = LoadRatings(data, EmptyLines::kAllow);
  REQUIRE(ratings.ok());
  Result<Ratings> held_out = LoadRatingsLike(test, *ratings);
  REQUIRE(held_out.ok());
  const Coverage coverage = CoverageOf(*ratings);
  for (const char* algorithm : {"ccd", "sgd"}) {
    INFO(algorithm);
    proto::JobSpec spec = Spec(data, algorithm, 3);
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_test_path(test); });
    spec.mutable_static_engine()->set_blocks_per_worker(1);
    const StaticLocalResult one = Run(spec, 1);
    const StaticLocalResult run = Run(spec, 2, 2);
    const Result<MfResult> reference = std::string(algorithm) == "ccd"
                                           ? SolveCcdReference(*ratings, Options(spec))
                                           : SolveSgdReference(*ratings, Options(spec));
    REQUIRE(reference.ok());
    CHECK(Relative(Objective(one, 3), reference->objective) <= 1e-9);
    TempDir out;
    const Eigen::MatrixXd w = File(out, run, "W.mtx"), h = File(out, run, "H.mtx");
    CHECK(w.row(4).isZero(0));
    CHECK(h.row(6).isZero(0));
    CHECK(reference->model.W.row(4).isZero(0));
    CHECK(reference->model.H.row(6).isZero(0));
    // Two of the three held-out pairs are predicted by the mean, as HeldOutRmse does.
    const auto& m = one.metrics.back();
    CHECK(std::sqrt(m.at("test_sq_err") / 3) ==
          Approx(HeldOutRmse(*held_out, reference->model, coverage)).epsilon(1e-9));
    nlohmann::ordered_json summary;
    MfApp().Summarize(run.metrics.back(), summary);
    CHECK(summary["empty_rows"] == 1);
    CHECK(summary["empty_cols"] == 1);
    CHECK(summary["mean"].get<double>() == coverage.mean);
    REQUIRE(run.files.size() == 3);
    CHECK(run.files[2].content() == FormatUnseen(coverage.mean, {4}, {6}));
  }
}

// An overfitting job: rank 8 and a small lambda on a noisy rank-2 matrix of 40 x 30, with a
// held-out set; the test RMSE falls, then rises.
proto::JobSpec Overfitting(const TempDir& dir, const char* algorithm) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::MatrixXd w(40, 2), h(30, 2);
  for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = unit(rng);
  for (Eigen::Index k = 0; k < h.size(); ++k) h.data()[k] = unit(rng);
  std::string train, test;
  uint64_t train_nnz = 0, test_nnz = 0;
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 30; ++j) {
      const double draw = unit(rng);
      const double v = w.row(i).dot(h.row(j)) + (unit(rng) - 0.5);
      if (draw < 0.25 || j == i % 30) {
        train += fmt::format("{} {} {}\n", i + 1, j + 1, v);
        ++train_nnz;
      } else if (draw < 0.35) {
        test += fmt::format("{} {} {}\n", i + 1, j + 1, v);
        ++test_nnz;
      }
    }
  }
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n40 30 ";
  proto::JobSpec spec = Spec(dir.Write(fmt::format("train-{}.mtx", algorithm),
                                       banner + std::to_string(train_nnz) + "\n" + train),
                             algorithm, 30);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) {
    p.set_rank(8);
    p.set_lambda(0.001);
    p.set_learning_rate(0.2);
    p.set_decay(0.0);
    p.set_test_path(dir.Write(fmt::format("test-{}.mtx", algorithm),
                              banner + std::to_string(test_nnz) + "\n" + test));
  });
  spec.mutable_static_engine()->set_blocks_per_worker(2);
  return spec;
}

std::vector<double> TestRmses(const StaticLocalResult& run) {
  std::vector<double> rmse;
  for (const auto& m : run.metrics)
    rmse.push_back(std::sqrt(m.at("test_sq_err") / m.at("test_ratings")));
  return rmse;
}

TEST_CASE("mf with --test writes the model of the best test RMSE and stops --patience after it") {
  TempDir dir;
  for (const char* algorithm : {"ccd", "sgd"}) {
    INFO(algorithm);
    proto::JobSpec spec = Overfitting(dir, algorithm);
    const StaticLocalResult all = Run(spec, 2, 2);  // patience 0: every iteration
    REQUIRE_FALSE(all.stopped_early);
    const std::vector<double> rmse = TestRmses(all);
    REQUIRE(rmse.size() == 31);
    const auto best =
        static_cast<uint64_t>(std::min_element(rmse.begin(), rmse.end()) - rmse.begin());
    INFO("best test RMSE " << rmse[best] << " at iteration " << best << ", last " << rmse.back());
    REQUIRE(best >= 1);
    REQUIRE(best + 5 < 30);
    REQUIRE(rmse.back() > 1.02 * rmse[best]);

    // The files are those of a run that ends at the best iteration.
    proto::JobSpec shorter = spec;
    shorter.mutable_static_engine()->set_iterations(static_cast<uint32_t>(best));
    const StaticLocalResult until_best = Run(shorter, 2, 2);
    CHECK(all.files[0].content() == until_best.files[0].content());
    CHECK(all.files[1].content() == until_best.files[1].content());
    nlohmann::ordered_json summary;
    MfApp().Summarize(all.metrics.back(), summary);
    CHECK(summary["model"] == "best");
    CHECK(summary["model_iteration"] == best);
    CHECK(summary["test_rmse"].get<double>() == Approx(rmse[best]).epsilon(1e-12));
    CHECK(summary["last_test_rmse"].get<double>() == Approx(rmse.back()).epsilon(1e-12));
    CHECK(MfApp().ProgressNote(all.metrics.back()) ==
          fmt::format("test_rmse {:.6g} (best {:.6g} at iteration {}, kept)", rmse.back(),
                      rmse[best], best));
    CHECK(MfApp().ProgressNote(all.metrics[best]) ==
          fmt::format("test_rmse {:.6g} (best so far)", rmse[best]));

    // --patience 5: the run ends 5 iterations after the best, with the same files.
    EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_patience(5); });
    const StaticLocalResult stopped = Run(spec, 2, 2);
    CHECK(stopped.stopped_early);
    CHECK(stopped.metrics.size() == best + 6);
    CHECK(stopped.files[0].content() == until_best.files[0].content());
    CHECK(stopped.files[1].content() == until_best.files[1].content());
    CHECK(MfApp().StopsAfter(spec, best + 5, stopped.metrics.back()));
    CHECK_FALSE(MfApp().StopsAfter(spec, best + 4, stopped.metrics[best + 4]));
  }
}

TEST_CASE("mf keeps the last model when it is the best") {
  TempDir dir;
  proto::JobSpec spec = Overfitting(dir, "ccd");
  spec.mutable_static_engine()->set_iterations(1);
  const StaticLocalResult run = Run(spec, 1);
  const std::vector<double> rmse = TestRmses(run);
  REQUIRE(rmse[1] < rmse[0]);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_test_path(""); });
  const StaticLocalResult without = Run(spec, 1);
  CHECK(run.files[0].content() == without.files[0].content());
  nlohmann::ordered_json summary;
  MfApp().Summarize(run.metrics.back(), summary);
  CHECK(summary["model"] == "last");
  CHECK(summary["model_iteration"] == 1);
}

TEST_CASE("mf resumed from a checkpoint keeps the same best model") {
  TempDir dir;
  for (const char* algorithm : {"ccd", "sgd"}) {
    INFO(algorithm);
    const proto::JobSpec spec = Overfitting(dir, algorithm);
    const StaticLocalResult all = Run(spec, 2, 2);
    const std::vector<double> rmse = TestRmses(all);
    const auto best =
        static_cast<uint64_t>(std::min_element(rmse.begin(), rmse.end()) - rmse.begin());
    // A checkpoint a few iterations after the best, and one before it.
    for (const uint64_t at : {best + 3, best - 1}) {
      INFO("checkpoint after iteration " << at);
      static const MfApp app;
      StaticLocalOptions options;
      options.workers = 2;
      options.schedulers = 2;
      StaticLocalOptions::Resume resume;
      options.after_iteration = [&](uint64_t iteration, const std::vector<StaticShard*>& shards,
                                    const std::vector<StaticHome*>& homes,
                                    const std::vector<double>& aggregates) {
        if (iteration != at) return Status::Ok();
        std::vector<proto::OutputPiece> pieces;
        for (StaticShard* shard : shards) shard->SaveState(pieces);
        for (StaticHome* home : homes) home->SaveState(pieces);
        resume.iteration = iteration;
        resume.aggregates = aggregates;
        for (auto& piece : pieces) *resume.pieces.Add() = std::move(piece);
        return Status::Ok();
      };
      REQUIRE(RunStaticLocally(app, spec, options).ok());
      options.after_iteration = nullptr;
      options.resume = resume;
      Result<StaticLocalResult> resumed = RunStaticLocally(app, spec, options);
      REQUIRE(resumed.ok());
      CHECK(resumed->files[0].content() == all.files[0].content());
      CHECK(resumed->files[1].content() == all.files[1].content());
    }
  }
}

TEST_CASE("mf runs are reproducible for a seed") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(6, 30, 25, 2, 0.3)), "sgd", 3);
  spec.mutable_static_engine()->set_blocks_per_worker(2);
  const StaticLocalResult a = Run(spec, 2), b = Run(spec, 2);
  REQUIRE(a.files.size() == 3);
  CHECK(a.files[0].content() == b.files[0].content());
  CHECK(a.files[1].content() == b.files[1].content());
  CHECK(a.trace == b.trace);
  spec.set_seed(8);
  const StaticLocalResult c = Run(spec, 2);
  CHECK(a.files[0].content() != c.files[0].content());
}

TEST_CASE("mf balance uniform and work both run and agree for ccd") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(7, 40, 60, 2, 0.2)), "ccd", 2);
  spec.mutable_static_engine()->set_balance("uniform");
  const StaticLocalResult uniform = Run(spec, 3);
  spec.mutable_static_engine()->set_balance("work");
  const StaticLocalResult work = Run(spec, 3);
  CHECK(Relative(Objective(uniform, 2), Objective(work, 2)) <= 1e-9);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_algorithm("sgd"); });
  spec.mutable_static_engine()->set_balance("uniform");
  CHECK(Run(spec, 3).metrics.size() == 3);
  spec.mutable_static_engine()->set_balance("even");
  const Status st = RunStatus(spec);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("--balance") != std::string::npos);
}

TEST_CASE("mf writes W.mtx and H.mtx as WriteArrayMtx does") {
  TempDir dir;
  const proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(8, 12, 9, 2, 0.4)), "ccd", 1);
  const StaticLocalResult run = Run(spec, 2, 2);
  REQUIRE(run.files.size() == 3);
  CHECK(run.files[0].name() == "W.mtx");
  CHECK(run.files[1].name() == "H.mtx");
  CHECK(run.files[2].name() == "unseen.txt");
  const Eigen::MatrixXd w = File(dir, run, "W.mtx"), h = File(dir, run, "H.mtx");
  CHECK(w.rows() == 12);
  CHECK(w.cols() == 4);
  CHECK(h.rows() == 9);
  REQUIRE(WriteArrayMtx(w, dir.Path("w2.mtx")).ok());
  CHECK(ReadFile(dir.Path("w2.mtx")) == run.files[0].content());
}

TEST_CASE("mf rejects bad parameters naming the flag") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(9, 10, 10, 2, 0.3)), "ccd", 1);
  const MfApp app;
  CHECK(app.Validate(spec).ok());
  auto expect = [&](const proto::JobSpec& bad, const std::string& text) {
    testing::CheckInvalidArgument(app.Validate(bad), text);
  };
  proto::JobSpec bad = spec;
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) { p.set_algorithm("pca"); });
  expect(bad, "unknown --algorithm 'pca' (ccd, sgd or als)");
  bad = spec;
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) { p.set_rank(0); });
  expect(bad, "--rank");
  bad = spec;
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) { p.set_lambda(-1); });
  expect(bad, "--lambda");
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) { p.set_lambda(std::nan("")); });
  expect(bad, "--lambda");
  bad = spec;
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) {
    p.set_algorithm("sgd");
    p.set_learning_rate(0);
  });
  expect(bad, "--learning-rate");
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) {
    p.set_learning_rate(0.1);
    p.set_decay(-0.5);
  });
  expect(bad, "--decay");
  bad = spec;
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) { p.set_regularization("l1"); });
  expect(bad, "--regularization: unknown regularization 'l1' (weighted or plain)");
  bad = spec;
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) { p.set_implicit(true); });
  expect(bad, "--implicit needs --algorithm als");
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) {
    p.set_algorithm("als");
    p.set_alpha(-1);
  });
  expect(bad, "--alpha must be finite and >= 0");
  EditAppParams<proto::MfSpec>(bad, [&](auto& p) {
    p.set_alpha(40);
    p.set_test_path(spec.data_path());
  });
  expect(bad, "--implicit: --test");
  bad = spec;
  bad.set_data_path("");
  expect(bad, "--data");
}

TEST_CASE("mf rejects bad ratings with file:line") {
  TempDir dir;
  proto::JobSpec spec = Spec("", "ccd", 1);
  Status st;
  spec.set_data_path(dir.Write("range.mtx",
                               "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
                               "1 1 1\n2 3 2\n"));
  st = RunStatus(spec);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("range.mtx:4: entry (2, 3) is outside"));
  spec.set_data_path(dir.Path("missing.mtx"));
  CHECK(RunStatus(spec).code() == StatusCode::kNotFound);
}

TEST_CASE("mf rejects malformed blocks instead of crashing") {
  TempDir dir;
  proto::JobSpec spec = Spec(dir.Write("a.mtx", PlantedMtx(10, 10, 8, 2, 0.3)), "ccd", 1);
  const MfApp app;
  auto shard = app.LoadShard(spec, 0, 2, 2);
  REQUIRE(shard.ok());
  auto home = app.LoadHome(spec, 0, 2, 2, 2);
  REQUIRE(home.ok());
  StaticStep step{1, 0, 0, false};  // a W pass: one double per column
  auto block = (*home)->TakeBlock(0, step);
  REQUIRE(block.ok());
  std::vector<double> none;

  StaticBlock wrong = *block;
  wrong.doubles.push_back(1.0);
  auto processed = (*shard)->Process(step, none, wrong, none);
  CHECK(processed.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(processed.status().message(), Catch::Contains("block 0"));
  wrong = *block;
  wrong.id = 7;
  CHECK(!(*shard)->Process(step, none, wrong, none).ok());
  StaticStep beyond = step;
  beyond.pass = app.PassesPerIteration(spec);
  CHECK(!(*shard)->Process(beyond, none, *block, none).ok());

  CHECK(!(*home)->TakeBlock(1, step).ok());  // homed at scheduler 1
  wrong = *block;
  wrong.doubles.clear();
  CHECK(!(*home)->ReturnBlock(wrong, step).ok());
  CHECK((*home)->ReturnBlock(*block, step).ok());

  // Output pieces of the wrong shape.
  std::vector<proto::OutputPiece> pieces(1);
  pieces[0].set_name("W");
  pieces[0].set_width(3);
  pieces[0].add_values(1.0);
  CHECK(!app.Assemble(spec, pieces).ok());
  pieces[0].set_name("Z");
  CHECK(!app.Assemble(spec, pieces).ok());
}

TEST_CASE("mf passes per iteration: k (2T + 1) + 1 for ccd, 2 for sgd, cg-steps + 3 for als") {
  proto::JobSpec spec = Spec("a.mtx", "ccd", 1);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) {
    p.set_rank(5);
    p.set_inner_iterations(3);
  });
  CHECK(MfApp().PassesPerIteration(spec) == 5 * 7 + 1);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_algorithm("sgd"); });
  CHECK(MfApp().PassesPerIteration(spec) == 2);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_algorithm("als"); });
  CHECK(MfApp().PassesPerIteration(spec) == 3 + 3);
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_cg_steps(5); });
  CHECK(MfApp().PassesPerIteration(spec) == 5 + 3);
}

}  // namespace
}  // namespace strads::mf
