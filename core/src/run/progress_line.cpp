#include "run/progress_line.h"

#include <cmath>

#include <fmt/format.h>

namespace storh::run {

std::string eta_text(double elapsed_seconds, std::size_t done, std::size_t total) {
  if (done == 0 || done >= total || !(elapsed_seconds >= 0)) return "";
  const double left =
      elapsed_seconds / static_cast<double>(done) * static_cast<double>(total - done);
  const auto seconds = static_cast<long long>(std::llround(left));
  if (seconds < 60) return fmt::format("eta {}s", seconds);
  if (seconds < 3600) return fmt::format("eta {}m{:02}s", seconds / 60, seconds % 60);
  return fmt::format("eta {}h{:02}m", seconds / 3600, seconds % 3600 / 60);
}

}  // namespace storh::run
