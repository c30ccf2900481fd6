// ab/stored_calibration.h: a calibration applied to the stored-baseline gate (`gate
// --calibration`, `ci`), as opposed to the paired A/B verdict.
#pragma once

#include <string>
#include <vector>

#include "ab/calibration.h"
#include "gate/gate.h"
#include "result/result.h"

namespace storh::ab {

// Applied after every other threshold: when `calibration` (read from `file`) was
// measured on the machine `current` ran on, raises each metric's threshold to its
// calibrated floor (raise_to_calibrated_floors) and lists the keys raised; else leaves
// `options` as they are and says why, with the command that calibrates `suite_file`
// here.
struct StoredCalibration {
  std::vector<std::string> raised;
  std::string warning;  // calibration_mismatch's, or empty
};
StoredCalibration apply_stored_calibration(const Calibration& calibration, const std::string& file,
                                           const std::string& suite_file,
                                           const result::ResultFile& current,
                                           gate::GateOptions& options);

}  // namespace storh::ab
