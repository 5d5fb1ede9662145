// strads-gen: writes a synthetic correlated Lasso problem (see tools/synthetic_lasso.h) as a
// libsvm file FILE, and its true coefficients as FILE.truth.tsv.
#include <cstdint>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "common/logging.h"
#include "tools/synthetic_lasso.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  // Counts are read as signed so that "-5" is an error rather than a huge unsigned number.
  int64_t rows, features, group_size, nonzeros, seed;
  double correlation, density, noise;
  std::string output;
  po::options_description desc("strads-gen: generate a synthetic correlated Lasso problem");
  strads::SyntheticLassoOptions defaults;
  desc.add_options()("help,h", "show this help")(
      "rows", po::value(&rows)->default_value(static_cast<int64_t>(defaults.rows)), "samples")(
      "features", po::value(&features)->default_value(static_cast<int64_t>(defaults.features)),
      "features (columns)")("group-size",
                            po::value(&group_size)->default_value(defaults.group_size),
                            "features per correlated group")(
      "correlation", po::value(&correlation)->default_value(defaults.correlation),
      "correlation within a group, in [0, 1]")("density",
                                               po::value(&density)->default_value(defaults.density),
                                               "fraction of nonzero entries per column, in (0, 1]")(
      "nonzeros", po::value(&nonzeros)->default_value(defaults.true_nonzeros),
      "nonzero true coefficients")("noise", po::value(&noise)->default_value(defaults.noise),
                                   "standard deviation of the noise in y")(
      "seed", po::value(&seed)->default_value(static_cast<int64_t>(defaults.seed)), "random seed")(
      "output,o", po::value(&output), "libsvm file to write (required)");

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "strads-gen: " << e.what() << "\n(see strads-gen --help)\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
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
  if (strads::Status st = strads::ValidateSyntheticLassoOptions(options); !st.ok()) {
    std::cerr << "strads-gen: " << st.message() << "\n";
    return 2;
  }

  strads::Logger log = strads::MakeLogger("gen", "0");
  log->info(
      "generating {} x {} (group size {}, correlation {}, density {}, {} nonzeros, noise {}, "
      "seed {})",
      options.rows, options.features, options.group_size, options.correlation, options.density,
      options.true_nonzeros, options.noise, options.seed);
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
