// App: what every STRADS app tells the system about itself, whatever its engine.
//
// An app is known in one place: it is added to an AppRegistry (engine/app_registry.h) once, and
// the CLI, the coordinator and the members learn everything about it from there — its name, its
// engine, its job options (boost::program_options), how those options fill its message of the
// JobSpec (proto/apps/<app>.proto, packed into JobSpec.params: engine/app_params.h), how that
// message is validated, and the result files it writes. The engine-specific primitives come from
// the engine interfaces that derive from App: DynamicApp (engine/dynamic_app.h) and StaticApp
// (engine/static_app.h).
// Thread-safety: an App is immutable once registered; every method is const and reentrant.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

class DynamicApp;
class ModelPredictor;
class StaticApp;

class App {
 public:
  virtual ~App() = default;

  // The name users type (`strads run NAME`) and JobSpec.app carries.
  virtual std::string name() const = 0;
  virtual proto::Engine engine() const = 0;
  // One line for `strads --help`, e.g. "L1-regularised least squares".
  virtual std::string summary() const = 0;

  // The app's own job options, with defaults and help texts. The options every job has and the
  // engine's are added by the registry's parser (engine/job_spec.h); an option of another app is
  // an error, never silently ignored.
  virtual boost::program_options::options_description Options() const = 0;
  // Sets the app's message of `spec` (JobSpec.params, SetAppParams) from parsed options (Options()
  // among them); paths through AbsolutePath, so they mean what they meant where the user typed
  // them. Errors: InvalidArgument with the reason (e.g. a required flag missing).
  virtual Status FromOptions(const boost::program_options::variables_map& options,
                             proto::JobSpec& spec) const = 0;
  // Checks the app's parameters of `spec` (e.g. lambda >= 0), and that its message is set.
  virtual Status Validate(const proto::JobSpec& spec) const = 0;
  // The files a successful job writes besides trace.csv and summary.json, for messages such as
  // "results in out/ (coefficients.tsv, ...)".
  virtual std::vector<std::string> OutputFiles() const = 0;
  // The files of `spec` the app's members read besides --data (and the engine's --labels), e.g.
  // lda's --vocab; empty ones left out. Members check every input file against their data roots
  // before a job starts (JobSpecPaths, engine/job_spec.h), so a file option that is not listed
  // here would escape that check. Default: none.
  virtual std::vector<std::string> InputFiles(const proto::JobSpec& spec) const { return {}; }
  // Replaces each non-empty path of InputFiles(spec) in `spec` by `map(path)` (a member reads the
  // files it opened beneath its data roots by their descriptors' paths). Default: none.
  virtual void MapInputFiles(proto::JobSpec& spec,
                             const std::function<std::string(const std::string&)>& map) const {}

  // What `strads predict` does with this app's models (engine/model_predictor.h); nullptr: the
  // app has no predict.
  virtual const ModelPredictor* predictor() const { return nullptr; }

  // The engine interface of this app: exactly one of them is not null, the one engine() names.
  virtual const DynamicApp* AsDynamic() const { return nullptr; }
  virtual const StaticApp* AsStatic() const { return nullptr; }
};

// The files a successful job of `app` writes: the app's OutputFiles(), then the engine's own
// (static: subrounds.csv), then trace.csv and summary.json.
std::vector<std::string> ResultFileNames(const App& app);

// The path as an absolute path (relative to the current directory); unchanged if empty, if it
// names in-memory data ("memory:NAME", common/memory_matrix.h) or if it cannot be resolved. Job
// paths are resolved where the user typed them, not on the daemons.
std::string AbsolutePath(const std::string& path);

}  // namespace strads
