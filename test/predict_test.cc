// `strads predict` (cli/predict_command.h, apps/linear/linear_model_predictor.h,
// apps/mf/mf_predictor.h): a Lasso round trip through an embedded cluster, accuracy on hand-written
// classification models, the label conventions, and the errors a user can cause.
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "apps/builtin_apps.h"
#include "apps/linear.pb.h"
#include "apps/linear/linear_model_predictor.h"
#include "apps/mf.pb.h"
#include "apps/mf/array_mtx.h"
#include "apps/mf/mf_app.h"
#include "apps/mf/mf_predictor.h"
#include "apps/mf/mf_reference.h"
#include "apps/mf/ratings.h"
#include "cli/client.h"
#include "cli/embedded_cluster.h"
#include "cli/predict_command.h"
#include "common/data_loader.h"
#include "common/protocol.h"
#include "test/app_params_edit.h"
#include "test/cluster_test_util.h"
#include "test/temp_dir.h"

namespace strads {
namespace {

using strads::testing::EditAppParams;

namespace fs = std::filesystem;
using mf::DescribeRatingPredictions;
using mf::LoadFactorModel;
using mf::PredictRatings;
using testing::ReadFile;

fs::path TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / fmt::format("strads-predict-test-{}-{}", getpid(), name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

// A model directory as a job writes it.
fs::path WriteModel(const std::string& name, const std::string& app,
                    const std::string& coefficients) {
  auto dir = TempDir(name);
  WriteFile(dir / "summary.json",
            fmt::format("{{\n  \"app\": \"{}\",\n  \"job_id\": 1\n}}\n", app));
  WriteFile(dir / "coefficients.tsv", coefficients);
  return dir;
}

Dataset Load(const fs::path& path) {
  auto data = LoadDataset(DataSource{path.string(), "", ""}, RowRange{});
  REQUIRE(data.ok());
  return std::move(*data);
}

// A dense regression problem y = X b + noise, kept in memory and written as libsvm.
struct Problem {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  fs::path path;
};

Problem MakeRegression(const fs::path& dir, int rows, int features) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0, 1);
  Problem p;
  p.path = dir / "regression.svm";
  std::string text;
  for (int i = 0; i < rows; ++i) {
    std::vector<double> row(features, 0.0);
    double y = 0.1 * normal(rng);
    text.clear();
    for (int j = 0; j < features; ++j) {
      if (uniform(rng) < 0.5) row[j] = normal(rng);
      if (j < 5) y += (j + 1) * 0.5 * row[j];
    }
    p.x.push_back(row);
    p.y.push_back(y);
  }
  std::ofstream out(p.path);
  for (int i = 0; i < rows; ++i) {
    out << fmt::format("{:.17g}", p.y[i]);
    for (int j = 0; j < features; ++j) {
      if (p.x[i][j] != 0) out << fmt::format(" {}:{:.17g}", j + 1, p.x[i][j]);
    }
    out << "\n";
  }
  REQUIRE(out.good());
  return p;
}

}  // namespace

TEST_CASE("predict: lasso round trip through an embedded job matches the job's own loss") {
  const auto dir = TempDir("lasso");
  const Problem problem = MakeRegression(dir, 120, 40);
  const Dataset data = Load(problem.path);
  const double lambda = 0.05 * (data.x.transpose() * data.y).cwiseAbs().maxCoeff();

  proto::JobSpec spec = testing::BaseSpec("lasso", problem.path.string(), lambda);
  spec.mutable_dynamic()->set_tolerance(1e-10);
  spec.set_max_seconds(60);  // a bound: never hang the test

  const auto model_dir = dir / "model";
  double objective = 0;
  {
    EmbeddedCluster cluster(1, 2, testing::FastOptions());
    InProcTransport transport(cluster.hub(), "predict-test");
    Client client(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
    const uint64_t id = testing::SubmitJob(client, "predict-test", spec);
    const proto::JobInfo info = testing::WaitForJob(client, id);
    REQUIRE(info.state() == proto::JOB_SUCCEEDED);
    CHECK(info.converged());
    REQUIRE(client.FetchResults(id, model_dir.string()).ok());
    objective = info.objective();
  }

  auto model = LoadLinearModel(model_dir.string(), LinearModelKind::kRegression);
  REQUIRE(model.ok());
  CHECK_FALSE(model->classification());
  REQUIRE_FALSE(model->weights.empty());
  double l1 = 0;
  std::vector<double> w(problem.x[0].size(), 0.0);
  for (const auto& [j, value] : model->weights) {
    l1 += std::abs(value);
    w.at(j) = value;
  }

  auto predictions = Predict(*model, data, problem.path.string());
  REQUIRE(predictions.ok());
  REQUIRE(predictions->rows() == problem.y.size());
  const double n = static_cast<double>(problem.y.size());
  const double from_objective = std::sqrt(2 * (objective - lambda * l1) / n);
  CHECK(predictions->rmse == Approx(from_objective).epsilon(1e-8));

  // Independently, from the dense rows kept in memory.
  double sum_sq = 0;
  for (size_t i = 0; i < problem.y.size(); ++i) {
    double s = 0;
    for (size_t j = 0; j < w.size(); ++j) s += problem.x[i][j] * w[j];
    CHECK(predictions->scores[i] == Approx(s).epsilon(1e-12).margin(1e-12));
    sum_sq += (problem.y[i] - s) * (problem.y[i] - s);
  }
  CHECK(predictions->rmse == Approx(std::sqrt(sum_sq / n)).epsilon(1e-12));
  CHECK(DescribePredictions(*predictions) ==
        fmt::format("predict: 120 rows, RMSE {:.6g}", predictions->rmse));

  // The whole command writes one real value per row.
  const auto out = dir / "preds.txt";
  CHECK(PredictCommand(BuiltinApps(), {"--model", model_dir.string(), "--data",
                                       problem.path.string(), "--output", out.string()}) ==
        kExitOk);
  std::istringstream lines(ReadFile(out));
  std::string line;
  size_t i = 0;
  for (; std::getline(lines, line); ++i) {
    REQUIRE(i < predictions->scores.size());
    CHECK(std::stod(line) == predictions->scores[i]);
  }
  CHECK(i == problem.y.size());
  fs::remove_all(dir);
}

TEST_CASE("predict: svm accuracy on a hand-written model, extra features and ids ignored") {
  // Model: w1 = 1, w2 = -2, w9 = 5 (feature 9 is beyond the data's 4 columns: ignored).
  const auto model_dir = WriteModel("svm", "svm", "1\t1\n2\t-2\n9\t5\n");
  const auto dir = TempDir("svm-data");
  // Feature 4 is not in the model: weight 0. Scores: 1, -2, 0 (-> +1), -1, 3, 4.
  WriteFile(dir / "d.svm",
            "+1 1:1\n"
            "-1 2:1\n"
            "-1 4:7\n"         // score 0 predicts +1: wrong
            "+1 1:1 2:1\n"     // score -1: wrong
            "1 1:3 4:-100\n"   // score 3
            "-1 1:2 2:-1\n");  // score 4: wrong
  auto model = LoadLinearModel(model_dir.string(), LinearModelKind::kClassifier);
  REQUIRE(model.ok());
  CHECK(model->classification());
  auto p = Predict(*model, Load(dir / "d.svm"), "d.svm");
  REQUIRE(p.ok());
  CHECK(p->rows() == 6);
  CHECK(p->correct == 3);
  CHECK(p->accuracy == Approx(0.5));
  CHECK(p->convention == LabelConvention::kPlusMinusOne);
  CHECK(p->scores == std::vector<double>{1, -2, 0, -1, 3, 4});
  CHECK(DescribePredictions(*p) == "predict: 6 rows, accuracy 0.5000 (3/6)");
  REQUIRE(WritePredictions(*p, (dir / "out.txt").string()).ok());
  CHECK(ReadFile(dir / "out.txt") == "1\n-1\n1\n-1\n1\n1\n");
  fs::remove_all(model_dir);
  fs::remove_all(dir);
}

TEST_CASE("predict: logistic with 0/1 labels writes 0/1 labels and probabilities") {
  const auto model_dir = WriteModel("logistic", "logistic", "2\t0.5\n1\t-1\n");
  const auto dir = TempDir("logistic-data");
  WriteFile(dir / "d.svm", "1 2:2\n0 1:1\n0 2:4\n1 1:2\n");  // scores 1, -1, 2, -2
  const auto out = dir / "out.txt";
  CHECK(PredictCommand(BuiltinApps(), {"--model", model_dir.string(), "--data",
                                       (dir / "d.svm").string(), "--output", out.string()}) ==
        kExitOk);
  auto model = LoadLinearModel(model_dir.string(), LinearModelKind::kProbabilisticClassifier);
  REQUIRE(model.ok());
  auto p = Predict(*model, Load(dir / "d.svm"), "d.svm");
  REQUIRE(p.ok());
  CHECK(p->convention == LabelConvention::kZeroOne);
  CHECK(p->correct == 2);
  auto sigma = [](double s) { return 1 / (1 + std::exp(-s)); };
  std::istringstream lines(ReadFile(out));
  const std::vector<std::pair<std::string, double>> expected{
      {"1", sigma(1)}, {"0", sigma(-1)}, {"1", sigma(2)}, {"0", sigma(-2)}};
  for (const auto& [label, probability] : expected) {
    std::string got_label;
    double got_probability;
    REQUIRE(lines >> got_label >> got_probability);
    CHECK(got_label == label);
    CHECK(got_probability == Approx(probability).epsilon(1e-15));
  }
  std::string rest;
  CHECK_FALSE(lines >> rest);
  fs::remove_all(model_dir);
  fs::remove_all(dir);
}

TEST_CASE("predict: labels other than +-1 or 0/1 are errors naming the row") {
  const auto model_dir = WriteModel("labels", "svm", "1\t1\n");
  auto model = LoadLinearModel(model_dir.string(), LinearModelKind::kClassifier);
  REQUIRE(model.ok());
  const auto dir = TempDir("labels-data");
  WriteFile(dir / "bad.svm", "1 1:1\n-1 1:1\n2 1:1\n");
  auto bad = Predict(*model, Load(dir / "bad.svm"), "bad.svm");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
  CHECK(bad.status().message() == "bad.svm: row 3: label 2 is not -1, +1, 0 or 1");

  WriteFile(dir / "mixed.svm", "1 1:1\n0 1:1\n1 1:1\n-1 1:1\n");
  auto mixed = Predict(*model, Load(dir / "mixed.svm"), "mixed.svm");
  REQUIRE_FALSE(mixed.ok());
  CHECK_THAT(mixed.status().message(), Catch::StartsWith("mixed.svm: row 4: label -1 mixes"));

  // Regression takes any label.
  model->kind = LinearModelKind::kRegression;
  CHECK(Predict(*model, Load(dir / "bad.svm"), "bad.svm").ok());
  fs::remove_all(model_dir);
  fs::remove_all(dir);
}

TEST_CASE("predict: a malformed coefficients.tsv line is an error naming file:line") {
  struct Case {
    std::string text;
    int line;
    std::string what;
  };
  for (const auto& c :
       std::vector<Case>{{"1\t0.5\n2\tx\n", 2, "bad value 'x'"},
                         {"1\t0.5\n\n0\t1\n", 3, "bad feature id '0'"},
                         {"1\t0.5\n3\n", 2, "expected 'feature_id<TAB>value'"},
                         {"1\t0.5\n2\t1\t7\n", 2, "expected"},
                         {"1.5\t2\n", 1, "bad feature id"},
                         {"1\tnan\n", 1, "bad value"},
                         {"4\t1\n2\t1\n4\t2\n", 3, "feature id 4 repeats line 1"}}) {
    CAPTURE(c.text);
    const auto dir = WriteModel("malformed", "lasso", c.text);
    auto model = LoadLinearModel(dir.string(), LinearModelKind::kRegression);
    REQUIRE_FALSE(model.ok());
    CHECK(model.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(model.status().message(),
               Catch::StartsWith(
                   fmt::format("{}:{}: {}", (dir / "coefficients.tsv").string(), c.line, c.what)));
    fs::remove_all(dir);
  }
}

TEST_CASE(
    "predict: missing model directory or files are NotFound naming them, bad summary.json "
    "invalid") {
  const auto missing = fs::temp_directory_path() / "strads-predict-test-no-such-model";
  auto none = LoadLinearModel(missing.string(), LinearModelKind::kRegression);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == StatusCode::kNotFound);
  CHECK_THAT(none.status().message(), Catch::Contains(missing.string()));

  auto dir = TempDir("partial");
  WriteFile(dir / "summary.json", R"({"app": "lasso"})");
  auto no_coefficients = LoadLinearModel(dir.string(), LinearModelKind::kRegression);
  REQUIRE_FALSE(no_coefficients.ok());
  CHECK(no_coefficients.status().code() == StatusCode::kNotFound);
  CHECK_THAT(no_coefficients.status().message(),
             Catch::Contains((dir / "coefficients.tsv").string()));

  fs::remove(dir / "summary.json");
  WriteFile(dir / "coefficients.tsv", "1\t1\n");
  auto no_summary = ReadModelApp(dir.string());
  REQUIRE_FALSE(no_summary.ok());
  CHECK(no_summary.status().code() == StatusCode::kNotFound);
  CHECK_THAT(no_summary.status().message(), Catch::Contains((dir / "summary.json").string()));

  for (const char* summary : {R"({"app": 3})", R"({"objective": 1})", "{not json"}) {
    CAPTURE(summary);
    WriteFile(dir / "summary.json", summary);
    auto bad = ReadModelApp(dir.string());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(bad.status().message(), Catch::StartsWith((dir / "summary.json").string() + ": "));
  }
  // A model of an app without predict (lda) is a usage error, not a file error.
  WriteFile(dir / "summary.json", R"({"app": "lda"})");
  WriteFile(dir / "d.svm", "1 1:1\n");
  CHECK(PredictCommand(BuiltinApps(), {"--model", dir.string(), "--data",
                                       (dir / "d.svm").string()}) == kExitUsage);
  fs::remove_all(dir);
}

TEST_CASE("predict: command exit codes, 2 for usage and 1 for file errors") {
  const auto model_dir = WriteModel("exit", "lasso", "1\t1\n");
  const auto dir = TempDir("exit-data");
  WriteFile(dir / "d.svm", "1 1:1\n");
  const std::string data = (dir / "d.svm").string();
  const std::string model = model_dir.string();
  CHECK(PredictCommand(BuiltinApps(), {"--help"}) == kExitOk);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data}) == kExitOk);
  CHECK(PredictCommand(BuiltinApps(), {"--data", data}) == kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model}) == kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data, "--bogus"}) == kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data, "extra"}) == kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data, "--format", "csv"}) ==
        kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data, "--format", "mm"}) ==
        kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data, "--labels", data}) ==
        kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model + "-missing", "--data", data}) ==
        kExitJobFailed);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data + ".missing"}) ==
        kExitJobFailed);
  CHECK(PredictCommand(BuiltinApps(), {"--model", model, "--data", data, "--output",
                                       (dir / "no-such-dir" / "p.txt").string()}) ==
        kExitJobFailed);
  fs::remove_all(model_dir);
  fs::remove_all(dir);
}

// --- mf models: W.mtx and H.mtx ---

namespace {

// An mf model directory as the mf app writes it: summary.json and the files Assemble makes from
// the members' pieces (here two shards of W, out of order, and one block of H; the training mean
// and, if given, the rows and columns without training ratings, 0-based).
fs::path WriteMfModel(const std::string& name, const Eigen::MatrixXd& w, const Eigen::MatrixXd& h,
                      double mean = 0, const std::vector<double>& unseen_rows = {},
                      const std::vector<double>& unseen_cols = {}) {
  auto dir = TempDir(name);
  WriteFile(dir / "summary.json", "{\"app\": \"mf\", \"rank\": 2}\n");
  auto piece = [](const char* factor, const Eigen::MatrixXd& m, Eigen::Index first,
                  Eigen::Index rows) {
    proto::OutputPiece p;
    p.set_name(factor);
    p.set_first(static_cast<uint64_t>(first));
    p.set_width(static_cast<uint32_t>(m.cols()));
    for (Eigen::Index i = first; i < first + rows; ++i) {
      for (Eigen::Index t = 0; t < m.cols(); ++t) p.add_values(m(i, t));
    }
    return p;
  };
  proto::JobSpec spec;
  EditAppParams<proto::MfSpec>(spec, [&](auto& p) { p.set_rank(static_cast<uint32_t>(w.cols())); });
  std::vector<proto::OutputPiece> pieces = {piece("W", w, 1, w.rows() - 1),
                                            piece("H", h, 0, h.rows()), piece("W", w, 0, 1)};
  auto ids = [&](const char* name, const std::vector<double>& values) {
    proto::OutputPiece& p = pieces.emplace_back();
    p.set_name(name);
    p.set_width(1);
    p.mutable_values()->Add(values.begin(), values.end());
  };
  ids("mean", {mean});
  if (!unseen_rows.empty()) ids("unseen_rows", unseen_rows);
  if (!unseen_cols.empty()) ids("unseen_cols", unseen_cols);
  auto files = mf::MfApp().Assemble(spec, pieces);
  REQUIRE(files.ok());
  for (const auto& file : *files) WriteFile(dir / file.name(), file.content());
  return dir;
}

}  // namespace

TEST_CASE("predict: an mf model predicts w_i^T h_j per rating in file order, with the RMSE") {
  Eigen::MatrixXd w(3, 2), h(2, 2);
  w << 1, 2, 0.5, -1, 0, 3;
  h << 2, 1, -1, 0.25;
  const auto model_dir = WriteMfModel("mf", w, h);
  auto model = LoadFactorModel(model_dir.string());
  REQUIRE(model.ok());
  CHECK(model->W == w);
  CHECK(model->H == h);

  const auto dir = TempDir("mf-data");
  // Entries in any order; the size line need not be the model's.
  WriteFile(dir / "r.mtx",
            "%%MatrixMarket matrix coordinate real general\n% comment\n3 2 3\n"
            "3 2 1\n1 1 4\n2 2 -1\n");
  auto p = PredictRatings(*model, (dir / "r.mtx").string());
  REQUIRE(p.ok());
  REQUIRE(p->values.size() == 3);
  CHECK(p->values[0] == 0.75);  // (0, 3) . (-1, 0.25)
  CHECK(p->values[1] == 4.0);   // (1, 2) . (2, 1)
  CHECK(p->values[2] == -0.75);
  const double rmse = std::sqrt((0.25 * 0.25 + 0 + 0.25 * 0.25) / 3.0);
  CHECK(std::abs(p->rmse - rmse) < 1e-15);
  CHECK(DescribeRatingPredictions(*p) == fmt::format("predict: 3 ratings, RMSE {:.6g}", rmse));

  const auto out = dir / "p.txt";
  CHECK(PredictCommand(BuiltinApps(), {"--model", model_dir.string(), "--data",
                                       (dir / "r.mtx").string(), "--output", out.string()}) ==
        kExitOk);
  CHECK(ReadFile(out) == "0.75\n4\n-0.75\n");
  fs::remove_all(model_dir);
  fs::remove_all(dir);
}

TEST_CASE("predict: an mf model from the CCD++ reference reproduces its training RMSE") {
  const auto dir = TempDir("mf-reference");
  std::string text = "%%MatrixMarket matrix coordinate real general\n20 15 60\n";
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0.0, 5.0);
  for (int e = 0; e < 60; ++e) {
    text += fmt::format("{} {} {}\n", e % 20 + 1, (e * 7) % 15 + 1, unit(rng));
  }
  WriteFile(dir / "train.mtx", text);
  auto ratings = mf::LoadRatings((dir / "train.mtx").string());
  REQUIRE(ratings.ok());
  mf::MfOptions options;
  options.rank = 3;
  options.iterations = 4;
  auto solved = mf::SolveCcdReference(*ratings, options);
  REQUIRE(solved.ok());
  REQUIRE(mf::WriteArrayMtx(solved->model.W, (dir / "W.mtx").string()).ok());
  REQUIRE(mf::WriteArrayMtx(solved->model.H, (dir / "H.mtx").string()).ok());
  WriteFile(dir / "summary.json", R"({"app": "mf"})");
  auto model = LoadFactorModel(dir.string());
  REQUIRE(model.ok());
  auto p = PredictRatings(*model, (dir / "train.mtx").string());
  REQUIRE(p.ok());
  CHECK(p->values.size() == 60);
  CHECK(std::abs(p->rmse - solved->train_rmse) <= 1e-12 * solved->train_rmse);
  fs::remove_all(dir);
}

TEST_CASE("predict: an mf model predicts the training mean where it had no training ratings") {
  Eigen::MatrixXd w(3, 2), h(3, 2);
  w << 1, 2, 0, 0, 0, 3;
  h << 2, 1, -1, 0.25, 0, 0;
  // Row 2 and column 3 (1-based) had no ratings; the mean was 2.5.
  const auto model_dir = WriteMfModel("mf-unseen", w, h, 2.5, {1}, {2});
  CHECK(ReadFile(model_dir / "unseen.txt") ==
        "# mf: rows and columns without training ratings (1-based); their predictions are the "
        "mean\nmean 2.5\nrow 2\ncolumn 3\n");
  auto model = LoadFactorModel(model_dir.string());
  REQUIRE(model.ok());
  REQUIRE(model->coverage.has_value());
  CHECK(model->coverage->empty_rows == 1);
  CHECK(model->coverage->empty_cols == 1);
  const auto dir = TempDir("mf-unseen-data");
  WriteFile(dir / "r.mtx",
            "%%MatrixMarket matrix coordinate real general\n3 3 4\n"
            "1 1 4\n2 1 3\n1 3 2\n3 2 0.75\n");
  auto p = PredictRatings(*model, (dir / "r.mtx").string());
  REQUIRE(p.ok());
  CHECK(p->values == std::vector<double>{4.0, 2.5, 2.5, 0.75});
  CHECK(p->by_mean == 2);
  CHECK(std::abs(p->rmse - std::sqrt((0.25 + 0.25) / 4)) < 1e-15);
  CHECK_THAT(DescribeRatingPredictions(*p),
             Catch::EndsWith("(2 by the training mean: their row or column had no training "
                             "ratings)"));

  // Malformed unseen.txt files are errors naming file:line.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"mean 1\nrow 4\n", "unseen.txt:2: bad row id '4' (the model has 3)"},
      {"mean 1\ncolumn 0\n", "unseen.txt:2: bad column id '0' (the model has 3)"},
      {"mean 1\nmean 2\n", "unseen.txt:2: a second 'mean'"},
      {"mean nan\n", "unseen.txt:1: bad mean 'nan'"},
      {"cell 1\n", "unseen.txt:1: expected 'mean', 'row' or 'column', got 'cell'"},
      {"row 1\n", "unseen.txt: no 'mean' line"},
  };
  for (const auto& [text, what] : bad) {
    CAPTURE(text);
    WriteFile(model_dir / "unseen.txt", text);
    auto broken = LoadFactorModel(model_dir.string());
    REQUIRE_FALSE(broken.ok());
    CHECK_THAT(broken.status().message(), Catch::Contains(what));
  }
  // A model directory from before unseen.txt predicts w_i^T h_j everywhere.
  fs::remove(model_dir / "unseen.txt");
  model = LoadFactorModel(model_dir.string());
  REQUIRE(model.ok());
  CHECK_FALSE(model->coverage.has_value());
  p = PredictRatings(*model, (dir / "r.mtx").string());
  REQUIRE(p.ok());
  CHECK(p->values == std::vector<double>{4.0, 0.0, 0.0, 0.75});
  fs::remove_all(dir);
  fs::remove_all(model_dir);
}

TEST_CASE("predict: mf ratings outside the model or malformed are errors naming file:line") {
  const Eigen::MatrixXd w = Eigen::MatrixXd::Ones(3, 2), h = Eigen::MatrixXd::Ones(2, 2);
  const auto model_dir = WriteMfModel("mf-bad", w, h);
  auto model = LoadFactorModel(model_dir.string());
  REQUIRE(model.ok());
  const auto dir = TempDir("mf-bad-data");
  const std::string header = "%%MatrixMarket matrix coordinate real general\n";
  struct Case {
    std::string text;
    std::string what;
  };
  const std::vector<Case> cases = {
      {header + "4 2 2\n1 1 1\n4 1 1\n",
       "r.mtx:4: entry (4, 1) is outside the model's 3 rows x 2 columns"},
      {header + "3 3 1\n1 3 1\n", "r.mtx:3: entry (1, 3) is outside the model's"},
      {header + "3 2 1\n0 1 1\n", "r.mtx:3: entry (0, 1) is outside the 3 x 2 matrix"},
      {header + "3 2 1\n1 1 x\n", "r.mtx:3: expected a rating 'i j v'"},
      {header + "3 2 2\n1 1 1\n", "r.mtx:2: declares 2 entries but the file has 1"},
      {header + "3 2 0\n", "r.mtx: no ratings"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    WriteFile(dir / "r.mtx", c.text);
    auto p = PredictRatings(*model, (dir / "r.mtx").string());
    REQUIRE_FALSE(p.ok());
    CHECK(p.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(p.status().message(), Catch::Contains(c.what));
  }

  // The command: usage errors exit 2, file errors 1.
  WriteFile(dir / "ok.mtx", header + "3 2 1\n1 1 1\n");
  const std::string data = (dir / "ok.mtx").string(), m = model_dir.string();
  CHECK(PredictCommand(BuiltinApps(), {"--model", m, "--data", data}) == kExitOk);
  CHECK(PredictCommand(BuiltinApps(), {"--model", m, "--data", data, "--labels", data}) ==
        kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", m, "--data", data, "--format", "libsvm"}) ==
        kExitUsage);
  CHECK(PredictCommand(BuiltinApps(), {"--model", m, "--data", (dir / "r.mtx").string()}) ==
        kExitJobFailed);
  fs::remove(model_dir / "H.mtx");
  auto missing = LoadFactorModel(m);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK_THAT(missing.status().message(), Catch::Contains((model_dir / "H.mtx").string()));
  CHECK(PredictCommand(BuiltinApps(), {"--model", m, "--data", data}) == kExitJobFailed);
  // W and H of different ranks.
  REQUIRE(mf::WriteArrayMtx(Eigen::MatrixXd::Ones(2, 3), (model_dir / "H.mtx").string()).ok());
  auto ranks = LoadFactorModel(m);
  REQUIRE_FALSE(ranks.ok());
  CHECK_THAT(ranks.status().message(), Catch::Contains("W.mtx has 2 columns but H.mtx has 3"));
  fs::remove_all(model_dir);
  fs::remove_all(dir);
}

}  // namespace strads
