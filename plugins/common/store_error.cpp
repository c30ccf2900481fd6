#include "common/store_error.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace storh::engines {

void throw_errno(std::string_view what, const std::filesystem::path& path, int err) {
  throw StoreError(fmt::format("{} {}: {}", what, path.string(), std::strerror(err)));
}

void throw_errno(std::string_view what, const std::filesystem::path& path) {
  throw_errno(what, path, errno);
}

}  // namespace storh::engines
