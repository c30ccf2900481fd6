// run/progress_line.h: the one-line progress display a run draws on a terminal:
//
//   [3/24] doc n=1000 repeat 2: put  eta 1m05s
//
// run k of N (warm-ups and repeats of every cell, in execution order), the cell, the
// operation the worker is timing (its last "begin" event), and the time left at the
// pace of the runs done so far. cli::draws_progress decides whether there is a line.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>

namespace storh::run {

// The time the remaining runs take at the pace of those done: "eta 1m05s", "eta 42s",
// "eta 2h03m"; empty before the first run has finished (no pace yet) and when
// nothing remains. `elapsed_seconds` is the wall time since the first run started.
std::string eta_text(double elapsed_seconds, std::size_t done, std::size_t total);

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
