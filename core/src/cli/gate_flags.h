// cli/gate_flags.h: --threshold and --counter, read one way by every command that
// gates (gate, ci, ab, calibrate).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gate/gate.h"
#include "util/expected.h"

namespace storh::cli {

// What the --threshold and --counter values said, in the order given.
struct GateFlagValues {
  std::optional<double> threshold_percent;  // the last --threshold=PCT, for every metric
  std::vector<gate::MetricThreshold> metric_thresholds;    // --threshold=KEY=PCT
  std::vector<gate::CounterTolerance> counter_tolerances;  // --counter=NAME=PCT
};

// --threshold=10 (every metric) or --threshold=doc.put=20 (one metric, or every cell
// of it): the key is everything before the last '=', so qualified keys work
// (--threshold=cache.cold[validation=hash]=25). --counter=fsync=0: a counter's allowed
// growth per item, percent; a value without a name before its '=' is refused. The
// error names the flag and the value. Ranges are the caller's to check (gate::validate,
// ab::validate).
Expected<GateFlagValues> read_gate_flags(const std::vector<std::string>& thresholds,
                                         const std::vector<std::string>& counters);

}  // namespace storh::cli
