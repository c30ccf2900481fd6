// ab/calibration.h: how noisy each metric of a suite is on this machine, measured by
// A/A pairs (both sides the same plugins), so that gate and ci never set a threshold
// below what a metric's own noise can support, and the report can say what a suite
// is able to detect here ("detectable: 7%").
//
// From an A/A run with n pairs per cell, per metric:
//   noise       robust sd of the per-pair log ratios (1.4826 MAD): the paired noise;
//   detectable  the slowdown an A/B run with `pairs` pairs finds with 80% power at
//               alpha (stats::detectable_percent);
//   floor       the smallest slowdown significant at alpha: the A/B threshold floor;
//   cv          within-run coefficient of variation of the head side's samples, and
//   baseline_detectable  what a stored-baseline comparison of two such runs could
//               detect if the machine did not drift between them (it does: drift
//               between sessions is invisible to a single session, so this is a
//               lower bound, and A/B mode is the recommendation).
// The file is JSON, written deterministically ("storh-calibration" version 1). It
// records the environment it was measured on (the result file's `environment`
// object): noise belongs to a machine, so a calibration applies only where the CPU
// model, core count, kernel and work-directory filesystem are the same. Files written
// before the environment was recorded have none and apply nowhere.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ab/ab_result.h"
#include "compare/render.h"
#include "gate/gate.h"
#include "util/expected.h"

namespace storh::ab {

struct CalibratedMetric {
  std::string key;
  std::size_t pairs = 0;
  double median_seconds = 0;  // of the head side's samples
  double noise = 0;
  double detectable_percent = 0;
  double floor_percent = 0;
  double cv_percent = 0;
  double baseline_detectable_percent = 0;
  std::vector<std::string> warnings;  // too short, too noisy to gate 5%, with the fix
};

struct Calibration {
  std::string suite;
  std::string fingerprint;  // of the head plan
  std::string cpu_model;
  std::string kernel;
  std::string time;
  std::uint32_t pairs = 0;
  double alpha = 0;
  std::vector<CalibratedMetric> metrics;  // sorted by key
  // Where it was measured; nullopt in a file written before it was recorded.
  std::optional<result::Environment> environment;
};

// A stored calibration and the file it came from, read before a run so that a bad
// file costs no run.
struct CalibrationSetting {
  Calibration calibration;
  std::string file;
};

// How to calibrate the machine at hand, for the warning when a calibration is not
// applied: the full command, and roughly how long it takes (empty when unknown).
struct Recalibration {
  std::string command;
  std::string duration;
};

// Empty when `calibration` was measured on a machine like `here` (same CPU model, core
// count, kernel and work-directory filesystem), so it applies. Else the warning: which
// fields differ (both values; or that the file records no environment), that it is not
// applied and what decides instead (`instead`), and how to calibrate here.
std::string calibration_mismatch(const Calibration& calibration, const std::string& file,
                                 const result::Environment& here, std::string_view instead,
                                 const Recalibration& how);

// Roughly how long `storh-host calibrate` with `pairs` A/A pairs per cell takes on this
// machine, in seconds, from the worker runs of `sides` (one run's result file, or both
// sides of an A/B run) of the same plan: calibrating runs each cell 2 x (pairs +
// warm-ups) times. 0 when the runs say nothing (none recorded).
double calibration_seconds(const std::vector<const result::ResultFile*>& sides,
                           std::uint32_t pairs);

// How to calibrate here, for calibration_mismatch: `storh-host calibrate ARGS
// --pairs=PAIRS --calibration=FILE` with secrets masked, and roughly how long it takes
// at the pace of `sides`' runs (calibration_seconds; empty when they say nothing).
Recalibration recalibration_for(std::vector<std::string> calibrate_args, std::uint32_t pairs,
                                const std::string& file,
                                const std::vector<const result::ResultFile*>& sides);

// From an A/A run (ab::run_ab with the same plugins on both sides).
Calibration calibrate(const AbResult& aa, double alpha);

std::string write_calibration(const std::filesystem::path& file, const Calibration& calibration);
Expected<Calibration> read_calibration(const std::filesystem::path& file);

// The stored-baseline gate (`ci` without --base) on calibrated noise: every metric
// whose calibrated baseline_detectable_percent exceeds the threshold `options` would
// apply gets that as its own threshold, so no metric is gated closer than its noise
// supports. Returns the keys raised, in calibration order.
std::vector<std::string> raise_to_calibrated_floors(gate::GateOptions& options,
                                                    const Calibration& calibration);

// Metric key -> noise, for AbGateOptions::calibrated_noise.
std::map<std::string, double> noise_by_key(const Calibration& calibration);

// A table of every metric: noise, detectable, floor, cv, warnings.
std::string render_calibration(const Calibration& calibration, compare::OutputFormat format);

}  // namespace storh::ab
