#include "apps/builtin_apps.h"

#include <cstdlib>
#include <iostream>

#include "apps/lda/lda_app.h"
#include "apps/linear/huber_loss.h"
#include "apps/linear/lasso_loss.h"
#include "apps/linear/linear_model_app.h"
#include "apps/linear/logistic_loss.h"
#include "apps/linear/svm_loss.h"
#include "apps/mf/mf_app.h"

namespace strads {
namespace {

void Register(AppRegistry& apps, std::unique_ptr<App> app) {
  // Only a programming error fails here (two apps of one name): stop at once, saying which.
  if (Status st = apps.Add(std::move(app)); !st.ok()) {
    std::cerr << "BuiltinApps: " << st.message() << "\n";
    std::abort();
  }
}

}  // namespace

AppRegistry BuiltinApps() {
  AppRegistry apps;
  // One line per app, in the order of `strads --help`.
  Register(apps, LinearModel<LassoLoss>());
  Register(apps, LinearModel<LogisticLoss>());
  Register(apps, LinearModel<SvmLoss>());
  Register(apps, LinearModel<HuberLoss>());
  Register(apps, std::make_unique<lda::LdaApp>());
  Register(apps, std::make_unique<mf::MfApp>());
  return apps;
}

}  // namespace strads
