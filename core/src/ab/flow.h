// ab/flow.h: what `storh-host ab`, `calibrate` and `ci --base=DIR` do once their flags
// are read: run both sides in pairs, apply a stored calibration when it was measured on
// this machine, confirm wall-time regressions with fresh pairs, write the A/B file, and
// then judge it, or (calibrating) write the calibration. The command line owns reading
// flags and printing; this folder owns the decisions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ab/ab_result.h"
#include "ab/ab_runner.h"
#include "ab/calibration.h"
#include "ab/verdict.h"
#include "plan/plan.h"

namespace storh::ab {

// Pairs per cell that `calibrate` runs unless told otherwise.
inline constexpr std::uint32_t kDefaultCalibrationPairs = 20;

struct AbFlowOptions {
  std::string command;  // for notes: "ab", "calibrate", "ci"
  plan::Plan base;      // each plan's `repeat` is the pairs per cell
  plan::Plan head;
  // The suite's output; the A/B file and the calibration go beside it by default.
  std::filesystem::path suite_output;
  // The suite's [gate.ab] calibration file, if it names one.
  std::optional<std::filesystem::path> suite_calibration;
  AbRunOptions run;
  std::uint32_t confirm_pairs = 2;  // the confirmation set's pairs per cell
  AbGateOptions gate;
  bool calibrating = false;  // A/A: write a calibration, no verdict, no confirmation
  // A stored calibration, applied once the run shows it belongs to this machine.
  std::optional<CalibrationSetting> calibration;
  // The run's suite and flags as `storh-host calibrate` would repeat them.
  std::vector<std::string> calibrate_args;
  // The A/B file (--output); by default the suite's output with "-ab" added. Calibrating
  // keeps the A/A pairs only when it is given.
  std::optional<std::filesystem::path> output;
  // Calibrating: where the calibration goes (--calibration=FILE, which may replace it),
  // else where the suite keeps it (suite_calibration, or suite_output with
  // "-calibration" added), which a new measurement does not overwrite.
  std::optional<std::filesystem::path> calibration_output;
  // Told the A/B file's path just before it is written (the command notes a directory
  // it creates). May be empty.
  std::function<void(const std::filesystem::path&)> before_writing;
};

// How the flow ended. The caller prints, in this order: "result: PATH" when `written`,
// `error` (as "storh-host COMMAND: ERROR"), and then, when there is no error, the
// calibration or the verdict, and exits with `exit_code`.
struct AbFlowOutcome {
  int exit_code = 0;
  std::string error;
  std::optional<AbResult> result;                // once the pairs ran
  std::optional<std::filesystem::path> written;  // the A/B file, once written
  std::optional<AbOutcome> verdict;              // not calibrating: the judged pairs
  std::size_t failed_runs = 0;                   // worker runs that failed, both sides
  // Calibrating: the calibration, where it was written, and the suite's file it left as
  // it was (the new one is then beside it, with ".new").
  std::optional<Calibration> calibration;
  std::filesystem::path calibration_written;
  std::optional<std::filesystem::path> calibration_kept;
};

// Runs the flow. `notes` takes what must appear while it runs (the confirmation set
// about to run). Fails (exit code 2) before anything runs when the pairs cannot decide
// at the gate's alpha (undecidable_pairs); a file that cannot be written is exit 3.
AbFlowOutcome run_ab_flow(AbFlowOptions options, std::ostream& notes);

// Said before anything runs: pairs that the signed-rank test cannot decide on would
// only end in "too few pairs" for every metric. Empty when the pairs can decide, or
// gate.lenient_too_few asks to run without gating them.
std::string undecidable_pairs(std::uint32_t pairs, const AbGateOptions& gate);

// Gives `gate` the calibrated noise when `calibration` was measured on the machine
// `result` ran on. Else the gate keeps the run's own paired noise and the returned
// warning says why and how to calibrate here (with `calibrate_args`); empty when it
// applies.
std::string apply_calibration(const CalibrationSetting& calibration, const AbResult& result,
                              const std::vector<std::string>& calibrate_args, AbGateOptions& gate);

// The verdict on `result` under `gate`, with `calibration_warning` (apply_calibration's,
// may be empty) among its warnings.
Expected<AbOutcome> verdict_of(const AbResult& result, const AbGateOptions& gate,
                               const std::string& calibration_warning);

}  // namespace storh::ab
