// The job flags shared by `strads run` and `strads submit`, parsed into a JobSpec.
//
// Flags come in groups: common to every app (--data, --seed, --workers, ...), the dynamic
// engine's (lasso, logistic, svm: --lambda, --chord-size, --schedule, ...), the static engine's
// (lda, mf: --iterations, --balance, ...) and each static app's own (lda: --topics, ...; mf:
// --algorithm, ...). An app accepts its groups only: a flag of another app is an error, not
// silently ignored.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// The options of a job for `app` with their defaults and help texts; every group for an empty
// or unknown app.
boost::program_options::options_description JobOptionsDescription(const std::string& app = "");

// Parses `args` (the words after the app name) into a spec for `app`. Unknown flags, bad values
// and bad paths give InvalidArgument with the reason. Paths are made absolute, the flags as given
// are recorded in spec.flags. Options not in JobOptionsDescription(app) are allowed only when
// listed in `extra` (they are parsed by the caller), e.g. --output, --wait.
Result<proto::JobSpec> ParseJobSpec(const std::string& app, const std::vector<std::string>& args,
                                    const boost::program_options::options_description& extra,
                                    boost::program_options::variables_map* extra_values);

}  // namespace strads
