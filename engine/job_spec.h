// A job spec from command-line words, and its validation: the options every job has, plus its
// engine's (engine/dynamic_spec.h, engine/static_spec.h), plus its app's (App::Options), all
// learned from an AppRegistry. `strads run|submit` parse with it; the coordinator validates every
// submitted spec with it (a spec may come from any client, not only this parser).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "common/status.h"
#include "engine/app_registry.h"
#include "strads.pb.h"

namespace strads {

// The options every job has: --data, --max-seconds, --schedulers, --workers, --seed.
boost::program_options::options_description CommonJobOptions();

// The options of a job of `app` (common, its engine's, its own) with defaults and help texts;
// for an empty or unknown app, every group of every app, each option listed once.
boost::program_options::options_description JobOptionsDescription(const AppRegistry& apps,
                                                                  const std::string& app = "");

// Parses `args` (the words after the app name) into a spec for `app`. Unknown apps, unknown flags
// (a flag of another app among them), bad values and missing required flags give InvalidArgument
// with the reason; the spec is validated (ValidateJobSpec). Paths are made absolute; the flags as
// given are recorded in spec.flags. Options not in JobOptionsDescription(app) are allowed only
// when listed in `extra` (they are parsed by the caller), e.g. --output, --wait.
Result<proto::JobSpec> ParseJobSpec(const AppRegistry& apps, const std::string& app,
                                    const std::vector<std::string>& args,
                                    const boost::program_options::options_description& extra,
                                    boost::program_options::variables_map* extra_values);

// Limits on a job spec. Any client may submit one, and the coordinator keeps every spec in memory,
// in its journal and in its status replies, so a spec is bounded before anything else is looked
// at (a 40 MB --data once made every status reply 161 MB and starved the coordinator's heartbeats).
inline constexpr size_t kMaxJobSpecBytes = size_t{64} << 10;  // the whole spec, serialized
inline constexpr size_t kMaxJobPathBytes = 4096;              // each file it names (PATH_MAX)
inline constexpr size_t kMaxJobNameBytes = 64;                // its app's name
inline constexpr size_t kMaxJobFlags = 128;                   // entries of its flags
inline constexpr size_t kMaxJobFlagBytes = 4096;              // each flag's name and value
inline constexpr uint32_t kMaxJobMembers = 4096;              // --schedulers, --workers

// Ok when `spec` is within the limits above; else InvalidArgument naming the field, its size and
// the limit ("--data is 41943040 bytes long: at most 4096 (the limit on a path in a job spec)").
// Looks at sizes only, never echoes the oversized text.
Status CheckJobSpecLimits(const AppRegistry& apps, const proto::JobSpec& spec);

// Checks a spec: its limits (CheckJobSpecLimits), a known app, --data, the options every job has,
// the engine's parameters and the app's (App::Validate). InvalidArgument with the first problem
// found.
Status ValidateJobSpec(const AppRegistry& apps, const proto::JobSpec& spec);

// Every file a member may read for `spec`: --data, the dynamic engine's --labels and the app's
// App::InputFiles (e.g. lda's --vocab), the empty ones left out; members check them against their
// DataRoots (common/data_roots.h) before a job starts. An unknown app names only --data.
std::vector<std::string> JobSpecPaths(const AppRegistry& apps, const proto::JobSpec& spec);

// Replaces each path of JobSpecPaths(apps, spec) in `spec` by `map(path)`. A dynamic spec's data
// format is made explicit first (it follows the extension of --data when not given), since the
// new path may have none.
void MapJobSpecPaths(const AppRegistry& apps, proto::JobSpec& spec,
                     const std::function<std::string(const std::string&)>& map);

}  // namespace strads
