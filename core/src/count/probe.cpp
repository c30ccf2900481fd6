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
  children_before_ = children_activity();
  if (counting_instructions(mode_)) {
#if defined(STORH_HAVE_CALLGRIND)
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
#endif
    return;
  }
  before_ = take_snapshot();
}

std::optional<Counted> Probe::stop([[maybe_unused]] std::string_view operation,
                                   bool report) noexcept {
  if (!mode_.instrument) return std::nullopt;
  Snapshot after;
  if (counting_instructions(mode_)) {
#if defined(STORH_HAVE_CALLGRIND)
    CALLGRIND_TOGGLE_COLLECT;
#endif
  } else {
    after = take_snapshot();
  }
  const bool children = children_activity() != children_before_;
  if (!report) return std::nullopt;
  try {
    Counted counted;
    counted.children = children;
    if (counting_instructions(mode_)) {
#if defined(STORH_HAVE_CALLGRIND)
      const std::string name(operation);
      CALLGRIND_DUMP_STATS_AT(name.c_str());
#endif
      counted.dump = ++g_dumps;
    } else {
      counted.deltas = difference(before_, after);
    }
    return counted;
  } catch (...) {
    return std::nullopt;  // out of memory: the host sees no counters for this step
  }
}

}  // namespace storh::count
