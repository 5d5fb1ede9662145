// The job flags shared by `strads run` and `strads submit`, parsed into a JobSpec.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// The options of a job for `app`, with their defaults and help texts.
boost::program_options::options_description JobOptionsDescription();

// Parses `args` (the words after the app name) into a spec for `app`. Unknown flags, bad values
// and bad paths give InvalidArgument with the reason. The data path is made absolute, the flags as
// given are recorded in spec.flags. Options not in JobOptionsDescription are allowed only when
// listed in `extra` (they are parsed by the caller), e.g. --output, --wait.
Result<proto::JobSpec> ParseJobSpec(const std::string& app, const std::vector<std::string>& args,
                                    const boost::program_options::options_description& extra,
                                    boost::program_options::variables_map* extra_values);

}  // namespace strads
