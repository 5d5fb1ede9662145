// Helpers of the binary-classification app tests (logistic_test.cc, svm_test.cc): a
// small separable-ish libsvm problem with gaps in the feature ids, an in-process job runner (the
// pattern of engine_cluster_test.cc) and an independent gradient for KKT checks.
// Not thread-safe (tests are single-threaded); every helper REQUIREs on failure.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/client.h"
#include "cli/embedded_cluster.h"
#include "common/data_loader.h"
#include "common/protocol.h"
#include "test/cluster_test_util.h"

namespace strads::testing {

namespace fs = std::filesystem;

inline fs::path TestDir() {
  static const fs::path dir = [] {
    auto d = fs::temp_directory_path() / ("strads-binary-test-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// `rows` rows; features use only ids 1, 3, 5, ... (even ids never occur: gaps) up to 2*features;
// labels sign(x^T w_true + noise) with a few flipped, written as "1"/"-1" or "1"/"0".
// `bad_label`, if non-zero, replaces the label of row `bad_row` (1-based).
inline std::string WriteProblem(const std::string& name, bool zero_one, double bad_label = 0,
                                int bad_row = 0, int rows = 160, int features = 60) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit;
  std::vector<double> truth(features);
  for (int j = 0; j < features; ++j) truth[j] = j % 6 == 0 ? normal(rng) * 2 : 0.0;
  const auto path = (TestDir() / name).string();
  std::ofstream out(path);
  for (int i = 1; i <= rows; ++i) {
    std::ostringstream line;
    double score = 0.3 * normal(rng);
    for (int j = 0; j < features; ++j) {
      if (unit(rng) > 0.3) continue;
      const double v = std::round(normal(rng) * 1000) / 1000;
      score += truth[j] * v;
      line << ' ' << 2 * j + 1 << ':' << v;
    }
    bool positive = score > 0;
    if (unit(rng) < 0.05) positive = !positive;
    double label = positive ? 1.0 : (zero_one ? 0.0 : -1.0);
    if (i == bad_row) label = bad_label;
    out << label << line.str() << '\n';
  }
  REQUIRE(out.good());
  return path;
}

inline Dataset Load(const std::string& path) {
  auto data = LoadDataset(DataSource{path, "", ""}, RowRange{});
  REQUIRE(data.ok());
  return std::move(data).value();
}

inline Eigen::VectorXd SignedLabels(const Dataset& d) {
  Eigen::VectorXd y = d.y;
  for (int64_t i = 0; i < y.size(); ++i) y[i] = y[i] > 0 ? 1.0 : -1.0;
  return y;
}

// dLoss/dw computed directly: X^T d where d_i = dl(y_i, m_i)/dm_i, m = X w.
inline Eigen::VectorXd Gradient(const Dataset& d, const Eigen::VectorXd& w,
                                const std::function<double(double, double)>& dl) {
  const Eigen::VectorXd y = SignedLabels(d);
  const Eigen::VectorXd m = d.x * w;
  Eigen::VectorXd r(m.size());
  for (int64_t i = 0; i < m.size(); ++i) r[i] = dl(y[i], m[i]);
  return d.x.transpose() * r;
}

// The KKT conditions at `w`, an optimum of loss + lambda * penalty, from the loss's gradient `g`,
// to 1e-9 of `lmax`: with the l1 penalty g_j = -lambda sign(w_j) where w_j != 0 and |g_j| <= lambda
// elsewhere; with the l2 penalty (`l2`) g = -lambda w. Returns the number of nonzeros of `w`.
inline int CheckKkt(const Eigen::VectorXd& g, const Eigen::VectorXd& w, double lambda, double lmax,
                    bool l2 = false) {
  int nonzeros = 0;
  for (int64_t j = 0; j < g.size(); ++j) {
    nonzeros += w[j] != 0;
    if (l2) {
      CHECK(std::abs(g[j] + lambda * w[j]) <= 1e-9 * lmax);
    } else if (w[j] != 0) {
      CHECK(std::abs(g[j] + lambda * (w[j] > 0 ? 1 : -1)) <= 1e-9 * lmax);
    } else {
      CHECK(std::abs(g[j]) <= lambda + 1e-9 * lmax);
    }
  }
  return nonzeros;
}

struct JobOutcome {
  proto::JobInfo info;
  nlohmann::json summary;  // empty unless the job succeeded
};

// Submits `spec` to `cluster`, waits for the end and fetches summary.json.
inline JobOutcome RunJob(EmbeddedCluster& cluster, const proto::JobSpec& spec) {
  InProcTransport transport(cluster.hub(), "test-client");
  Client c(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
  const uint64_t id = SubmitJob(c, "test-client", spec);
  JobOutcome out{WaitForJob(c, id), {}};
  if (out.info.state() == proto::JOB_SUCCEEDED) {
    const auto dir = TestDir() / ("out-" + std::to_string(id));
    REQUIRE(c.FetchResults(id, dir.string()).ok());
    std::ifstream in(dir / "summary.json");
    out.summary = nlohmann::json::parse(in);
  }
  return out;
}

// The submit's error, or "" when the coordinator accepted the job.
inline std::string SubmitError(EmbeddedCluster& cluster, const proto::JobSpec& spec) {
  InProcTransport transport(cluster.hub(), "submit-client");
  Client c(transport, kCoordinatorId, kCoordinatorId, std::chrono::seconds(5));
  auto req = MakeEnvelope("submit-client");
  *req.mutable_submit()->mutable_spec() = spec;
  auto reply = c.Call(req);
  return reply.ok() ? "" : reply.status().message();
}

// The cluster shapes and passes a share of the oracle tests (engine at depth 1 = the sequential
// reference's optimum): {schedulers, workers, inner passes}.
struct OracleConfig {
  uint32_t schedulers, workers;
  uint32_t passes;
};
inline constexpr OracleConfig kOracleConfigs[] = {{1, 1, 1}, {2, 2, 1}, {1, 1, 4}, {2, 2, 4}};

inline double RelDiff(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

// The oracle test of a binary-classification app: `spec` (its app, data, lambda and penalty) run
// by the engine on every kOracleConfigs shape and number of passes succeeds, converged, within
// 1e-6 of the reference's objective and at its training accuracy, labels ±1.
inline void CheckEngineReachesReference(const proto::JobSpec& spec, double ref_objective,
                                        double ref_training_accuracy) {
  for (const auto& [schedulers, workers, passes] : kOracleConfigs) {
    CAPTURE(schedulers, workers, passes);
    EmbeddedCluster cluster(schedulers, workers, FastOptions());
    proto::JobSpec run = spec;
    run.mutable_dynamic()->set_inner_passes(passes);
    auto job = RunJob(cluster, run);
    REQUIRE(job.info.state() == proto::JOB_SUCCEEDED);
    CHECK(job.info.converged());
    CHECK(RelDiff(job.info.objective(), ref_objective) < 1e-6);
    CHECK(job.summary["training_accuracy"].get<double>() == Approx(ref_training_accuracy));
    CHECK(job.summary["label_mapping"] == "±1");
  }
}

}  // namespace strads::testing
