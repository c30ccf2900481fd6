#include "count/probe.h"

#include <string>

#if defined(STORH_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#endif

namespace storh::count {
namespace {

// Steps run one at a time in a worker (measure calls do not nest), so a plain
// counter is enough.
std::size_t g_dumps = 0;

bool counting_instructions(const ProbeMode& mode) {
  return mode.instrument == Instrument::instructions;
}

}  // namespace

std::size_t dumps_so_far() noexcept {
  return g_dumps;
}

Probe::Probe(ProbeMode mode) noexcept : mode_(mode) {
  if (!mode_.instrument) return;
  if (counting_instructions(mode_)) {
#if defined(STORH_HAVE_CALLGRIND)
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
#endif
    return;
  }
  before_ = take_snapshot();
}

void Probe::stop(std::string_view operation, std::uint64_t items, bool report, Emit emit) noexcept {
  if (!mode_.instrument) return;
  Snapshot after;
  if (counting_instructions(mode_)) {
#if defined(STORH_HAVE_CALLGRIND)
    CALLGRIND_TOGGLE_COLLECT;
#endif
  } else {
    after = take_snapshot();
  }
  if (!report) return;
  try {
    nlohmann::ordered_json event = {{"event", "counters"}, {"op", operation}, {"items", items}};
    if (counting_instructions(mode_)) {
#if defined(STORH_HAVE_CALLGRIND)
      const std::string name(operation);
      CALLGRIND_DUMP_STATS_AT(name.c_str());
#endif
      event["dump"] = ++g_dumps;
    } else {
      nlohmann::ordered_json counters = nlohmann::ordered_json::object();
      for (const auto& [name, delta] : difference(before_, after)) counters[name] = delta;
      event["counters"] = std::move(counters);
    }
    emit(event);
  } catch (...) {
    // Out of memory while building one line: the host sees no counters for this step.
  }
}

}  // namespace storh::count
