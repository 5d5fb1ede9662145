// AppRegistry: every app the system knows, found by name.
//
// The one place apps are listed (apps/builtin_apps.cc adds each app with one line). The CLI builds
// its options and help from it, the coordinator validates specs and picks the engine through it,
// and the members find the app of a JobStart in it. It is an ordinary object, built in main() and
// passed down by const reference — tests build their own, with stub apps if they like.
// Thread-safety: immutable after the last Add(); const methods may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/app.h"
#include "engine/dynamic_app.h"
#include "engine/static_app.h"

namespace strads {

class AppRegistry {
 public:
  AppRegistry() = default;
  AppRegistry(AppRegistry&&) = default;
  AppRegistry& operator=(AppRegistry&&) = default;

  // Adds `app`. REQUIRES: no app of the same name is registered, and the app implements the
  // interface its engine() names (checked: violating either is a programming error, reported as
  // InvalidArgument).
  Status Add(std::unique_ptr<App> app);

  // The app called `name`, or InvalidArgument "unknown app 'NAME' (known apps: ...)".
  Result<const App*> Find(const std::string& name) const;
  // The app called `name` if it runs on that engine; else the error of Find, or InvalidArgument
  // naming the app's engine.
  Result<const DynamicApp*> FindDynamic(const std::string& name) const;
  Result<const StaticApp*> FindStatic(const std::string& name) const;

  // Every app, in the order they were added.
  const std::vector<std::unique_ptr<App>>& apps() const { return apps_; }
  // "lasso, logistic, svm, lda, mf": the names, in order, for messages.
  std::string Names() const;

 private:
  std::vector<std::unique_ptr<App>> apps_;
};

// The engine's name for messages and help: "dynamic" or "static".
std::string EngineName(proto::Engine engine);

}  // namespace strads
