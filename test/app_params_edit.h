// EditAppParams: changes the app parameters of a hand-built JobSpec in place, for tests that build
// or vary specs without the options parser:
//   EditAppParams<proto::LdaSpec>(spec, [](proto::LdaSpec& p) { p.set_topics(0); });
// A spec without parameters starts from a default message; one that holds another app's message
// throws, since the test would otherwise silently replace it.
#pragma once

#include <stdexcept>

#include "engine/app_params.h"
#include "strads.pb.h"

namespace strads::testing {

template <class T, class Edit>
void EditAppParams(proto::JobSpec& spec, Edit&& edit) {
  T params;
  if (spec.has_params()) {
    Status st = UnpackAppParams(spec, params);
    if (!st.ok()) throw std::logic_error("EditAppParams: " + st.message());
  }
  edit(params);
  SetAppParams(params, spec);
}

}  // namespace strads::testing
