#include "run/adaptive.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "load/outcome.h"
#include "stats/median_interval.h"
#include "stats/paired.h"

namespace storh::run {

std::vector<double> repeat_figures(const plan::Cell& cell, const CellRuns& runs,
                                   const std::string& operation) {
  std::vector<double> figures;
  for (const CellRun& run : runs) {
    if (cell.load) {
      for (const LoadSample& sample : run.loads) {
        if (sample.operation != operation) continue;
        // An outcome the host cannot read is dropped, as aggregate_load drops it.
        if (Expected<load::LoadOutcome> outcome = load::load_outcome_from_json(sample.outcome)) {
          figures.push_back(outcome->tps_excluding_setup());
        }
      }
      continue;
    }
    for (const OperationSample& sample : run.samples) {
      if (sample.operation == operation) figures.push_back(sample.seconds);
    }
  }
  return figures;
}

bool cell_is_stable(const plan::Cell& cell, const CellRuns& runs, double until) {
  return std::all_of(cell.operations.begin(), cell.operations.end(), [&](const auto& op) {
    return stats::median_is_stable(repeat_figures(cell, runs, op.name), until);
  });
}

namespace {

// A metric's repeat record from its figures; with a warning when the cell reached
// `max` without converging (the reader must not take the median as known to the
// width asked for). A warning from an earlier record is replaced.
void set_record(result::Metric& metric, const std::vector<double>& figures, std::uint32_t taken,
                std::uint32_t max, double until) {
  const std::optional<stats::MedianInterval> interval =
      stats::median_interval(figures, stats::kRepeatAlpha);
  result::RepeatsTaken record;
  record.taken = taken;
  if (interval) record.interval = std::pair{interval->low, interval->high};
  record.converged = interval && stats::relative_half_width(*interval) <= until;
  metric.repeats = record;
  std::erase_if(metric.warnings, [](const std::string& w) {
    return w.find(" repeats (max) ") != std::string::npos;
  });
  if (record.converged || record.taken < max) return;
  metric.warnings.push_back(
      interval ? fmt::format("{} repeats (max) and the 95% interval of the median is "
                             "\u00b1{:.1f}%, wider than the \u00b1{} asked",
                             record.taken, stats::relative_half_width(*interval) * 100,
                             suite::percent_text(until))
               : fmt::format("{} repeats (max) give no 95% interval of the median (it "
                             "needs {} figures), so not the \u00b1{} asked",
                             record.taken, stats::min_pairs_for(stats::kRepeatAlpha),
                             suite::percent_text(until)));
}

}  // namespace

void record_repeats(const plan::Plan& plan, const std::vector<CellRuns>& runs,
                    std::vector<result::Metric>& metrics) {
  if (!plan.repeat_until) return;
  const suite::RepeatUntil& bounds = *plan.repeat_until;
  for (std::size_t c = 0; c < plan.cells.size() && c < runs.size(); ++c) {
    const plan::Cell& cell = plan.cells[c];
    for (const auto& op : cell.operations) {
      const std::string key = plan::metric_key(cell, op.name);
      auto metric = std::find_if(metrics.begin(), metrics.end(),
                                 [&](const result::Metric& m) { return m.key == key; });
      if (metric == metrics.end()) continue;
      set_record(*metric, repeat_figures(cell, runs[c], op.name),
                 static_cast<std::uint32_t>(runs[c].size()), bounds.max, bounds.until);
    }
  }
}

void add_to_record(result::Metric& metric, std::uint32_t added,
                   const result::RepeatBounds& bounds) {
  if (!metric.repeats) return;
  std::vector<double> figures;
  for (const result::Sample& sample : metric.samples) {
    // A load metric's figure is its tps: transactions over the timed phase.
    figures.push_back(
        metric.load ? (sample.seconds > 0 ? static_cast<double>(sample.items) / sample.seconds : 0)
                    : sample.seconds);
  }
  set_record(metric, figures, metric.repeats->taken + added, bounds.max, bounds.until);
}

}  // namespace storh::run
