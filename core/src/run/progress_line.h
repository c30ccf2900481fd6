// run/progress_line.h: the one-line progress display a run draws on a terminal:
//
//   [3/24] doc n=1000 repeat 2: put  eta 1m05s
//
// run k of N (warm-ups and repeats of every cell, in execution order), the cell, the
// operation the worker is timing (its last "begin" event), and the time left
// (EtaEstimate). cli::draws_progress decides whether there is a line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace storh::run {

// "1m05s", "42s", "2h03m": a span of time as a progress line or an estimate shows it.
std::string duration_text(double seconds);

// "eta 1m05s", "eta 42s", "eta 2h03m" for the seconds left; empty for nullopt.
std::string eta_text(std::optional<double> seconds_left);

// The time a run's remaining worker runs will take. Until a cell has been timed, its
// runs are estimated from what the plan knows: one unit per operation the cell times,
// scaled by its dataset over the plan's smallest, plus one unit for the worker's start,
// at the pace (seconds per unit) of every run timed so far. A cell that has been timed
// takes its own mean for its remaining runs. So the first estimate does not take the
// first cell, often the engine with the most operations, as every cell's cost.
class EtaEstimate {
 public:
  // `units[c]`: cell c's units (cell_units); `runs[c]`: its runs in the schedule.
  EtaEstimate(std::vector<double> units, std::vector<std::size_t> runs);
  // A run of `cell` took `seconds`.
  void finished(std::size_t cell, double seconds);
  // A run of `cell` will not happen (skipped after a failure, or no work directory).
  void dropped(std::size_t cell);
  // Seconds left; nullopt before the first run was timed and when none remains.
  std::optional<double> seconds_left() const;

 private:
  std::vector<double> units_;
  std::vector<std::size_t> left_;   // runs not yet finished or dropped, per cell
  std::vector<double> seconds_;     // timed seconds, per cell
  std::vector<std::size_t> timed_;  // timed runs, per cell
};

// A cell's units for EtaEstimate: 1 + operations x dataset / smallest dataset.
double cell_units(std::size_t operations, std::uint64_t dataset, std::uint64_t smallest_dataset);

// Draws and redraws one line ("\r\033[K"); a null stream draws nothing.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream* out) : out_(out) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Draws `text`, then two spaces and the suffix when there is one.
  void show(const std::string& text) {
    if (out_ == nullptr) return;
    *out_ << "\r\033[K" << text << (suffix_.empty() ? "" : "  ") << suffix_ << std::flush;
    shown_ = true;
  }
  // What every line ends with until it is changed: the run's eta_text.
  void set_suffix(std::string suffix) { suffix_ = std::move(suffix); }
  // A line that stays (pgbench -P style), printed above the progress line.
  void print(const std::string& text) {
    if (out_ == nullptr) return;
    clear();
    *out_ << text << '\n' << std::flush;
  }
  void clear() {
    if (out_ != nullptr && shown_) *out_ << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  std::ostream* out_;
  std::string suffix_;
  bool shown_ = false;
};

}  // namespace storh::run
