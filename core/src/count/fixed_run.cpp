#include "count/fixed_run.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace storh::count {

std::string fixed_run_value() {
  return fmt::format("{}:{}", kFixedClockOriginMs, kFixedSeed);
}

std::string apply_fixed_run(bool counting) {
  const int rc = counting ? ::setenv(kFixedRunVariable, fixed_run_value().c_str(), 1)
                          : ::unsetenv(kFixedRunVariable);
  if (rc == 0) return "";
  return fmt::format("{} {}: {}", counting ? "setenv" : "unsetenv", kFixedRunVariable,
                     std::strerror(errno));
}

}  // namespace storh::count
