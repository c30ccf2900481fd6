// storh/status.h: the error value every call across the plugin boundary returns.
//
// Contract: a Status is either ok() or carries a human-readable message that says
// where and what ("put: record 17 read back 3 fields, expected 5"). Statuses are
// plain values: cheap to copy when ok, safe to return from noexcept functions.
//
// [[nodiscard]]: a Status returned and dropped is a compiler warning, since a failure
// nobody looks at reads as success. Return it, test it, or, where dropping it is
// right, say so with static_cast<void>(...) and a comment saying why.
#pragma once

#include <string>
#include <utility>

namespace storh {

class [[nodiscard]] Status {
 public:
  // The ok status. Default construction is ok too, so `return {};` means success.
  Status() = default;
  static Status ok_status() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message), true); }

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  // Empty for an ok status.
  const std::string& message() const noexcept { return message_; }

 private:
  Status(std::string message, bool failed) : message_(std::move(message)), failed_(failed) {}

  std::string message_;
  bool failed_ = false;
};

}  // namespace storh
