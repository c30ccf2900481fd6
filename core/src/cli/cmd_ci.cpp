// `storh-host ci [SUITE.toml]`: run the CI suite, gate it against its committed
// baseline, and confirm a regression by re-running the failing cells before failing.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ab/calibration.h"
#include "cli/ab_command.h"
#include "cli/execute.h"
#include "cli/history_options.h"
#include "compare/comparable.h"
#include "env/environment.h"
#include "gate/gate.h"
#include "gate/render_gate.h"
#include "history/record.h"
#include "history/render.h"
#include "result/json.h"
#include "run/aggregate.h"
#include "util/text.h"

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

// The cells of `plan` with a metric among `keys`, each to run `repeat` more times.
plan::Plan confirm_plan(const plan::Plan& plan, const std::set<std::string>& keys,
                        std::uint32_t repeat) {
  plan::Plan subset = plan::with_metrics(plan, keys);
  subset.repeat = repeat;
  subset.warmup = 0;
  return subset;
}

Expected<gate::GateOutcome> gate_against(const compare::ComparableFile& baseline,
                                         const result::ResultFile& current,
                                         const Prepared& prepared,
                                         const gate::GateOptions& options) {
  const compare::ComparableFile file =
      compare::comparable_from_result(current, prepared.suite.output.string());
  return gate::run_gate(baseline, file, options);
}

// `--history=FILE|URI`: where the run goes, and how change points are found.
struct HistorySetting {
  std::unique_ptr<history::HistoryStore> store;
  stats::ChangePointOptions options;
};

// Opens the history before the run, so a bad database or flag costs no run.
Expected<std::optional<HistorySetting>> open_history(const Prepared& prepared) {
  if (!prepared.args.has("history")) {
    for (const char* flag : {"commit", "branch", "max-p", "min-segment"}) {
      if (prepared.args.has(flag)) return Error{fmt::format("--{} needs --history=FILE", flag)};
    }
    return std::optional<HistorySetting>();
  }
  Expected<std::string> location = history_db(prepared.args, "history");
  if (!location) return Error{location.error()};
  Expected<stats::ChangePointOptions> options = change_point_options(prepared.args);
  if (!options) return Error{options.error()};
  Expected<std::unique_ptr<history::HistoryStore>> store =
      history::HistoryStore::open(*location, history::HistoryStore::Mode::create);
  if (!store) return Error{"--history: " + store.error()};
  return std::optional<HistorySetting>(HistorySetting{std::move(*store), *options});
}

// Adds the run to the history and prints the change points it made. Returns whether
// one of them is for the worse (ci then fails), or why the run could not be added.
Expected<bool> add_to_history(HistorySetting& setting, const result::ResultFile& result,
                              const Prepared& prepared, const CommandIo& io) {
  history::RunSource source{prepared.args.last("commit"), prepared.args.last("branch"),
                            std::nullopt};
  source.from_checkouts = true;  // the run just ended: the checkouts are what it ran
  Expected<history::NewRun> run =
      history::new_run(result, prepared.suite.output.string(), source,
                       env::format_utc(std::chrono::system_clock::now()));
  if (!run) return Error{run.error()};
  Expected<std::int64_t> id = setting.store->add(run->run, run->points, run->result_json);
  if (!id) return Error{id.error()};
  Expected<history::ViewsAroundRun> views =
      history::read_views_around(*setting.store, *id, setting.options);
  if (!views) return Error{views.error()};
  const std::vector<history::SeriesChange> added = history::new_changes(
      views->before.changes, views->after.changes, setting.options.min_segment);
  io.out << fmt::format("history: added run {} to {}; {} new change point(s)\n", *id,
                        setting.store->location(), added.size());
  io.out << history::new_changes_text(added);
  return std::any_of(added.begin(), added.end(),
                     [](const history::SeriesChange& change) { return change.worse(); });
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
  prepare_options.extra_valued = {"confirm",    "threshold", "metric",      "alpha",
                                  "min-effect", "counter",   "calibration", "history",
                                  "commit",     "branch",    "max-p",       "min-segment"};
  prepare_options.extra_switches = {"update-baseline", "significant", "lenient-missing"};
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
  // --calibration, else [gate.ab] calibration, protects the stored-baseline gate from
  // its noise once the run shows it belongs to this machine; read now, so a bad file
  // costs no run.
  std::optional<ab::Calibration> calibration;
  std::string calibration_file;
  if (prepared->args.has("calibration")) {
    calibration_file = *prepared->args.last("calibration");
  } else if (const auto& file = prepared->suite.gate.ab.calibration; file) {
    calibration_file = file->value;
  }
  if (!calibration_file.empty() && !prepared->args.has("update-baseline")) {
    Expected<ab::Calibration> loaded = ab::read_calibration(calibration_file);
    if (!loaded) {
      io.err << fmt::format(
          "storh-host ci: {}: {}\n",
          prepared->args.has("calibration") ? "--calibration" : "[gate.ab] calibration",
          loaded.error());
      return kExitBadInput;
    }
    calibration = std::move(*loaded);
  }
  Expected<std::optional<HistorySetting>> history = open_history(*prepared);
  if (!history) {
    io.err << "storh-host ci: " << history.error() << '\n';
    return kExitBadInput;
  }
  const bool update = prepared->args.has("update-baseline");
  std::optional<compare::ComparableFile> baseline;
  if (!update) {
    Expected<compare::ComparableFile> loaded = compare::read_comparable(baseline_path);
    if (!loaded) {
      io.err << "storh-host ci: " << loaded.error()
             << "\n(create the baseline with: storh-host ci --update-baseline)\n";
      return kExitBadInput;
    }
    baseline = std::move(*loaded);
  }

  Expected<result::ResultFile> result = execute(*prepared, prepared->plan, io);
  if (!result) {
    io.err << "storh-host ci: " << result.error() << '\n';
    return kExitBadInput;
  }
  if (!write_and_report(*prepared, *result, io)) return kExitRunFailed;
  if (result->interrupted) return kExitInterrupted;
  if (!result->failures.empty()) {
    io.err << fmt::format("storh-host ci: the run failed ({} failed run(s)); not gating\n",
                          result->failures.size());
    return kExitRunFailed;
  }
  // The finished run joins the history (if asked); true when that found a new change
  // point for the worse.
  auto record = [&]() -> Expected<bool> {
    if (!*history) return false;
    return add_to_history(**history, *result, *prepared, io);
  };
  if (update) {
    if (std::string error = result::write_result_file(baseline_path, *result); !error.empty()) {
      io.err << "storh-host ci: cannot write the baseline: " << error << '\n';
      return kExitRunFailed;
    }
    io.out << "baseline updated: " << baseline_path.string() << '\n';
    // A new baseline accepts its numbers: the history records them, and does not fail.
    if (Expected<bool> recorded = record(); !recorded) {
      io.err << "storh-host ci: history: " << recorded.error() << '\n';
      return kExitRunFailed;
    }
    return kExitOk;
  }

  std::string calibration_warning;
  if (calibration) {
    const StoredCalibration applied = apply_stored_calibration(
        *calibration, calibration_file, prepared->suite.file.string(), *result, *options);
    calibration_warning = applied.warning;
    if (!applied.raised.empty()) {
      io.err << fmt::format(
          "storh-host ci: {} metric(s) gated at their calibrated noise instead of the threshold "
          "({}); thresholds from {}\n",
          applied.raised.size(), fmt::join(applied.raised, ", "), calibration_file);
    }
  }
  Expected<gate::GateOutcome> outcome = gate_against(*baseline, *result, *prepared, *options);
  if (!outcome) {
    io.err << "storh-host ci: " << outcome.error() << '\n';
    return kExitBadInput;
  }
  if (!outcome->passed() && *confirm > 0) {
    std::set<std::string> failing;
    for (const gate::GateCheck& check : outcome->checks) {
      if (check.failed && check.state == gate::CheckState::regression) failing.insert(check.key);
    }
    const plan::Plan again = confirm_plan(prepared->plan, failing, *confirm);
    if (!again.cells.empty()) {
      io.out << fmt::format(
          "confirm: {} metric(s) over the threshold; re-running {} cell(s) {} "
          "more time(s)\n",
          failing.size(), again.cells.size(), *confirm);
      Expected<result::ResultFile> extra = execute(*prepared, again, io);
      if (!extra) {
        io.err << "storh-host ci: " << extra.error() << '\n';
        return kExitRunFailed;
      }
      if (extra->interrupted) return kExitInterrupted;
      if (!extra->failures.empty()) {
        io.err << "storh-host ci: a confirmation run failed; not gating\n";
        return kExitRunFailed;
      }
      run::add_samples(*result, *extra);
      const std::string error = result::write_result_file(prepared->suite.output, *result);
      if (!error.empty()) {
        io.err << "storh-host ci: cannot write the result: " << error << '\n';
        return kExitRunFailed;
      }
      outcome = gate_against(*baseline, *result, *prepared, *options);
      if (!outcome) return kExitBadInput;
    }
  }
  if (!calibration_warning.empty()) outcome->warnings.push_back(calibration_warning);
  const gate::GateReport report = gate::render_gate(*outcome, compare::OutputFormat::text);
  io.out << report.out;
  io.err << report.err;
  Expected<bool> changed = record();
  if (!changed) {
    io.err << "storh-host ci: history: " << changed.error() << '\n';
    return outcome->passed() ? kExitRunFailed : kExitRegression;
  }
  if (*changed) {
    io.out << "history: a new change point for the worse; failing\n";
    return kExitRegression;
  }
  return outcome->passed() ? kExitOk : kExitRegression;
}

}  // namespace storh::cli
