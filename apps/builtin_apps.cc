#include "apps/builtin_apps.h"

#include <cstdlib>
#include <iostream>

#include "apps/lda/lda_app.h"
#include "apps/linear/lasso_app.h"
#include "apps/linear/logistic_app.h"
#include "apps/linear/svm_app.h"
#include "apps/mf/mf_app.h"

namespace strads {
namespace {

template <typename AppType>
void Register(AppRegistry& apps) {
  // Only a programming error fails here (two apps of one name): stop at once, saying which.
  if (Status st = apps.Add(std::make_unique<AppType>()); !st.ok()) {
    std::cerr << "BuiltinApps: " << st.message() << "\n";
    std::abort();
  }
}

}  // namespace

AppRegistry BuiltinApps() {
  AppRegistry apps;
  // One line per app, in the order of `strads --help`.
  Register<LassoApp>(apps);
  Register<LogisticApp>(apps);
  Register<SvmApp>(apps);
  Register<lda::LdaApp>(apps);
  Register<mf::MfApp>(apps);
  return apps;
}

}  // namespace strads
