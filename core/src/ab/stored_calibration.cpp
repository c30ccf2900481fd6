#include "ab/stored_calibration.h"

#include <fmt/format.h>

#include "run/progress_line.h"

namespace storh::ab {

StoredCalibration apply_stored_calibration(const Calibration& calibration, const std::string& file,
                                           const std::string& suite_file,
                                           const result::ResultFile& current,
                                           gate::GateOptions& options) {
  const double seconds = calibration_seconds({&current}, calibration.pairs);
  const Recalibration how{
      fmt::format("storh-host calibrate {} --pairs={} --calibration={}",
                  suite_file.empty() ? "SUITE.toml" : suite_file, calibration.pairs, file),
      seconds > 0 ? fmt::format("about {} at this run's pace", run::duration_text(seconds)) : ""};
  StoredCalibration applied;
  applied.warning = calibration_mismatch(calibration, file, current.environment,
                                         "the configured thresholds apply", how);
  if (applied.warning.empty()) applied.raised = raise_to_calibrated_floors(options, calibration);
  return applied;
}

}  // namespace storh::ab
