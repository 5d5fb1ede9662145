#include "apps/linear/linear_model_options.h"

namespace strads {

namespace po = boost::program_options;

po::options_description LinearModelOptions(const std::string& app, const std::string& penalties,
                                           const std::string& loss_help, bool intercept) {
  po::options_description d(app);
  d.add_options()("lambda", po::value<double>(), "regularisation strength lambda >= 0 (required)")(
      "penalty", po::value<std::string>(), ("penalty: " + penalties).c_str())(
      "positive", po::value<bool>()->implicit_value(true)->zero_tokens(),
      "constrain every coefficient to be >= 0");
  if (!loss_help.empty()) d.add_options()("loss", po::value<std::string>(), loss_help.c_str());
  if (intercept) {
    d.add_options()("intercept", po::value<bool>()->implicit_value(true)->zero_tokens(),
                    "fit an unpenalised intercept, as with X's columns and y centred (done "
                    "implicitly: sparse X stays sparse); summary.json gives it");
  }
  return d;
}

Result<LinearModelFlags> LinearModelFromOptions(const po::variables_map& vm) {
  if (!vm.count("lambda")) return Status::InvalidArgument("--lambda is required");
  LinearModelFlags flags;
  flags.lambda = vm["lambda"].as<double>();
  if (vm.count("penalty")) flags.penalty = vm["penalty"].as<std::string>();
  if (vm.count("loss")) flags.loss = vm["loss"].as<std::string>();
  if (vm.count("intercept")) flags.intercept = vm["intercept"].as<bool>();
  if (vm.count("positive")) flags.positive = vm["positive"].as<bool>();
  return flags;
}

}  // namespace strads
