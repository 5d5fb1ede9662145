#include "engine/app_params.h"

#include <string>

#include <google/protobuf/unknown_field_set.h>

namespace strads {
namespace {

// Protocol version 7 and older kept the app's parameters in a oneof of JobSpec tags 23 to 25,
// reserved since; a parsed spec keeps such fields as unknown ones.
bool HasPreVersion8Params(const proto::JobSpec& spec) {
  const google::protobuf::UnknownFieldSet& unknown = spec.GetReflection()->GetUnknownFields(spec);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const int number = unknown.field(i).number();
    if (number >= 23 && number <= 25) return true;
  }
  return false;
}

}  // namespace

Status UnpackAppParams(const proto::JobSpec& spec, google::protobuf::Message& params) {
  const std::string& want = params.GetDescriptor()->full_name();
  if (!spec.has_params()) {
    if (HasPreVersion8Params(spec)) {
      return Status::InvalidArgument(
          "the spec holds its app's parameters as STRADS wrote them before protocol version 8 "
          "(JobSpec tags 23-25), which this version cannot read: submit the job again");
    }
    return Status::InvalidArgument("the spec has no app parameters (expected " + want + ")");
  }
  std::string held;
  if (!google::protobuf::Any::ParseAnyTypeUrl(spec.params().type_url(), &held)) {
    return Status::InvalidArgument("the spec's app parameters have a malformed type URL '" +
                                   spec.params().type_url() + "' (expected " + want + ")");
  }
  if (held != want) {
    return Status::InvalidArgument("the spec's app parameters are a " + held + ", not a " + want +
                                   " (parameters of another app?)");
  }
  if (!spec.params().UnpackTo(&params)) {
    return Status::InvalidArgument("the spec's app parameters do not parse as a " + want);
  }
  return Status::Ok();
}

void SetAppParams(const google::protobuf::Message& params, proto::JobSpec& spec) {
  spec.mutable_params()->PackFrom(params);
}

}  // namespace strads
