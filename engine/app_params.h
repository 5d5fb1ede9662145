// An app's parameters in a JobSpec, as the app's own message.
//
// JobSpec.params (proto/strads.proto) is a google.protobuf.Any that holds the app's message,
// declared in a file of its own (proto/apps/<app>.proto, e.g. strads.proto.LdaSpec) and compiled
// into a library that only the app and code that builds its specs link. strads.proto knows no
// app's message, so common/, the engine and the roles compile the same whatever apps exist. An app
// writes its message in App::FromOptions (SetAppParams) and reads it back with AppParams<T>, which
// checks the type: a spec that holds another app's message, or none, is an error value, never a
// default-valued message.
// Thread-safety: free functions over the caller's spec.
#pragma once

#include <google/protobuf/message.h>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// Fills `params` from spec.params. InvalidArgument when the spec holds no app parameters, holds a
// message of another type (the message names both), or holds bytes that do not parse. A spec
// written before protocol version 8 (its app's parameters under the JobSpec tags 23 to 25, e.g.
// in an old journal) is named as such.
Status UnpackAppParams(const proto::JobSpec& spec, google::protobuf::Message& params);

// The app parameters of `spec` as the message T, e.g. AppParams<proto::LdaSpec>(spec). Errors as
// UnpackAppParams.
template <class T>
Result<T> AppParams(const proto::JobSpec& spec) {
  T params;
  STRADS_RETURN_IF_ERROR(UnpackAppParams(spec, params));
  return params;
}

// Sets spec.params to `params`, replacing what it held.
void SetAppParams(const google::protobuf::Message& params, proto::JobSpec& spec);

}  // namespace strads
