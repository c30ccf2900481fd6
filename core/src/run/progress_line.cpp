#include "run/progress_line.h"

#include <cmath>

#include <fmt/format.h>

namespace storh::run {

std::string duration_text(double seconds) {
  const long long whole = std::llround(seconds);
  if (whole < 60) return fmt::format("{}s", whole);
  if (whole < 3600) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}h{:02}m", whole / 3600, whole % 3600 / 60);
}

std::string eta_text(std::optional<double> seconds_left) {
  if (!seconds_left || !(*seconds_left >= 0)) return "";
  return "eta " + duration_text(*seconds_left);
}

double cell_units(std::size_t operations, std::uint64_t dataset, std::uint64_t smallest_dataset) {
  const double scale = smallest_dataset > 0 && dataset > smallest_dataset
                           ? static_cast<double>(dataset) / static_cast<double>(smallest_dataset)
                           : 1.0;
  return 1.0 + static_cast<double>(operations) * scale;
}

EtaEstimate::EtaEstimate(std::vector<double> units, std::vector<std::size_t> runs)
    : units_(std::move(units)),
      left_(std::move(runs)),
      seconds_(units_.size(), 0.0),
      timed_(units_.size(), 0) {
  left_.resize(units_.size(), 0);
}

void EtaEstimate::finished(std::size_t cell, double seconds) {
  if (cell >= units_.size()) return;
  if (left_[cell] > 0) --left_[cell];
  seconds_[cell] += seconds;
  ++timed_[cell];
}

void EtaEstimate::dropped(std::size_t cell) {
  if (cell < left_.size() && left_[cell] > 0) --left_[cell];
}

std::optional<double> EtaEstimate::seconds_left() const {
  double timed_seconds = 0;
  double timed_units = 0;
  for (std::size_t c = 0; c < units_.size(); ++c) {
    timed_seconds += seconds_[c];
    timed_units += units_[c] * static_cast<double>(timed_[c]);
  }
  if (timed_units <= 0) return std::nullopt;
  const double pace = timed_seconds / timed_units;
  double left = 0;
  std::size_t runs_left = 0;
  for (std::size_t c = 0; c < units_.size(); ++c) {
    runs_left += left_[c];
    const double per_run =
        timed_[c] > 0 ? seconds_[c] / static_cast<double>(timed_[c]) : units_[c] * pace;
    left += per_run * static_cast<double>(left_[c]);
  }
  if (runs_left == 0) return std::nullopt;
  return left;
}

}  // namespace storh::run
