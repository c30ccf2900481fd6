// run/progress_line.h: the one-line progress display a run draws on a terminal.
#pragma once

#include <ostream>
#include <string>

namespace storh::run {

// Draws and redraws one line ("\r\033[K"); a null stream draws nothing.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream* out) : out_(out) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& text) {
    if (out_ == nullptr) return;
    *out_ << "\r\033[K" << text << std::flush;
    shown_ = true;
  }
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
  bool shown_ = false;
};

}  // namespace storh::run
