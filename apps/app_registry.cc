#include "engine/dynamic_app.h"
#include "apps/lasso/lasso_app.h"
#include "apps/logistic/logistic_app.h"
#include "apps/svm/svm_app.h"

namespace strads {

Result<const DynamicApp*> FindDynamicApp(const std::string& name) {
  static const LassoApp kLasso;
  static const LogisticApp kLogistic;
  static const SvmApp kSvm;
  if (name == kLasso.name()) return static_cast<const DynamicApp*>(&kLasso);
  if (name == kLogistic.name()) return static_cast<const DynamicApp*>(&kLogistic);
  if (name == kSvm.name()) return static_cast<const DynamicApp*>(&kSvm);
  return Status::InvalidArgument("unknown app '" + name + "' (known apps: lasso, logistic, svm)");
}

}  // namespace strads
