#include "cli/gate_flags.h"

#include <fmt/format.h>

#include "cli/args.h"

namespace storh::cli {

Expected<GateFlagValues> read_gate_flags(const std::vector<std::string>& thresholds,
                                         const std::vector<std::string>& counters) {
  GateFlagValues values;
  for (const std::string& value : thresholds) {
    const std::size_t equals = value.rfind('=');
    const std::string number = equals == std::string::npos ? value : value.substr(equals + 1);
    Expected<double> percent = number_flag("threshold", number);
    if (!percent) return Error{percent.error()};
    if (equals == std::string::npos) {
      values.threshold_percent = *percent;
    } else {
      values.metric_thresholds.push_back({value.substr(0, equals), *percent});
    }
  }
  for (const std::string& value : counters) {
    const std::size_t equals = value.rfind('=');
    if (equals == std::string::npos || equals == 0) {
      return Error{fmt::format("--counter: expected NAME=PCT such as fsync=0, got \"{}\"", value)};
    }
    Expected<double> percent = number_flag("counter", value.substr(equals + 1));
    if (!percent) return Error{percent.error()};
    values.counter_tolerances.push_back({value.substr(0, equals), *percent});
  }
  return values;
}

}  // namespace storh::cli
