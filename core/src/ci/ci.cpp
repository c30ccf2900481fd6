#include "ci/ci.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "ab/stored_calibration.h"
#include "compare/comparable.h"
#include "env/environment.h"
#include "history/record.h"
#include "history/render.h"
#include "history/series.h"
#include "result/json.h"
#include "result/metric_key.h"
#include "run/aggregate.h"
#include "util/exit_codes.h"

namespace storh::ci {
namespace {

// The cells of `plan` with a metric among `keys`, each to run `repeat` more times.
plan::Plan confirm_plan(const plan::Plan& plan, const std::set<std::string>& keys,
                        std::uint32_t repeat) {
  plan::Plan subset = plan::with_metrics(plan, keys);
  subset.repeat = repeat;
  subset.repeat_until.reset();  // --confirm=N runs N more, not until stable
  subset.warmup = 0;
  return subset;
}

// The baseline's metrics that `plan` asked for: a run narrowed by --engine or
// --operation is gated on what it ran, not failed for every metric it left out. The
// plan comes from the suite and the plugins' descriptions, so an operation the suite
// selects and the head's plugin no longer has is still missing.
compare::ComparableFile asked_for(const compare::ComparableFile& baseline, const plan::Plan& plan,
                                  std::size_t& left_out) {
  std::set<std::pair<std::string, std::string>> asked;
  for (const plan::Cell& cell : plan.cells) {
    for (const std::string& operation : cell.operation_names())
      asked.emplace(cell.engine, operation);
  }
  compare::ComparableFile narrowed = baseline;
  narrowed.metrics.clear();
  left_out = 0;
  for (const compare::ComparableMetric& metric : baseline.metrics) {
    const result::MetricKey key = result::MetricKey::parse(metric.key);
    if (asked.count({key.engine, key.operation}) > 0) {
      narrowed.metrics.push_back(metric);
    } else {
      ++left_out;
    }
  }
  return narrowed;
}

Expected<gate::GateOutcome> gate_against(const compare::ComparableFile& baseline,
                                         const result::ResultFile& current,
                                         const CiOptions& options) {
  const compare::ComparableFile file =
      compare::comparable_from_result(current, options.output.string());
  std::size_t left_out = 0;
  Expected<gate::GateOutcome> outcome =
      gate::run_gate(asked_for(baseline, options.plan, left_out), file, options.gate);
  if (outcome && left_out > 0) {
    outcome->warnings.push_back(fmt::format(
        "{} baseline metric(s) of engines or operations this run did not select are not gated",
        left_out));
  }
  return outcome;
}

// Adds the run to the history and finds the change points it made.
Expected<HistoryAdded> add_to_history(HistoryTarget& target, const result::ResultFile& result,
                                      const CiOptions& options) {
  history::RunSource source{target.commit, target.branch, std::nullopt};
  source.from_checkouts = true;  // the run just ended: the checkouts are what it ran
  Expected<history::NewRun> run = history::new_run(
      result, options.output.string(), source, env::format_utc(std::chrono::system_clock::now()));
  if (!run) return Error{run.error()};
  Expected<std::int64_t> id = target.store->add(run->run, run->points, run->result_json);
  if (!id) return Error{id.error()};
  Expected<history::ViewsAroundRun> views =
      history::read_views_around(*target.store, *id, target.options);
  if (!views) return Error{views.error()};
  const std::vector<history::SeriesChange> added =
      history::new_changes(views->before.changes, views->after.changes, target.options.min_segment);
  return HistoryAdded{
      *id, target.store->location(), added.size(), history::new_changes_text(added),
      std::any_of(added.begin(), added.end(),
                  [](const history::SeriesChange& change) { return change.worse(); })};
}

CiOutcome stop(int exit_code, std::string error = {}) {
  CiOutcome outcome;
  outcome.exit_code = exit_code;
  outcome.error = std::move(error);
  return outcome;
}

// The finished run joins the history (if asked); a run that cannot be added fails ci
// with `failed_code`.
void record(CiOptions& options, const result::ResultFile& result, CiOutcome& outcome,
            int failed_code) {
  if (!options.history) return;
  Expected<HistoryAdded> added = add_to_history(*options.history, result, options);
  if (!added) {
    outcome.error = "history: " + added.error();
    outcome.exit_code = failed_code;
    return;
  }
  outcome.history = std::move(*added);
}

// Re-runs the cells of the metrics that regressed, adds their samples to `result`,
// rewrites the result file and gates again. Returns the new gate outcome, or how ci
// stops.
std::variant<gate::GateOutcome, CiOutcome> confirm(const CiOptions& options, const CiRunner& runner,
                                                   const compare::ComparableFile& baseline,
                                                   result::ResultFile& result,
                                                   gate::GateOutcome outcome) {
  std::set<std::string> failing;
  for (const gate::GateCheck& check : outcome.checks) {
    if (check.failed && check.state == gate::CheckState::regression) failing.insert(check.key);
  }
  const plan::Plan again = confirm_plan(options.plan, failing, options.confirm);
  if (again.cells.empty()) return outcome;
  runner.out << fmt::format(
      "confirm: {} metric(s) over the threshold; re-running {} cell(s) {} "
      "more time(s)\n",
      failing.size(), again.cells.size(), options.confirm);
  Expected<result::ResultFile> extra = runner.execute(again);
  if (!extra) return stop(kExitRunFailed, extra.error());
  if (extra->interrupted) return stop(kExitInterrupted);
  if (!extra->failures.empty()) {
    return stop(kExitRunFailed, "a confirmation run failed; not gating");
  }
  run::add_samples(result, *extra);
  const std::string error = result::write_result_file(options.output, result);
  if (!error.empty()) return stop(kExitRunFailed, "cannot write the result: " + error);
  Expected<gate::GateOutcome> again_outcome = gate_against(baseline, result, options);
  if (!again_outcome) return stop(kExitBadInput);
  return std::move(*again_outcome);
}

}  // namespace

CiOutcome run_ci(CiOptions options, const CiRunner& runner) {
  std::optional<compare::ComparableFile> baseline;
  if (!options.update_baseline) {
    Expected<compare::ComparableFile> loaded = compare::read_comparable(options.baseline);
    if (!loaded) {
      return stop(
          kExitBadInput,
          fmt::format("{}\n(create the baseline with: storh-host ci {}--update-baseline)",
                      loaded.error(), options.suite_file.empty() ? "" : options.suite_file + " "));
    }
    baseline = std::move(*loaded);
  }

  Expected<result::ResultFile> result = runner.execute(options.plan);
  if (!result) return stop(kExitBadInput, result.error());
  if (!runner.write_and_report(*result)) return stop(kExitRunFailed);
  if (result->interrupted) return stop(kExitInterrupted);
  if (!result->failures.empty()) {
    return stop(kExitRunFailed, fmt::format("the run failed ({} failed run(s)); not gating",
                                            result->failures.size()));
  }
  if (options.update_baseline) {
    if (std::string error = result::write_result_file(options.baseline, *result); !error.empty()) {
      return stop(kExitRunFailed, "cannot write the baseline: " + error);
    }
    // A new baseline accepts its numbers: the history records them, and does not fail.
    CiOutcome outcome;
    outcome.baseline_updated = true;
    record(options, *result, outcome, kExitRunFailed);
    return outcome;
  }

  std::string calibration_warning;
  if (options.calibration) {
    const ab::StoredCalibration applied =
        ab::apply_stored_calibration(options.calibration->calibration, options.calibration->file,
                                     options.suite_file, *result, options.gate);
    calibration_warning = applied.warning;
    if (!applied.raised.empty()) {
      runner.err << fmt::format(
          "storh-host ci: {} metric(s) gated at their calibrated noise instead of the threshold "
          "({}); thresholds from {}\n",
          applied.raised.size(), fmt::join(applied.raised, ", "), options.calibration->file);
    }
  }
  Expected<gate::GateOutcome> gated = gate_against(*baseline, *result, options);
  if (!gated) return stop(kExitBadInput, gated.error());
  CiOutcome outcome;
  outcome.gate = std::move(*gated);
  if (!outcome.gate->passed() && options.confirm > 0) {
    auto confirmed = confirm(options, runner, *baseline, *result, std::move(*outcome.gate));
    if (auto* stopped = std::get_if<CiOutcome>(&confirmed)) return std::move(*stopped);
    outcome.gate = std::move(std::get<gate::GateOutcome>(confirmed));
  }
  if (!calibration_warning.empty()) outcome.gate->warnings.push_back(calibration_warning);
  outcome.exit_code = outcome.gate->passed() ? kExitOk : kExitRegression;
  record(options, *result, outcome, outcome.gate->passed() ? kExitRunFailed : kExitRegression);
  // A gated run that makes a new change point for the worse fails, whatever the gate said.
  if (outcome.history && outcome.history->worse) {
    outcome.history_failed = true;
    outcome.exit_code = kExitRegression;
  }
  return outcome;
}

}  // namespace storh::ci
