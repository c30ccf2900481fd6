// Rendering an A/B verdict: an aligned table, a Markdown comment or JSON.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ab/render_parts.h"
#include "ab/verdict.h"
#include "compare/explain.h"
#include "report/format.h"
#include "stats/stats.h"

namespace storh::ab {
namespace {

using nlohmann::ordered_json;

std::string median_text(const PairedMetric* paired, Side side) {
  if (paired == nullptr || paired->pairs.empty()) return "-";
  std::vector<double> values;
  for (const Pair& p : paired->pairs) values.push_back(side == Side::base ? p.base : p.head);
  const double median = stats::median_of(std::move(values));
  if (paired->direction == result::MetricDirection::lower_is_better) {
    return report::format_seconds(median);
  }
  return fmt::format("{:.4g}", median);
}

// A row's cells from one set of pairs: the medians of each side, and the change, its
// interval, p and detectable slowdown when the set has pairs ("-" otherwise).
AbRow paired_row(std::string key, const PairedMetric* paired, const PairedSummary& summary,
                 std::string threshold, std::string verdict) {
  AbRow row{std::move(key),
            median_text(paired, Side::base),
            median_text(paired, Side::head),
            "-",
            "-",
            "-",
            "-",
            std::move(threshold),
            std::move(verdict)};
  const stats::PairedTest& t = summary.test;
  if (t.pairs > 0) {
    row.change = fmt::format("{:+.2f}%", summary.slowdown_percent);
    row.interval = fmt::format("[{:+.2f}%, {:+.2f}%]", (t.ci_low - 1) * 100, (t.ci_high - 1) * 100);
    row.detectable = fmt::format("{:.1f}%", summary.detectable_percent);
  }
  if (t.p_value) row.p = fmt::format("{:.3g}", *t.p_value);
  return row;
}

}  // namespace

AbRow row_of(const AbResult& result, const AbCheck& check) {
  std::string threshold = fmt::format("{:.1f}%", check.threshold_percent);
  if (check.threshold_from != "threshold") threshold += " (" + check.threshold_from + ")";
  std::string verdict = ab_state_name(check.state);
  if (check.confirmation && check.confirmation->agreed) verdict += " confirmed";
  if (check.failed) verdict += " FAIL";
  return paired_row(check.key, find_paired(result, check.key), check.summary, std::move(threshold),
                    std::move(verdict));
}

std::string confirmation_row_label(const AbCheck& check) {
  return check.key + " (confirmation)";
}

AbRow confirmation_row_of(const AbResult& result, const AbCheck& check) {
  const AbConfirmation& again = check.confirmation.value();
  return paired_row(confirmation_row_label(check), find_confirmation(result, check.key),
                    again.summary,
                    fmt::format("{:.1f}% ({})", again.threshold_percent, again.threshold_from),
                    again.agreed ? "regressed again" : "did not regress");
}

std::string header_line(const AbResult& result, double alpha) {
  auto where = [](const SideSetup& s) {
    std::string text = s.plugin_path.empty() ? "default plugins" : s.plugin_path.front();
    if (!s.sets.empty()) text += fmt::format(" --set {}", fmt::join(s.sets, " --set "));
    return text;
  };
  return fmt::format("A/B: base = {}, head = {}; {} pair(s) per cell, {} order, alpha {}",
                     where(result.base_setup), where(result.head_setup), result.pairs,
                     order_name(result.order), alpha);
}

std::string verdict_line(const AbOutcome& outcome) {
  return fmt::format("A/B gate {}: {} of {} metric(s) regressed.",
                     outcome.passed() ? "passed" : "failed", outcome.failures,
                     outcome.checks.size());
}

namespace {

// Why the change column can disagree in sign with the medians beside it.
constexpr std::string_view kPairedChangeLegend =
    "paired change: the Hodges-Lehmann estimate of head/base over the pairs (each pair ran "
    "side by side), so it can differ from the ratio of the two medians, even in sign, when "
    "the machine's speed drifted during the run; interval: its confidence interval; "
    "detectable: the slowdown these pairs find with 80% power.";

std::string text_table(const std::vector<AbRow>& rows) {
  const AbRow head{"metric", "base median", "head median", "paired change", "interval",
                   "p",      "detectable",  "threshold",   "verdict"};
  std::vector<std::size_t> width(9, 0);
  auto cells = [](const AbRow& r) {
    return std::vector<const std::string*>{&r.key,        &r.base,      &r.head,
                                           &r.change,     &r.interval,  &r.p,
                                           &r.detectable, &r.threshold, &r.verdict};
  };
  for (const AbRow& r : rows) {
    const auto c = cells(r);
    for (std::size_t i = 0; i < 9; ++i) width[i] = std::max(width[i], c[i]->size());
  }
  for (std::size_t i = 0; i < 9; ++i) width[i] = std::max(width[i], cells(head)[i]->size());
  std::string out;
  auto line = [&](const AbRow& r) {
    const auto c = cells(r);
    std::string text;
    for (std::size_t i = 0; i < 9; ++i) {
      text += i == 0 ? fmt::format("{:<{}}", *c[i], width[i])
                     : fmt::format("  {:>{}}", *c[i], width[i]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + '\n';
  };
  line(head);
  for (const AbRow& r : rows) line(r);
  return out;
}

std::string markdown_table(const std::vector<AbRow>& rows) {
  std::string out =
      "| metric | base median | head median | paired change | interval | p | detectable | "
      "threshold | verdict |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const AbRow& r : rows) {
    out += fmt::format(
        "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.key, r.base, r.head, r.change,
        r.interval, r.p, r.detectable, r.threshold,
        r.verdict.find("FAIL") != std::string::npos ? "**" + r.verdict + "**" : r.verdict);
  }
  return out;
}

ordered_json json_of(const AbResult& result, const AbOutcome& outcome, double alpha) {
  ordered_json checks = ordered_json::array();
  for (const AbCheck& c : outcome.checks) {
    const stats::PairedTest& t = c.summary.test;
    checks.push_back({{"key", c.key},
                      {"state", ab_state_name(c.state)},
                      {"failed", c.failed},
                      {"pairs", t.pairs},
                      {"ratio", t.ratio},
                      {"slowdown_percent", c.summary.slowdown_percent},
                      {"ci_low", t.ci_low},
                      {"ci_high", t.ci_high},
                      {"confidence", t.confidence},
                      {"p_value", t.p_value ? ordered_json(*t.p_value) : ordered_json(nullptr)},
                      {"noise", t.noise},
                      {"detectable_percent", c.summary.detectable_percent},
                      {"threshold_percent", c.threshold_percent},
                      {"threshold_from", c.threshold_from},
                      {"notes", c.notes}});
    if (c.confirmation) {
      const AbConfirmation& again = *c.confirmation;
      const stats::PairedTest& ct = again.summary.test;
      checks.back()["confirmation"] = {
          {"pairs", ct.pairs},
          {"ratio", ct.ratio},
          {"slowdown_percent", again.summary.slowdown_percent},
          {"ci_low", ct.ci_low},
          {"ci_high", ct.ci_high},
          {"p_value", ct.p_value ? ordered_json(*ct.p_value) : ordered_json(nullptr)},
          {"threshold_percent", again.threshold_percent},
          {"threshold_from", again.threshold_from},
          {"agreed", again.agreed}};
    }
  }
  ordered_json counter_checks = ordered_json::array();
  for (const gate::CounterCheck& c : outcome.counter_checks) {
    counter_checks.push_back({{"key", c.key},
                              {"counter", c.counter},
                              {"base", c.base},
                              {"head", c.current},
                              {"tolerance_percent", c.tolerance_percent},
                              {"failed", c.failed}});
  }
  return {{"order", order_name(result.order)}, {"pairs", result.pairs},        {"alpha", alpha},
          {"passed", outcome.passed()},        {"failures", outcome.failures}, {"checks", checks},
          {"warnings", outcome.warnings}};
}

// Under each metric that changed, or whose engine counters did, the engine counters
// that changed with it (compare/explain.h), one line each.
std::string engine_counter_lines(const AbResult& result, const AbOutcome& outcome) {
  const auto find = [](const result::ResultFile& file, const std::string& key) {
    const auto it = std::find_if(file.metrics.begin(), file.metrics.end(),
                                 [&](const result::Metric& m) { return m.key == key; });
    return it == file.metrics.end() ? nullptr : &*it;
  };
  std::string lines;
  for (const AbCheck& check : outcome.checks) {
    const result::Metric* base = find(result.base, check.key);
    const result::Metric* head = find(result.head, check.key);
    if (base == nullptr || head == nullptr || base->engine_counters.empty() ||
        head->engine_counters.empty()) {
      continue;
    }
    const bool moved = check.state == AbState::regression || check.state == AbState::improvement ||
                       check.state == AbState::unconfirmed;
    if (!moved && !compare::engine_counters_changed(base->engine_counters, head->engine_counters)) {
      continue;
    }
    // The paired slowdown as the value's own change: for tps, 25% slower is -20% tps.
    const double slowdown = check.summary.slowdown_percent;
    const double delta = head->load ? (100.0 / (1.0 + slowdown / 100.0) - 100.0) : slowdown;
    lines += compare::explain_change(check.key, head->load ? "tps" : head->unit, delta,
                                     base->engine_counters, head->engine_counters) +
             "\n";
  }
  return lines;
}

}  // namespace

AbReport render(const AbResult& result, const AbOutcome& outcome, compare::OutputFormat format,
                double alpha) {
  std::vector<AbRow> rows;
  for (const AbCheck& check : outcome.checks) {
    rows.push_back(row_of(result, check));
    if (check.confirmation) rows.push_back(confirmation_row_of(result, check));
  }
  AbReport report;
  std::string notes;
  std::string counters;
  for (const gate::CounterCheck& c : outcome.counter_checks) {
    counters +=
        fmt::format("{} {}/item: base {:.6g} head {:.6g} (tolerance {:+.2f}%){}\n", c.key,
                    c.counter, c.base, c.current, c.tolerance_percent, c.failed ? " FAIL" : "");
  }
  const std::string explained = engine_counter_lines(result, outcome);
  std::string confirmations;  // Markdown: the confirmation notes, which decide verdicts
  for (const AbCheck& check : outcome.checks) {
    for (const std::string& note : check.notes) notes += fmt::format("{}: {}\n", check.key, note);
    if (check.confirmation) {
      for (const std::string& note : check.notes) {
        if (note.find("confirm") != std::string::npos) {
          confirmations += fmt::format("- `{}`: {}\n", check.key, note);
        }
      }
    }
  }
  switch (format) {
    case compare::OutputFormat::json:
      report.out = json_of(result, outcome, alpha).dump(2) + "\n";
      break;
    case compare::OutputFormat::markdown: {
      report.out = "### " + header_line(result, alpha) + "\n\n" + markdown_table(rows);
      if (!counters.empty()) report.out += "\nCounters per item:\n\n```\n" + counters + "```\n";
      if (!explained.empty()) {
        report.out += "\nEngine counters that changed with it:\n\n```\n" + explained + "```\n";
      }
      if (!confirmations.empty()) report.out += "\nConfirmation:\n\n" + confirmations;
      report.out += "\n" + std::string(kPairedChangeLegend) + "\n";
      for (const std::string& w : outcome.warnings) report.out += "\n> warning: " + w + "\n";
      report.out += "\n**" + verdict_line(outcome) + "**\n";
      break;
    }
    default:
      report.out = header_line(result, alpha) + "\n" + text_table(rows) +
                   std::string(kPairedChangeLegend) + "\n" + notes + counters +
                   (explained.empty() ? "" : "engine counters that changed with it:\n" + explained);
      break;
  }
  for (const std::string& w : outcome.warnings) report.err += "warning: " + w + "\n";
  (outcome.passed() ? report.out : report.err) += verdict_line(outcome) + "\n";
  return report;
}

}  // namespace storh::ab
