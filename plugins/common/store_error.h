// store_error.h: the exception engine libraries throw, and errno helpers that build it.
//
// Engines are plain C++ libraries: like storh's PHP classes they raise on failure, and
// the plugin adapters turn exceptions into failed measurements (ctx.measure) at the
// ABI edge. Every message says what failed and where: the operation, the path, and the
// system's reason, e.g. `fsync /r/docs/data/2d/.123.ab12cd34.7.tmp: Input/output error`.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace storh::engines {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws StoreError("<what> <path>: <strerror(err)>").
[[noreturn]] void throw_errno(std::string_view what, const std::filesystem::path& path, int err);
// Same with the current errno.
[[noreturn]] void throw_errno(std::string_view what, const std::filesystem::path& path);

}  // namespace storh::engines
