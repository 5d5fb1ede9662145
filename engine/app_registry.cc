#include "engine/app_registry.h"

#include <algorithm>

namespace strads {

Status AppRegistry::Add(std::unique_ptr<App> app) {
  if (!app) return Status::InvalidArgument("AppRegistry::Add: no app");
  const std::string name = app->name();
  if (Find(name).ok()) return Status::InvalidArgument("app '" + name + "' is registered twice");
  const bool dynamic = app->engine() == proto::ENGINE_DYNAMIC && app->AsDynamic() != nullptr;
  const bool is_static = app->engine() == proto::ENGINE_STATIC && app->AsStatic() != nullptr;
  if (!dynamic && !is_static) {
    return Status::InvalidArgument("app '" + name + "' does not implement its engine's interface");
  }
  apps_.push_back(std::move(app));
  return Status::Ok();
}

Result<const App*> AppRegistry::Find(const std::string& name) const {
  for (const auto& app : apps_) {
    if (app->name() == name) return static_cast<const App*>(app.get());
  }
  return Status::InvalidArgument("unknown app '" + name + "' (known apps: " + Names() + ")");
}

Result<const DynamicApp*> AppRegistry::FindDynamic(const std::string& name) const {
  STRADS_ASSIGN_OR_RETURN(auto app, Find(name));
  if (const DynamicApp* dynamic = (app)->AsDynamic()) return dynamic;
  return Status::InvalidArgument("app '" + name + "' runs on the " + EngineName((app)->engine()) +
                                 " engine, not the dynamic one");
}

Result<const StaticApp*> AppRegistry::FindStatic(const std::string& name) const {
  STRADS_ASSIGN_OR_RETURN(auto app, Find(name));
  if (const StaticApp* s = (app)->AsStatic()) return s;
  return Status::InvalidArgument("app '" + name + "' runs on the " + EngineName((app)->engine()) +
                                 " engine, not the static one");
}

std::string AppRegistry::Names() const {
  std::string names;
  for (const auto& app : apps_) names += (names.empty() ? "" : ", ") + app->name();
  return names;
}

std::string EngineName(proto::Engine engine) {
  switch (engine) {
    case proto::ENGINE_DYNAMIC:
      return "dynamic";
    case proto::ENGINE_STATIC:
      return "static";
    default:
      return "unknown";
  }
}

}  // namespace strads
