#include "gate/render_gate.h"

#include <cmath>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/table.h"

namespace storh::gate {
namespace {

using nlohmann::ordered_json;
using report::Align;

constexpr int kKeyWidth = 36;  // the storh gate's %-36s

std::string_view state_name(CheckState state) {
  switch (state) {
    case CheckState::pass:
      return "pass";
    case CheckState::regression:
      return "regression";
    case CheckState::excused:
      return "excused";
    case CheckState::missing_in_baseline:
      return "missing_in_baseline";
    case CheckState::missing_in_current:
      return "missing_in_current";
  }
  return "?";
}

bool is_missing(const GateCheck& check) {
  return check.state == CheckState::missing_in_baseline ||
         check.state == CheckState::missing_in_current;
}

std::string missing_text(const GateCheck& check) {
  return check.state == CheckState::missing_in_baseline ? "missing in baseline"
                                                        : "missing in current";
}

std::string text_line(const GateCheck& check) {
  std::string line;
  if (is_missing(check)) {
    line = fmt::format("{:<{}} {}", check.key, kKeyWidth, missing_text(check));
  } else {
    line = fmt::format("{:<{}} base {} current {} {:+.2f}%{}", check.key, kKeyWidth,
                       compare::format_value(check.direction, *check.base_median),
                       compare::format_value(check.direction, *check.current_median),
                       check.delta_percent, check.failed ? " FAIL" : "");
  }
  if (!check.notes.empty()) line += fmt::format(" [{}]", fmt::join(check.notes, "; "));
  return line + "\n";
}

// "doc.put fsync/item": a counter check's name in every format.
std::string counter_label(const CounterCheck& check) {
  return fmt::format("{} {}/item", check.key, check.counter);
}

std::string counter_value(double value) {
  return fmt::format("{:.10g}", value);
}

std::string growth_text(const CounterCheck& check) {
  return std::isfinite(check.growth_percent) ? fmt::format("{:+.2f}%", check.growth_percent)
                                             : std::string("+inf%");
}

std::string counter_line(const CounterCheck& check) {
  return fmt::format("{:<{}} base {} current {} {}{} [counter tolerance {:+.2f}%]\n",
                     counter_label(check), kKeyWidth, counter_value(check.base),
                     counter_value(check.current), growth_text(check), check.failed ? " FAIL" : "",
                     check.tolerance_percent);
}

std::string warnings_text(const GateOutcome& outcome) {
  std::string err;
  for (const std::string& warning : outcome.warnings) err += "warning: " + warning + "\n";
  return err;
}

std::string markdown(const GateOutcome& outcome) {
  std::string out = "### storh-host gate\n\n";
  out += fmt::format("Base `{}` vs current `{}`, threshold {:+.2f}%.\n\n",
                     report::markdown_cell(outcome.base_name),
                     report::markdown_cell(outcome.current_name), outcome.threshold_percent);
  for (const std::string& warning : outcome.warnings) {
    out += fmt::format("> **Warning:** {}\n\n", report::markdown_cell(warning));
  }
  report::Rows rows;
  for (const GateCheck& check : outcome.checks) {
    const bool missing = is_missing(check);
    auto value = [&](const std::optional<double>& v) {
      return v ? compare::format_value(check.direction, *v) : std::string("-");
    };
    std::vector<std::string> notes = check.notes;
    if (missing) notes.insert(notes.begin(), missing_text(check));
    rows.push_back({"`" + check.key + "`", value(check.base_median), value(check.current_median),
                    missing ? "" : compare::format_percent(check.delta_percent),
                    compare::format_percent(check.threshold_percent),
                    check.failed ? "**FAIL**"
                    : missing    ? "missing"
                                 : "ok",
                    fmt::format("{}", fmt::join(notes, "; "))});
  }
  for (const CounterCheck& check : outcome.counter_checks) {
    rows.push_back({fmt::format("`{}` {}/item", check.key, check.counter),
                    counter_value(check.base), counter_value(check.current), growth_text(check),
                    compare::format_percent(check.tolerance_percent),
                    check.failed ? "**FAIL**" : "ok", "counter"});
  }
  out += report::markdown_table({{"metric", Align::left},
                                 {"base", Align::right},
                                 {"current", Align::right},
                                 {"delta", Align::right},
                                 {"threshold", Align::right},
                                 {"result", Align::left},
                                 {"note", Align::left}},
                                rows);
  out += fmt::format("\n**{}**\n", verdict_line(outcome));
  return out;
}

ordered_json optional_number(const std::optional<double>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

std::string json_text(const GateOutcome& outcome) {
  ordered_json checks = ordered_json::array();
  for (const GateCheck& check : outcome.checks) {
    const bool missing = is_missing(check);
    const bool tested = check.significance && check.significance->test;
    checks.push_back(
        {{"key", check.key},
         {"state", state_name(check.state)},
         {"failed", check.failed},
         {"base_median", optional_number(check.base_median)},
         {"current_median", optional_number(check.current_median)},
         {"delta_percent", missing ? ordered_json(nullptr) : ordered_json(check.delta_percent)},
         // JSON has no infinity: a higher_is_better value that dropped to 0 is null here.
         {"slowdown_percent", missing || !std::isfinite(check.slowdown_percent)
                                  ? ordered_json(nullptr)
                                  : ordered_json(check.slowdown_percent)},
         {"threshold_percent", check.threshold_percent},
         {"p_value",
          tested ? ordered_json(check.significance->test->p_value) : ordered_json(nullptr)},
         {"notes", check.notes}});
  }
  ordered_json counter_checks = ordered_json::array();
  for (const CounterCheck& check : outcome.counter_checks) {
    counter_checks.push_back(
        {{"key", check.key},
         {"counter", check.counter},
         {"failed", check.failed},
         {"base", check.base},
         {"current", check.current},
         {"growth_percent", std::isfinite(check.growth_percent) ? ordered_json(check.growth_percent)
                                                                : ordered_json(nullptr)},
         {"tolerance_percent", check.tolerance_percent}});
  }
  const ordered_json root = {{"base", outcome.base_name},
                             {"current", outcome.current_name},
                             {"threshold_percent", outcome.threshold_percent},
                             {"passed", outcome.passed()},
                             {"failures", outcome.failures},
                             {"verdict", verdict_line(outcome)},
                             {"warnings", outcome.warnings},
                             {"checks", checks}};
  if (counter_checks.empty()) return root.dump(2) + "\n";
  // Only when counter tolerances were checked, so counter-free output keeps its form.
  ordered_json with_counters = root;
  with_counters["counter_checks"] = counter_checks;
  return with_counters.dump(2) + "\n";
}

}  // namespace

GateReport render_gate(const GateOutcome& outcome, compare::OutputFormat format) {
  GateReport report;
  report.err = warnings_text(outcome);
  if (format == compare::OutputFormat::markdown) {
    report.out = markdown(outcome);
  } else if (format == compare::OutputFormat::json) {
    report.out = json_text(outcome);
  } else {
    for (const GateCheck& check : outcome.checks) report.out += text_line(check);
    for (const CounterCheck& check : outcome.counter_checks) report.out += counter_line(check);
    if (outcome.passed()) report.out += verdict_line(outcome) + "\n";
  }
  if (!outcome.passed()) report.err += verdict_line(outcome) + "\n";
  return report;
}

}  // namespace storh::gate
