// count/probe.h: counting one step inside the worker (`__worker --count=...`).
//
// A Probe brackets a measured step: constructed right before the step, stopped right
// after it. Off (the timed repeats), it does nothing. With the syscalls instrument it
// takes count::Snapshots; with the instructions instrument it turns callgrind's
// collection on for the step and dumps it under the operation's name. stop() returns
// what a reported step counted, which the worker sends as its "counters" event
// (worker/event.h): the syscall deltas, or under the instructions instrument the
// 1-based callgrind dump number, from which the host reads the instructions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "count/counters.h"

namespace storh::count {

// What a worker counts: nothing (timed runs) or one instrument.
struct ProbeMode {
  std::optional<Instrument> instrument;
};

// What one reported step counted: deltas (syscalls) or a dump number (instructions),
// and whether child processes ended during the step (their work is in neither).
struct Counted {
  Deltas deltas;
  std::optional<std::size_t> dump;
  bool children = false;
};

class Probe {
 public:
  explicit Probe(ProbeMode mode) noexcept;  // starts counting
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Stops counting; when `report` (the step succeeded and is selected) and counting is
  // on, returns what the step counted, and under instructions dumps callgrind's
  // counts under `operation`'s name. Never throws; counts that cannot be kept (out of
  // memory) are dropped.
  std::optional<Counted> stop(std::string_view operation, bool report) noexcept;

 private:
  ProbeMode mode_;
  Snapshot before_;
  std::uint64_t children_before_ = 0;
};

// The next callgrind dump number of this process (1-based), advanced by each report.
std::size_t dumps_so_far() noexcept;

}  // namespace storh::count
