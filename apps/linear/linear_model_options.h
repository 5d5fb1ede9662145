// The job options of the linear models on the dynamic engine (LinearModelApp: lasso, logistic,
// svm, ...): --lambda (required), --penalty and, where the loss has a choice, --loss; the app puts
// them into its LinearModelSpec (proto/apps/linear.proto), which JobSpec.params carries.
#pragma once

#include <string>

#include <boost/program_options.hpp>

#include "common/status.h"

namespace strads {

struct LinearModelFlags {
  double lambda = 0;
  std::string penalty;  // as given; empty = the default (l1)
  std::string loss;     // as given; empty = the default
  bool intercept = false;
  bool positive = false;
};

// --lambda, --penalty (help: `penalties`, e.g. "l1 only") and --positive, --loss when
// `loss_help` is not empty, and --intercept when `intercept`, under the caption `app`.
boost::program_options::options_description LinearModelOptions(const std::string& app,
                                                               const std::string& penalties,
                                                               const std::string& loss_help = "",
                                                               bool intercept = false);

// The flags from options parsed with LinearModelOptions; InvalidArgument without --lambda.
Result<LinearModelFlags> LinearModelFromOptions(const boost::program_options::variables_map& vm);

}  // namespace strads
