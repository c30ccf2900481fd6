// `storh-host ci [SUITE.toml]`: reads ci's flags and the suite's [gate] table, runs
// ci/ci.h with them and prints how it ended.
#include <algorithm>

#include <fmt/format.h>

#include "ab/calibration.h"
#include "ci/ci.h"
#include "cli/ab_command.h"
#include "cli/execute.h"
#include "cli/history_options.h"
#include "gate/gate.h"
#include "gate/render_gate.h"
#include "history/store.h"

namespace storh::cli {
namespace {

constexpr const char* kDefaultCiSuite = "suites/ci.toml";

// The suite's [gate] table, then the gate's command-line flags on top.
Expected<gate::GateOptions> gate_options(const Prepared& prepared) {
  const suite::GateSetting& setting = prepared.suite.gate;
  gate::GateOptions options;
  if (setting.threshold) options.threshold_percent = setting.threshold->value;
  for (const auto& metric : setting.metrics) options.metrics.push_back(metric.value);
  for (const auto& [metric, percent] : setting.thresholds) {
    options.metric_thresholds.push_back({metric.value, percent});
  }
  options.require_significance = setting.significant;
  if (setting.alpha) options.alpha = *setting.alpha;
  options.min_effect_seconds = setting.min_effect_seconds;
  options.lenient_missing = setting.lenient_missing;
  for (const auto& [counter, percent] : setting.counter_tolerances) {
    options.counter_tolerances.push_back({counter.value, percent});
  }
  return apply_gate_flags(prepared.args, std::move(options));
}

Expected<std::uint32_t> confirm_count(const Prepared& prepared) {
  std::uint32_t count = prepared.suite.gate.confirm;
  if (auto text = prepared.args.last("confirm")) {
    Expected<std::uint64_t> value = whole_flag("confirm", *text, 0, 100);
    if (!value) return Error{value.error()};
    count = static_cast<std::uint32_t>(*value);
  }
  return count;
}

// Opens the history before the run, so a bad database or flag costs no run.
Expected<std::optional<ci::HistoryTarget>> open_history(const Prepared& prepared) {
  if (!prepared.args.has("history")) {
    for (const char* flag : {"commit", "branch", "max-p", "min-segment"}) {
      if (prepared.args.has(flag)) return Error{fmt::format("--{} needs --history=FILE|URI", flag)};
    }
    return std::optional<ci::HistoryTarget>();
  }
  Expected<std::string> location = history_db(prepared.args, "history");
  if (!location) return Error{location.error()};
  Expected<stats::ChangePointOptions> options = change_point_options(prepared.args);
  if (!options) return Error{options.error()};
  Expected<std::unique_ptr<history::HistoryStore>> store =
      history::HistoryStore::open(*location, history::HistoryStore::Mode::create);
  if (!store) return Error{"--history: " + store.error()};
  return std::optional<ci::HistoryTarget>(ci::HistoryTarget{
      std::move(*store), *options, prepared.args.last("commit"), prepared.args.last("branch")});
}

// Prints how ci ended, in the order ci::CiOutcome gives, and returns its exit code.
int print_outcome(const ci::CiOutcome& outcome, const std::filesystem::path& baseline,
                  const CommandIo& io) {
  if (outcome.baseline_updated) io.out << "baseline updated: " << baseline.string() << '\n';
  if (outcome.gate) {
    const gate::GateReport report = gate::render_gate(*outcome.gate, compare::OutputFormat::text);
    io.out << report.out;
    io.err << report.err;
  }
  if (const auto& added = outcome.history) {
    io.out << fmt::format("history: added run {} to {}; {} new change point(s)\n", added->run_id,
                          added->location, added->new_changes);
    io.out << added->changes_text;
  }
  if (!outcome.error.empty()) io.err << "storh-host ci: " << outcome.error << '\n';
  if (outcome.history_failed) io.out << "history: a new change point for the worse; failing\n";
  return outcome.exit_code;
}

}  // namespace

int ci_command(const std::vector<std::string>& args, const CommandIo& io) {
  // A/B mode: the suite's cells for a base build and this build, in pairs.
  if (std::any_of(args.begin(), args.end(),
                  [](const std::string& a) { return a == "--base" || a.starts_with("--base="); })) {
    return run_ab_command(args, io, {"ci", kDefaultCiSuite, false, true});
  }
  InterruptGuard guard;
  PrepareOptions prepare_options;
  prepare_options.command = "ci";
  prepare_options.extra_valued = command_flags("ci").valued;
  prepare_options.extra_switches = command_flags("ci").switches;
  prepare_options.default_suite = kDefaultCiSuite;
  std::optional<Prepared> prepared = prepare(args, io, prepare_options);
  if (!prepared) return kExitBadInput;

  const auto& baseline_setting = prepared->suite.gate.baseline;
  if (!baseline_setting) {
    io.err << fmt::format("storh-host ci: {} has no [gate] baseline = \"PATH\"\n",
                          prepared->suite.file.string());
    return kExitBadInput;
  }
  const std::filesystem::path baseline_path = baseline_setting->value;
  Expected<gate::GateOptions> options = gate_options(*prepared);
  Expected<std::uint32_t> confirm = confirm_count(*prepared);
  if (!options || !confirm) {
    io.err << "storh-host ci: " << (!options ? options.error() : confirm.error()) << '\n';
    return kExitBadInput;
  }
  ci::CiOptions ci_options;
  ci_options.plan = prepared->plan;
  ci_options.baseline = baseline_path;
  ci_options.output = prepared->suite.output;
  ci_options.suite_file = prepared->suite.file.string();
  ci_options.gate = std::move(*options);
  ci_options.confirm = *confirm;
  ci_options.update_baseline = prepared->args.has("update-baseline");
  // --calibration, else [gate.ab] calibration, protects the stored-baseline gate from
  // its noise once the run shows it belongs to this machine; read now, so a bad file
  // costs no run.
  std::string calibration_file;
  if (prepared->args.has("calibration")) {
    calibration_file = *prepared->args.last("calibration");
  } else if (const auto& file = prepared->suite.gate.ab.calibration; file) {
    calibration_file = file->value;
  }
  if (!calibration_file.empty() && !ci_options.update_baseline) {
    Expected<ab::Calibration> loaded = ab::read_calibration(calibration_file);
    if (!loaded) {
      io.err << fmt::format(
          "storh-host ci: {}: {}\n",
          prepared->args.has("calibration") ? "--calibration" : "[gate.ab] calibration",
          loaded.error());
      return kExitBadInput;
    }
    ci_options.calibration = ab::CalibrationSetting{std::move(*loaded), calibration_file};
  }
  Expected<std::optional<ci::HistoryTarget>> history = open_history(*prepared);
  if (!history) {
    io.err << "storh-host ci: " << history.error() << '\n';
    return kExitBadInput;
  }
  ci_options.history = std::move(*history);

  const ci::CiRunner runner{
      [&](const plan::Plan& plan) { return execute(*prepared, plan, io); },
      [&](const result::ResultFile& result) { return write_and_report(*prepared, result, io); },
      io.out, io.err};
  return print_outcome(ci::run_ci(std::move(ci_options), runner), baseline_path, io);
}

}  // namespace storh::cli
