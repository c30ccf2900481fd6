#include "ab/flow.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "stats/paired.h"
#include "util/exit_codes.h"

namespace storh::ab {
namespace {

// "build/bench-ci.json" -> "build/bench-ci-ab.json" (or "-calibration").
std::filesystem::path with_suffix(const std::filesystem::path& output, const std::string& suffix) {
  std::filesystem::path path = output;
  const std::string extension = path.has_extension() ? path.extension().string() : ".json";
  path.replace_filename(path.stem().string() + suffix + extension);
  return path;
}

// Before the verdict: the metrics that regressed on wall time alone get a fresh set of
// pairs of their cells (ab::confirm), so one noisy set cannot fail them. Empty when
// done or nothing needed it, else why the confirmation could not run.
std::string confirm_wall_time(const AbFlowOptions& options, AbResult& result, std::ostream& notes) {
  if (result.head.interrupted) return {};
  Expected<AbOutcome> first = judge(result, options.gate);
  if (!first) return {};  // the verdict reports it
  const std::set<std::string> doubtful = unconfirmed_regressions(*first);
  if (doubtful.empty()) return {};
  notes << fmt::format(
      "storh-host {}: {} metric(s) regressed on wall time alone ({}); confirming with {} fresh "
      "pair(s) of their cell(s)\n",
      options.command, doubtful.size(), fmt::join(doubtful, ", "), options.confirm_pairs);
  return confirm(options.base, options.head, options.confirm_pairs, options.run, doubtful, result);
}

// The A/A pairs as a calibration, written where options say; a committed calibration
// is never overwritten unless --calibration named it.
void write_calibration_of(const AbFlowOptions& options, AbFlowOutcome& outcome) {
  const Calibration calibration = calibrate(*outcome.result, options.gate.alpha);
  const std::filesystem::path file = options.suite_calibration
                                         ? *options.suite_calibration
                                         : with_suffix(options.suite_output, "-calibration");
  std::error_code ec;
  const bool keep_existing = !options.calibration_output && std::filesystem::exists(file, ec);
  const std::filesystem::path target = options.calibration_output ? *options.calibration_output
                                       : keep_existing            ? with_suffix(file, ".new")
                                                                  : file;
  if (std::string error = write_calibration(target, calibration); !error.empty()) {
    outcome.error = "cannot write the calibration: " + error;
    outcome.exit_code = kExitRunFailed;
    return;
  }
  outcome.calibration = calibration;
  outcome.calibration_written = target;
  if (keep_existing) outcome.calibration_kept = file;
  outcome.exit_code = outcome.failed_runs > 0 ? kExitRunFailed : kExitOk;
}

}  // namespace

std::string undecidable_pairs(std::uint32_t pairs, const AbGateOptions& gate) {
  const std::size_t needed = stats::min_pairs_for(gate.alpha);
  if (gate.lenient_too_few || pairs >= needed) return {};
  return fmt::format(
      "{} pair(s) cannot decide anything at alpha {}: the paired test's smallest p-value with "
      "{} pair(s) is {:.3g}, so it needs at least {} (use --pairs={}, or --alpha, or --lenient "
      "to run without gating them)",
      pairs, gate.alpha, pairs, 2.0 / std::pow(2.0, pairs), needed, needed);
}

std::string apply_calibration(const CalibrationSetting& setting, const AbResult& result,
                              const std::vector<std::string>& calibrate_args, AbGateOptions& gate) {
  const Calibration& calibration = setting.calibration;
  const Recalibration how = recalibration_for(calibrate_args, calibration.pairs, setting.file,
                                              {&result.base, &result.head});
  std::string warning =
      calibration_mismatch(calibration, setting.file, result.head.environment,
                           "each metric's threshold comes from this run's own paired noise", how);
  if (warning.empty()) gate.calibrated_noise = noise_by_key(calibration);
  return warning;
}

Expected<AbOutcome> verdict_of(const AbResult& result, const AbGateOptions& gate,
                               const std::string& calibration_warning) {
  Expected<AbOutcome> outcome = judge(result, gate);
  if (outcome && !calibration_warning.empty()) outcome->warnings.push_back(calibration_warning);
  return outcome;
}

AbFlowOutcome run_ab_flow(AbFlowOptions options, std::ostream& notes) {
  AbFlowOutcome outcome;
  auto fail = [&](int code, std::string error) {
    outcome.exit_code = code;
    outcome.error = std::move(error);
    return std::move(outcome);
  };
  if (!options.calibrating) {
    if (std::string problem = undecidable_pairs(options.head.repeat, options.gate);
        !problem.empty()) {
      return fail(kExitBadInput, std::move(problem));
    }
  }
  Expected<AbResult> ran = run_ab(options.base, options.head, options.run);
  if (!ran) return fail(kExitBadInput, ran.error());
  outcome.result = std::move(*ran);
  AbResult& result = *outcome.result;
  std::string calibration_warning;
  if (!options.calibrating) {
    if (options.calibration) {
      calibration_warning =
          apply_calibration(*options.calibration, result, options.calibrate_args, options.gate);
    }
    if (std::string error = confirm_wall_time(options, result, notes); !error.empty()) {
      return fail(kExitBadInput, std::move(error));
    }
  }
  if (!options.calibrating || options.output) {
    const std::filesystem::path file =
        options.output ? *options.output : with_suffix(options.suite_output, "-ab");
    if (options.before_writing) options.before_writing(file);
    if (std::string error = write_ab_file(file, result, options.gate.alpha); !error.empty()) {
      return fail(kExitRunFailed, "cannot write the result: " + error);
    }
    outcome.written = file;
  }
  if (result.head.interrupted) return fail(kExitInterrupted, "");
  outcome.failed_runs = result.base.failures.size() + result.head.failures.size();
  if (options.calibrating) {
    write_calibration_of(options, outcome);
    return outcome;
  }
  Expected<AbOutcome> verdict = verdict_of(result, options.gate, calibration_warning);
  if (!verdict) return fail(kExitBadInput, verdict.error());
  outcome.verdict = std::move(*verdict);
  outcome.exit_code = outcome.failed_runs > 0     ? kExitRunFailed
                      : outcome.verdict->passed() ? kExitOk
                                                  : kExitRegression;
  return outcome;
}

}  // namespace storh::ab
