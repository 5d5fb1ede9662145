// strads-lasso-reference: runs the sequential reference Lasso solver
// (strads::lasso::SolveLassoReference, apps/linear/lasso_reference.h) on a data file and writes
//   DIR/trace.csv     `seconds,updates,objective`, one row per full sweep (seconds since the start
//                     of the solve: data loading is excluded)
//   DIR/summary.json  objective, updates, sweeps, seconds (solve only), converged, violation,
//                     lambda_max, load_seconds, rows, features, nonzeros, lambda, tolerance, data
// It is the baseline of the Lasso benchmark (deploy/bench-lasso.sh, docs/performance.md).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "apps/linear/lasso_reference.h"
#include "common/data_loader.h"
#include "common/option_default.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

constexpr char kTool[] = "strads-lasso-reference";

int main(int argc, char** argv) {
  std::string data_path, format, labels, output;
  double lambda = -1, tolerance = 1e-6, max_seconds = 0;
  uint64_t max_sweeps = 0;
  po::options_description desc(
      "strads-lasso-reference: sequential reference Lasso solver (cyclic coordinate descent)");
  desc.add_options()("help,h", "show this help")("data", po::value(&data_path),
                                                 "data file (libsvm/svmlight or MatrixMarket)")(
      "format", po::value(&format)->default_value(""),
      "libsvm or mm (default: .mtx/.mm is mm, else libsvm)")(
      "labels", po::value(&labels)->default_value(""), "MatrixMarket only: label file")(
      "lambda", po::value(&lambda), "regularisation strength lambda >= 0 (required)")(
      "tolerance", strads::ValueWithDefault(&tolerance, 1e-6),
      "converged when max_j KKT violation <= tolerance * lambda_max")(
      "max-seconds", po::value(&max_seconds)->default_value(0), "time limit (0 = none)")(
      "max-sweeps", po::value(&max_sweeps)->default_value(0), "full-sweep limit (0 = none)")(
      "output", po::value(&output), "directory for trace.csv and summary.json (required)");
  po::variables_map vm;
  if (auto exit_code = strads::tools::ParseToolFlags(argc, argv, desc, "strads-lasso-reference",
                                                     "--help", &vm)) {
    return *exit_code;
  }
  if (data_path.empty() || !vm.count("lambda") || output.empty()) {
    std::cerr << "strads-lasso-reference: --data, --lambda and --output are required\n";
    return 2;
  }

  const auto load_start = std::chrono::steady_clock::now();
  strads::DataSource src{data_path, format, labels};
  strads::Result<strads::Dataset> data = strads::LoadDataset(src, strads::RowRange{});
  if (!data.ok()) return strads::tools::ToolFailure(kTool, data.status().message());
  const double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  std::cout << fmt::format("loaded {} rows x {} features ({} nonzeros) in {:.3f} s\n",
                           data->x.rows(), data->x.cols(), data->x.nonZeros(), load_seconds);

  strads::lasso::LassoReferenceOptions options;
  options.lambda = lambda;
  options.tolerance = tolerance;
  options.max_seconds = max_seconds;
  options.max_sweeps = max_sweeps;
  std::string trace = "seconds,updates,objective\n";
  strads::Result<strads::lasso::LassoReferenceResult> result =
      strads::lasso::SolveLassoReference(*data, options, [&](const strads::lasso::TracePoint& p) {
        trace += fmt::format("{:.6f},{},{:.17g}\n", p.seconds, p.updates, p.objective);
      });
  if (!result.ok()) return strads::tools::ToolFailure(kTool, result.status().message());

  std::error_code ec;
  std::filesystem::create_directories(output, ec);
  if (ec) {
    std::cerr << "strads-lasso-reference: cannot create " << output << ": " << ec.message() << "\n";
    return 1;
  }
  {
    std::ofstream f(std::filesystem::path(output) / "trace.csv");
    f << trace;
    if (!f) return strads::tools::ToolFailure(kTool, "cannot write " + output + "/trace.csv");
  }
  uint64_t nonzeros = 0;
  for (Eigen::Index j = 0; j < result->beta.size(); ++j) nonzeros += result->beta[j] != 0;
  {
    std::ofstream f(std::filesystem::path(output) / "summary.json");
    f << "{\n"
      << fmt::format("  \"app\": \"lasso-reference\",\n")
      << fmt::format("  \"objective\": {:.17g},\n", result->objective)
      << fmt::format("  \"converged\": {},\n", result->converged ? "true" : "false")
      << fmt::format("  \"violation\": {:.17g},\n", result->violation)
      << fmt::format("  \"lambda_max\": {:.17g},\n", result->lambda_max)
      << fmt::format("  \"updates\": {},\n", result->updates)
      << fmt::format("  \"sweeps\": {},\n", result->sweeps)
      << fmt::format("  \"seconds\": {:.6f},\n", result->seconds)
      << fmt::format("  \"load_seconds\": {:.6f},\n", load_seconds)
      << fmt::format("  \"nonzeros\": {},\n", nonzeros)
      << fmt::format("  \"rows\": {},\n", data->x.rows())
      << fmt::format("  \"features\": {},\n", data->x.cols())
      << fmt::format("  \"lambda\": {:.17g},\n", lambda)
      << fmt::format("  \"tolerance\": {:.17g},\n", tolerance)
      << "  \"data\": " << JsonString(data_path) << "\n"
      << "}\n";
    if (!f) return strads::tools::ToolFailure(kTool, "cannot write " + output + "/summary.json");
  }
  std::cout << fmt::format(
      "{}: objective {:.12g}, violation {:.3g}, {} updates, {} sweeps, {} nonzeros, solve {:.3f} s "
      "(+ load {:.3f} s), lambda_max {:.6g}\n",
      result->converged ? "converged" : "stopped (not converged)", result->objective,
      result->violation, result->updates, result->sweeps, nonzeros, result->seconds, load_seconds,
      result->lambda_max);
  return 0;
}
