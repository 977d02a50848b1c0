// Status and Result<T>: errors that cross input boundaries.
//
// A user's mistake (bad config key, malformed trace line, bad flag) is a
// Status with code kInvalidInput whose message starts with "file:line[:col]: "
// and quotes the offending text; the CLI prints it and exits with code 2.
// Our own bugs are CHECK failures, never a Status.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <glog/logging.h>

namespace sim {

class Status {
 public:
  enum class Code { kOk, kInvalidInput, kNotFound, kIoError, kUnsupported };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidInput(std::string msg) { return Status(Code::kInvalidInput, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Unsupported(std::string msg) { return Status(Code::kUnsupported, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const { return ok() ? "OK" : message_; }

 private:
  Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or a non-OK Status.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status s) : v_(std::move(s)) {     // NOLINT
    CHECK(!std::get<Status>(v_).ok()) << "Result built from an OK status";
  }
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & {
    CHECK(ok()) << status().message();
    return std::get<T>(v_);
  }
  const T& value() const& {
    CHECK(ok()) << status().message();
    return std::get<T>(v_);
  }
  T&& value() && {
    CHECK(ok()) << status().message();
    return std::get<T>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> v_;
};

#define FS_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::sim::Status _st = (expr);           \
    if (!_st.ok()) return _st;            \
  } while (0)

#define FS_CONCAT_INNER(a, b) a##b
#define FS_CONCAT(a, b) FS_CONCAT_INNER(a, b)
#define FS_ASSIGN_OR_RETURN(lhs, expr) FS_ASSIGN_OR_RETURN_IMPL(FS_CONCAT(_res_, __LINE__), lhs, expr)
#define FS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

}  // namespace sim
