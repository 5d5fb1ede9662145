// The apps STRADS ships, in one registry: what the executables' main()s and the embedded cluster
// pass to the CLI, the coordinator and the members.
#pragma once

#include "engine/app_registry.h"

namespace strads {

// lasso, logistic, svm (dynamic engine); lda, mf (static engine).
AppRegistry BuiltinApps();

}  // namespace strads
