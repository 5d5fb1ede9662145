// Test support for errors as values (common/status.h): the value of a Result that must be OK, and
// the check that a Status is the InvalidArgument a test expects. For tests only (they REQUIRE and
// CHECK, Catch2 style).
#pragma once

#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "common/status.h"

namespace strads::testing {

// The value of `result`, which must be OK (the test fails with its error otherwise).
template <typename T>
T Must(Result<T> result) {
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return std::move(result).value();
}

// `status` is an InvalidArgument whose message contains `text`.
inline void CheckInvalidArgument(const Status& status, const std::string& text) {
  CHECK(status.code() == StatusCode::kInvalidArgument);
  CHECK_THAT(status.message(), Catch::Contains(text));
}

}  // namespace strads::testing
