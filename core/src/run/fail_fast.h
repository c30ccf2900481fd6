// run/fail_fast.h: skipping the remaining runs of a cell after a failure that
// repeating would only repeat.
//
// A cell that hangs every time would otherwise cost the full timeout on every repeat.
// After a run of a cell times out, is killed by a signal, fails an operation (a wrong
// answer) or exceeds the memory limit, the cell's later runs (warm-ups and repeats)
// are not started: each becomes a Failure of kind "skipped" that names the run which
// stopped the cell. Other failure kinds (the worker exited early, could not load the
// plugin, an interrupt) do not stop a cell. --no-fail-fast turns this off.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "plan/plan.h"
#include "result/result.h"

namespace storh::run {

class FailFast {
 public:
  // Keeps a reference to `plan`. Disabled: never skips.
  FailFast(const plan::Plan& plan, bool enabled) : plan_(plan), enabled_(enabled) {}

  // Records the failure of a run of cell `cell`. When it stops the cell, returns the
  // note for stderr ("storh-host: doc n=1000: repeat 1 timed out ...; skipping its
  // 2 remaining run(s) ..."); else "".
  std::string record(std::size_t cell, const result::Failure& failure);

  // nullopt: start run `repeat` (negative: a warm-up) of cell `cell`. Otherwise the
  // "skipped" failure to record instead of running it.
  std::optional<result::Failure> skip(std::size_t cell, int repeat) const;

 private:
  const plan::Plan& plan_;
  bool enabled_;
  std::map<std::size_t, result::Failure> stopped_;  // cell -> the failure that stopped it
};

// Whether a failure of this kind (timeout, crashed, failed, memory) would only happen
// again in the cell's next run.
bool repeats_would_repeat(result::Failure::Kind kind);

}  // namespace storh::run
