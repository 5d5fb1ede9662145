// strads-gen: writes synthetic problems.
//   strads-gen [lasso options] --output FILE
//       a correlated Lasso problem (tools/synthetic_lasso.h) as the libsvm file FILE, and its
//       true coefficients as FILE.truth.tsv;
//   strads-gen ratings [options] --output TRAIN.mtx [--test-output TEST.mtx]
//       a power-law ratings matrix (tools/synthetic_ratings.h) for the mf app, as MatrixMarket.
#include <cstdint>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "common/logging.h"
#include "common/option_default.h"
#include "tools/synthetic_lasso.h"
#include "tools/synthetic_ratings.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

namespace {

int RatingsMain(int argc, char** argv) {
  strads::SyntheticRatingsOptions o;
  int64_t rows, cols, ratings, rank, seed;
  std::string output, test_output;
  po::options_description desc(
      "strads-gen ratings: generate a ratings matrix with Zipf row and column popularity");
  desc.add_options()("help,h", "show this help")(
      "rows", po::value(&rows)->default_value(static_cast<int64_t>(o.rows)), "rows (users)")(
      "cols", po::value(&cols)->default_value(static_cast<int64_t>(o.cols)), "columns (items)")(
      "ratings", po::value(&ratings)->default_value(static_cast<int64_t>(o.ratings)),
      "distinct ratings in train + test, >= rows + cols")(
      "rank", po::value(&rank)->default_value(o.rank), "rank of the planted model")(
      "zipf", strads::ValueWithDefault(&o.zipf, o.zipf),
      "popularity exponent: row/column i drawn with probability ~ 1/(i+1)^zipf")(
      "test-fraction", strads::ValueWithDefault(&o.test_fraction, o.test_fraction),
      "probability that a rating (outside the covering set) goes to the test file")(
      "noise", strads::ValueWithDefault(&o.noise, o.noise), "standard deviation of the noise")(
      "shuffle", po::bool_switch(&o.shuffle),
      "permute row and column ids (default: id order = popularity order)")(
      "seed", po::value(&seed)->default_value(static_cast<int64_t>(o.seed)), "random seed")(
      "output,o", po::value(&output), "training MatrixMarket file (required)")(
      "test-output", po::value(&test_output), "test MatrixMarket file (default: none written)");
  po::variables_map vm;
  if (auto exit_code = strads::tools::ParseToolFlags(argc, argv, desc, "strads-gen ratings",
                                                     "strads-gen ratings --help", &vm)) {
    return *exit_code;
  }
  if (output.empty()) {
    std::cerr << "strads-gen ratings: --output is required\n";
    return 2;
  }
  if (rows < 0 || cols < 0 || ratings < 0 || rank < 0 || rank > UINT32_MAX || seed < 0) {
    std::cerr << "strads-gen ratings: counts and the seed must be non-negative\n";
    return 2;
  }
  o.rows = static_cast<uint64_t>(rows);
  o.cols = static_cast<uint64_t>(cols);
  o.ratings = static_cast<uint64_t>(ratings);
  o.rank = static_cast<uint32_t>(rank);
  o.seed = static_cast<uint64_t>(seed);
  if (strads::Status st = strads::ValidateSyntheticRatingsOptions(o); !st.ok()) {
    std::cerr << "strads-gen ratings: " << st.message() << "\n";
    return 2;
  }
  strads::Logger log = strads::MakeLogger("gen", "0");
  log->info("generating {} x {} ratings ({} cells, rank {}, zipf {}, test fraction {}, seed {})",
            o.rows, o.cols, o.ratings, o.rank, o.zipf, o.test_fraction, o.seed);
  strads::Result<strads::SyntheticRatings> r = strads::GenerateSyntheticRatings(o);
  if (!r.ok()) {
    log->error("{}", r.status().message());
    return 1;
  }
  if (strads::Status st = strads::WriteRatingsMatrixMarket(r->train, r->rows, r->cols, output);
      !st.ok()) {
    log->error("{}", st.message());
    return 1;
  }
  if (!test_output.empty()) {
    if (strads::Status st =
            strads::WriteRatingsMatrixMarket(r->test, r->rows, r->cols, test_output);
        !st.ok()) {
      log->error("{}", st.message());
      return 1;
    }
  }
  log->info("wrote {} ({} ratings){}", output, r->train.size(),
            test_output.empty()
                ? std::string()
                : " and " + test_output + " (" + std::to_string(r->test.size()) + " ratings)");
  return 0;
}

int LassoMain(int argc, char** argv) {
  // Counts are read as signed so that "-5" is an error rather than a huge unsigned number.
  int64_t rows, features, group_size, nonzeros, seed;
  double correlation, density, noise;
  std::string output;
  po::options_description desc(
      "strads-gen [lasso]: generate a synthetic correlated Lasso problem (strads-gen ratings "
      "--help: a power-law ratings matrix)");
  strads::SyntheticLassoOptions defaults;
  desc.add_options()("help,h", "show this help")(
      "rows", po::value(&rows)->default_value(static_cast<int64_t>(defaults.rows)), "samples")(
      "features", po::value(&features)->default_value(static_cast<int64_t>(defaults.features)),
      "features (columns)")("group-size",
                            po::value(&group_size)->default_value(defaults.group_size),
                            "features per correlated group")(
      "correlation", strads::ValueWithDefault(&correlation, defaults.correlation),
      "correlation within a group, in [0, 1]")("density",
                                               strads::ValueWithDefault(&density, defaults.density),
                                               "fraction of nonzero entries per column, in (0, 1]")(
      "nonzeros", po::value(&nonzeros)->default_value(defaults.true_nonzeros),
      "nonzero true coefficients")("noise", strads::ValueWithDefault(&noise, defaults.noise),
                                   "standard deviation of the noise in y")(
      "seed", po::value(&seed)->default_value(static_cast<int64_t>(defaults.seed)), "random seed")(
      "shuffle", po::bool_switch(),
      "permute the columns at random: each group's members scattered over the ids, as correlated "
      "features are in real data (by default a group's members are side by side)")(
      "output,o", po::value(&output), "libsvm file to write (required)");

  po::variables_map vm;
  if (auto exit_code =
          strads::tools::ParseToolFlags(argc, argv, desc, "strads-gen", "strads-gen --help", &vm)) {
    return *exit_code;
  }
  if (output.empty()) {
    std::cerr << "strads-gen: --output is required\n(see strads-gen --help)\n";
    return 2;
  }
  if (rows < 0 || features < 0 || group_size < 0 || group_size > UINT32_MAX || nonzeros < 0 ||
      nonzeros > UINT32_MAX || seed < 0) {
    std::cerr << "strads-gen: counts and the seed must be non-negative (and fit in 32 bits for "
                 "--group-size and --nonzeros)\n";
    return 2;
  }
  strads::SyntheticLassoOptions options;
  options.rows = static_cast<uint64_t>(rows);
  options.features = static_cast<uint64_t>(features);
  options.group_size = static_cast<uint32_t>(group_size);
  options.correlation = correlation;
  options.density = density;
  options.true_nonzeros = static_cast<uint32_t>(nonzeros);
  options.noise = noise;
  options.seed = static_cast<uint64_t>(seed);
  options.shuffle_columns = vm["shuffle"].as<bool>();
  if (strads::Status st = strads::ValidateSyntheticLassoOptions(options); !st.ok()) {
    std::cerr << "strads-gen: " << st.message() << "\n";
    return 2;
  }

  strads::Logger log = strads::MakeLogger("gen", "0");
  log->info(
      "generating {} x {} (group size {}, correlation {}, density {}, {} nonzeros, noise {}, "
      "seed {}{})",
      options.rows, options.features, options.group_size, options.correlation, options.density,
      options.true_nonzeros, options.noise, options.seed,
      options.shuffle_columns ? ", columns shuffled" : "");
  strads::Result<strads::SyntheticLassoProblem> problem = strads::GenerateSyntheticLasso(options);
  if (!problem.ok()) {
    log->error("{}", problem.status().message());
    return 1;
  }
  if (strads::Status st = strads::WriteLibsvmFile(problem->data, output); !st.ok()) {
    log->error("{}", st.message());
    return 1;
  }
  const std::string truth = output + ".truth.tsv";
  if (strads::Status st = strads::WriteTruthFile(*problem, truth); !st.ok()) {
    log->error("{}", st.message());
    return 1;
  }
  log->info("wrote {} ({} nonzeros) and {}", output, problem->data.x.nonZeros(), truth);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "ratings") return RatingsMain(argc - 1, argv + 1);
  if (argc > 1 && std::string(argv[1]) == "lasso") return LassoMain(argc - 1, argv + 1);
  return LassoMain(argc, argv);
}
