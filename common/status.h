// Errors as values.
//
// Status carries a code and a human-readable message; Result<T> is a value or a Status. Everything
// recoverable (bad input, network, timeouts, configuration) returns one of these; exceptions from
// libraries are caught at the boundary and turned into a Status. Both types are plain values and
// thread-compatible.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace strads {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad user input: flags, files, dimensions
  kNotFound,
  kIoError,
  kUnavailable,       // a peer cannot be reached
  kDeadlineExceeded,  // a bounded wait ran out
  kCancelled,
  kFailedPrecondition,
  kInternal,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) {
    return {StatusCode::kDeadlineExceeded, std::move(m)};
  }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const { return ok() ? "OK" : message_; }

 private:
  Status(StatusCode c, std::string m) : code_(c), message_(std::move(m)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A T or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  // The error; Status::Ok() when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace strads

// Returns early from the enclosing function with the Status of `expr` when it is not ok.
#define STRADS_RETURN_IF_ERROR(expr) \
  do {                               \
    ::strads::Status _st = (expr);   \
    if (!_st.ok()) return _st;       \
  } while (0)

// Declares or assigns `lhs` from the value of `expr` (a Result<T>), or returns early from the
// enclosing function with its Status when it holds an error:
//   STRADS_ASSIGN_OR_RETURN(Dataset data, LoadDataset(source, rows));
#define STRADS_ASSIGN_OR_RETURN(lhs, expr) \
  STRADS_ASSIGN_OR_RETURN_IMPL(STRADS_STATUS_CONCAT(_strads_result_, __LINE__), lhs, expr)
#define STRADS_STATUS_CONCAT_INNER(a, b) a##b
#define STRADS_STATUS_CONCAT(a, b) STRADS_STATUS_CONCAT_INNER(a, b)
#define STRADS_ASSIGN_OR_RETURN_IMPL(result, lhs, expr) \
  auto result = (expr);                                 \
  if (!result.ok()) return result.status();             \
  lhs = std::move(result).value()
