#include "ab/stored_calibration.h"

namespace storh::ab {

StoredCalibration apply_stored_calibration(const Calibration& calibration, const std::string& file,
                                           const std::string& suite_file,
                                           const result::ResultFile& current,
                                           gate::GateOptions& options) {
  const Recalibration how = recalibration_for({suite_file.empty() ? "SUITE.toml" : suite_file},
                                              calibration.pairs, file, {&current});
  StoredCalibration applied;
  applied.warning = calibration_mismatch(calibration, file, current.environment,
                                         "the configured thresholds apply", how);
  if (applied.warning.empty()) applied.raised = raise_to_calibrated_floors(options, calibration);
  return applied;
}

}  // namespace storh::ab
