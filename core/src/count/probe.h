// count/probe.h: counting one step inside the worker (`__worker --count=...`).
//
// A Probe brackets a measured step: constructed right before the step, stopped right
// after it. Off (the timed repeats), it does nothing. With the syscalls instrument it
// takes count::Snapshots; with the instructions instrument it turns callgrind's
// collection on for the step and dumps it under the operation's name. stop() emits
// one event line per reported step (worker/events.h):
//   {"event":"counters","op":"put","items":1000,"counters":{"fsync":1000,...}}
// with "dump": N (the 1-based callgrind dump number) instead of counters under the
// instructions instrument; the host reads the instructions from that dump.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "count/counters.h"

namespace storh::count {

// What a worker counts: nothing (timed runs) or one instrument.
struct ProbeMode {
  std::optional<Instrument> instrument;
};

class Probe {
 public:
  using Emit = void (*)(const nlohmann::ordered_json& event);

  explicit Probe(ProbeMode mode) noexcept;  // starts counting
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Stops counting; when `report` (the step succeeded and is selected), emits the
  // counters event. Never throws; an event that cannot be built is dropped.
  void stop(std::string_view operation, std::uint64_t items, bool report, Emit emit) noexcept;

 private:
  ProbeMode mode_;
  Snapshot before_;
};

// The next callgrind dump number of this process (1-based), advanced by each report.
std::size_t dumps_so_far() noexcept;

}  // namespace storh::count
