// worker/engine_counter_event.h: the one event of the worker protocol (worker/event.h,
// which encodes and decodes it) that a cell run keeps as it came (run/aggregate.h), in
// a header of its own so that keeping it needs none of the protocol.
#pragma once

#include <cstdint>
#include <string>

namespace storh::worker {

// An engine counter (storh::EngineCounter, plugin ABI 1.7) of one step or load phase;
// `items` are the step's items, or every transaction the phase ran (warm-up and failed
// included).
struct EngineCounterEvent {
  std::string op;
  std::uint64_t items = 0;
  std::string name;
  std::string unit;
  double total = 0;
  bool repeats = false;
  bool operator==(const EngineCounterEvent&) const = default;
};

}  // namespace storh::worker
