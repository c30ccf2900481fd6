// engine_counts.h: an engine's own statistics (common/engine_count.h) reported as the
// engine counters of a timed step (RunContext::engine_counter, docs/counters.md).
//
// A store offers them with `std::vector<EngineCount> take_counts()`: what its engine
// counted since the previous call, which starts a new count. measure_with_counts reads
// it before a step (dropping what came before) and after it (the step's counts).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "common/engine_count.h"
#include "storh/engine.h"

namespace storh::engines::bench {

// Each count as one engine counter of `op`, which must have just been measured.
inline void report_engine_counts(RunContext& ctx, std::string_view op,
                                 const std::vector<EngineCount>& counts) noexcept {
  for (const EngineCount& count : counts) {
    ctx.engine_counter(op, count.name, count.unit, count.total, count.repeats);
  }
}

// The store's counts since the previous call when Store has take_counts(), else none.
template <typename Store>
std::vector<EngineCount> take_engine_counts(Store& store) {
  if constexpr (requires { store.take_counts(); }) {
    return store.take_counts();
  } else {
    return {};
  }
}

// How a step's work relates to its counts.
enum class StepWork {
  fixed,  // the step's own work only: a count the engine marks as repeating does
  timed,  // beside a background thread whose work depends on timing: none repeats
};

// ctx.measure(op, items, step) bracketed by the store's take_counts(): the counts over
// the step (and whatever a background thread did meanwhile) become op's engine
// counters. Not for measure_repeated: its warm-up batches would count too.
template <typename Store, typename Step>
Status measure_with_counts(RunContext& ctx, Store& store, std::string_view op, std::uint64_t items,
                           Step&& step, StepWork work = StepWork::fixed) {
  static_cast<void>(take_engine_counts(store));
  STORH_TRY(ctx.measure(op, items, std::forward<Step>(step)));
  std::vector<EngineCount> counts = take_engine_counts(store);
  if (work == StepWork::timed) {
    for (EngineCount& count : counts) count.repeats = false;
  }
  report_engine_counts(ctx, op, counts);
  return {};
}

}  // namespace storh::engines::bench
