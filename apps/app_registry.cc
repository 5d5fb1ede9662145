#include "apps/dynamic_app.h"
#include "apps/lasso/lasso_app.h"

namespace strads {

Result<const DynamicApp*> FindDynamicApp(const std::string& name) {
  static const LassoApp kLasso;
  if (name == kLasso.name()) return static_cast<const DynamicApp*>(&kLasso);
  return Status::InvalidArgument("unknown app '" + name + "' (known apps: lasso)");
}

}  // namespace strads
