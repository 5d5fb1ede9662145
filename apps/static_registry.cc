#include "apps/lda/lda_app.h"
#include "apps/mf/mf_app.h"
#include "engine/static_app.h"

namespace strads {

Result<const StaticApp*> FindStaticApp(const std::string& name) {
  static const lda::LdaApp kLda;
  static const mf::MfApp kMf;
  if (name == kLda.name()) return static_cast<const StaticApp*>(&kLda);
  if (name == kMf.name()) return static_cast<const StaticApp*>(&kMf);
  return Status::NotFound("'" + name + "' is not a static-engine app (those are lda, mf)");
}

}  // namespace strads
