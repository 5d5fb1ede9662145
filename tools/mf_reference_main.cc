// strads-mf-reference: runs a sequential matrix-factorisation solver (apps/mf/mf_reference.h:
// CCD++, SGD or ALS) on MatrixMarket ratings. Writes the trace CSV
//   seconds,iteration,objective,train_rmse,test_rmse
// one row for the initial model and one per iteration (seconds since the start of the solve,
// loading excluded; test_rmse empty without --test), and prints the seconds per iteration. The
// baseline of the static engine's mf benchmark (deploy/bench-static.sh).
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "apps/mf/mf_reference.h"
#include "apps/mf/ratings.h"
#include "common/option_default.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

constexpr char kTool[] = "strads-mf-reference";

int main(int argc, char** argv) {
  std::string data, test_path, algorithm, trace_path, regularization;
  strads::mf::MfOptions options;
  po::options_description desc(
      "strads-mf-reference: sequential matrix factorisation (CCD++ or SGD)");
  desc.add_options()("help,h", "show this help")("data", po::value(&data),
                                                 "training ratings, MatrixMarket (required)")(
      "test", po::value(&test_path), "held-out ratings, MatrixMarket (optional)")(
      "algorithm", po::value(&algorithm)->default_value("ccd"), "ccd (CCD++) | sgd | als")(
      "rank", strads::ValueWithDefault(&options.rank, options.rank), "k")(
      "lambda", strads::ValueWithDefault(&options.lambda, options.lambda), "lambda >= 0")(
      "regularization", po::value(&regularization)->default_value("weighted"),
      "weighted: lambda (sum_i |Omega_i| ||w_i||^2 + sum_j |Omega^j| ||h_j||^2) | plain: "
      "lambda (||W||^2 + ||H||^2)")(
      "iterations", strads::ValueWithDefault(&options.iterations, options.iterations),
      "outer iterations (ccd) or epochs (sgd)")(
      "learning-rate", strads::ValueWithDefault(&options.learning_rate, options.learning_rate),
      "sgd: eta_0")("decay", strads::ValueWithDefault(&options.decay, options.decay),
                    "sgd: eta_t = eta_0 / (1 + decay t)")(
      "inner-iterations", strads::ValueWithDefault(&options.ccd_inner, options.ccd_inner),
      "ccd: inner alternations per rank-one subproblem")(
      "cg-steps", strads::ValueWithDefault(&options.cg_steps, options.cg_steps),
      "als: conjugate-gradient steps per column and iteration")(
      "implicit", po::bool_switch(&options.implicit),
      "als: implicit feedback (confidence 1 + alpha |a|, preference a > 0, over every pair)")(
      "alpha", strads::ValueWithDefault(&options.alpha, options.alpha),
      "implicit: the confidence's slope")(
      "seed", strads::ValueWithDefault(&options.seed, options.seed), "random seed")(
      "trace", po::value(&trace_path), "trace CSV to write (required)");
  po::variables_map vm;
  if (auto exit_code =
          strads::tools::ParseToolFlags(argc, argv, desc, "strads-mf-reference", "--help", &vm)) {
    return *exit_code;
  }
  if (data.empty() || trace_path.empty() ||
      (algorithm != "ccd" && algorithm != "sgd" && algorithm != "als")) {
    std::cerr << "strads-mf-reference: --data and --trace are required, --algorithm is ccd, sgd "
                 "or als\n";
    return 2;
  }

  if (options.implicit && (algorithm != "als" || !test_path.empty())) {
    std::cerr << "strads-mf-reference: --implicit needs --algorithm als and takes no --test\n";
    return 2;
  }

  strads::Result<strads::mf::Regularization> form = strads::mf::ParseRegularization(regularization);
  if (!form.ok()) {
    std::cerr << "strads-mf-reference: --regularization: " << form.status().message() << "\n";
    return 2;
  }
  options.regularization = *form;

  const auto load_start = std::chrono::steady_clock::now();
  strads::Result<strads::mf::Ratings> train =
      strads::mf::LoadRatings(data, strads::mf::EmptyLines::kAllow);
  if (!train.ok()) return strads::tools::ToolFailure(kTool, train.status().message());
  const strads::mf::Coverage coverage = strads::mf::CoverageOf(*train);
  std::optional<strads::mf::Ratings> test;
  if (!test_path.empty()) {
    strads::Result<strads::mf::Ratings> t = strads::mf::LoadRatingsLike(test_path, *train);
    if (!t.ok()) return strads::tools::ToolFailure(kTool, t.status().message());
    test = std::move(t).value();
  }
  std::cout << fmt::format(
      "loaded {} x {} ({} ratings, {} test; {} rows and {} columns without ratings) in {:.3f} s\n",
      train->rows, train->cols, train->nnz(), test ? test->nnz() : 0, coverage.empty_rows,
      coverage.empty_cols,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count());

  std::ofstream trace(trace_path);
  trace << "seconds,iteration,objective,train_rmse,test_rmse\n";
  double last_seconds = 0;
  auto on_iteration = [&](const strads::mf::MfTracePoint& p) {
    const std::string test_rmse =
        test ? fmt::format("{:.10g}", strads::mf::HeldOutRmse(*test, *p.model, coverage))
             : std::string();
    trace << fmt::format("{:.6f},{},{:.12g},{:.10g},{}\n", p.seconds, p.iteration, p.objective,
                         p.train_rmse, test_rmse);
    trace.flush();
    last_seconds = p.seconds;
  };
  strads::Result<strads::mf::MfResult> result =
      algorithm == "ccd"   ? strads::mf::SolveCcdReference(*train, options, on_iteration)
      : algorithm == "sgd" ? strads::mf::SolveSgdReference(*train, options, on_iteration)
                           : strads::mf::SolveAlsReference(*train, options, on_iteration);
  if (!result.ok()) return strads::tools::ToolFailure(kTool, result.status().message());
  if (!trace) return strads::tools::ToolFailure(kTool, "cannot write " + trace_path);
  std::cout << fmt::format(
      "{}: {} iterations in {:.3f} s, {:.4f} s per iteration, objective {:.8g}, train RMSE "
      "{:.6f}{}\n",
      algorithm, result->iterations, last_seconds,
      result->iterations ? last_seconds / result->iterations : 0.0, result->objective,
      result->train_rmse,
      test ? fmt::format(", test RMSE {:.6f}",
                         strads::mf::HeldOutRmse(*test, result->model, coverage))
           : "");
  return 0;
}
