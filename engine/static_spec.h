// The static engine's part of a job spec (JobSpec.static_engine, proto/strads.proto): its
// options, how they fill the message, and its validation. Used through engine/job_spec.h for
// every app whose engine is ENGINE_STATIC.
#pragma once

#include <boost/program_options.hpp>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// --iterations, --balance, --blocks-per-worker, --eval-every, with defaults and help.
boost::program_options::options_description StaticEngineOptions();

// Sets spec.static_engine() from options parsed with StaticEngineOptions().
Status StaticSpecFromOptions(const boost::program_options::variables_map& options,
                             proto::JobSpec& spec);

// Checks spec.static_engine(): present, iterations and blocks in range. (--balance is checked by
// the apps, which cut the data by it.)
Status ValidateStaticSpec(const proto::JobSpec& spec);

}  // namespace strads
