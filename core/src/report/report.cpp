#include "report/report.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "report/bench_section.h"
#include "report/counters_section.h"
#include "report/format.h"
#include "report/load_section.h"
#include "report/load_time_section.h"
#include "report/range_section.h"
#include "report/report_parts.h"
#include "report/statements_section.h"
#include "report/table.h"
#include "report/ycsb_section.h"
#include "result/json.h"
#include "result/plugin_build.h"
#include "suite/parse.h"  // param_value_text: the one canonical text of a value

namespace storh::report {
namespace {

using result::Failure;
using result::Metric;
using result::ResultFile;

// ----------------------------------------------------------------------------------
// Text
// ----------------------------------------------------------------------------------

// key=value, the value quoted when it has spaces so the line stays machine-splittable.
std::string pair_text(std::string_view key, const std::string& value) {
  const std::string shown = or_unknown(value);
  if (shown.find_first_of(" \t\"") == std::string::npos) return fmt::format("{}={}", key, shown);
  std::string quoted;
  for (char c : shown) quoted += c == '"' ? std::string("\\\"") : std::string(1, c);
  return fmt::format("{}=\"{}\"", key, quoted);
}

// One line per engine whose build the result records (experiment.engines[].build).
void plugin_build_lines(const ResultFile& result, std::string& out) {
  for (const result::EngineRecord& engine : result.experiment.engines) {
    if (!engine.build) continue;
    const result::PluginBuild& b = *engine.build;
    out += fmt::format(
        "plugin: engine={} {} optimized={} {} {} {}\n", engine.name, pair_text("build", b.type),
        !b.optimized ? "unknown" : (*b.optimized ? "yes" : "no"), pair_text("compiler", b.compiler),
        pair_text("flags", b.flags), pair_text("hash", b.file_hash));
  }
}

// Splits text ending in '\n' into its lines.
std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// A load run's tables: the benches' when the suite had [[load.bench]] tables, else the
// clients x transactions matrices.
// Either way followed by the cells over time (report/load_time_section.h) and the
// scripts' per-command latencies (report/statements_section.h).
std::string load_tables(const ResultFile& result, const EngineBlock& block, ReportFormat format) {
  if (result.experiment.load_benches.empty()) {
    std::vector<const Metric*> metrics = block.metrics;
    std::erase_if(metrics, [](const Metric* m) { return is_ycsb_metric(*m); });
    return load_section(block.name, metrics, format) + load_time_section(metrics, format) +
           statements_section(metrics, format);
  }
  return bench_section(block.name, block.metrics, result.experiment, format) +
         load_time_section(block.metrics, format) + statements_section(block.metrics, format);
}

void render_text(const ResultFile& result, std::string& out) {
  const auto& experiment = result.experiment;
  const auto& env = result.environment;
  auto line = [&out](std::string_view text) { (out += text) += '\n'; };

  line(fmt::format("storh-host suite={} datasets={} repeat={} fingerprint={}", experiment.suite,
                   fmt::join(experiment.datasets, ","), repeat_setting(experiment),
                   experiment.fingerprint));
  line(fmt::format("environment: {} cpus={} {} {} {}", pair_text("cpu", env.cpu_model),
                   env.cpu_count, pair_text("kernel", env.kernel),
                   pair_text("fs", env.work_dir_filesystem), pair_text("build", env.build_type)));
  plugin_build_lines(result, out);
  for (const auto& warning : run_warnings(result)) line("warning: " + one_line(warning));
  if (const std::string summary = metric_warnings_summary(result); !summary.empty()) {
    line("warning: " + summary);
  }
  if (result.interrupted) line(fmt::format("interrupted: {}", kInterrupted));
  if (!result.metrics.empty()) line(fmt::format("legend: {}", legend(result, ReportFormat::text)));
  if (const std::string note = min_time_note(result); !note.empty()) line(note);

  const bool ranged = has_several_datasets(result);
  for (const auto& block : engine_blocks(result)) {
    line(fmt::format("[{}]", block.name));
    if (block.metrics.empty()) line("  no results");
    if (!block.metrics.empty()) {
      const auto [columns, rows] =
          metric_table(block.metrics, experiment.repeat, ReportFormat::text);
      for (const std::string& table_line : lines_of(text_table(columns, rows))) {
        line("  " + table_line);
      }
    }
    for (const Metric* metric : block.metrics) {
      if (metric->warnings.empty()) continue;
      line(fmt::format("  ! {}: {}", label_of(*metric),
                       one_line(fmt::format("{}", fmt::join(metric->warnings, "; ")))));
    }
    out += counters_section(block.metrics, ReportFormat::text, counters_title(result));
    if (ranged) out += range_section(block.name, block.metrics, ReportFormat::text);
    out += load_tables(result, block, ReportFormat::text);
  }
  out += ycsb_section(result, ReportFormat::text);

  if (result.failures.empty()) return;
  line(fmt::format("failures ({}):", result.failures.size()));
  for (const Failure& failure : result.failures) {
    std::string text = "  " + failure_context(failure) + ": " +
                       std::string(result::failure_kind_name(failure.kind));
    if (const std::string status = status_text(failure); !status.empty()) {
      text += " (" + status + ")";
    }
    if (!failure.message.empty()) text += ": " + one_line(failure.message);
    line(text);
    for (const auto& tail : tail_lines(failure.stderr_tail)) line("    | " + tail);
  }
}

// ----------------------------------------------------------------------------------
// Markdown
// ----------------------------------------------------------------------------------

std::string cell(std::string_view text) {
  return markdown_cell(text);
}

// A row of already-escaped cells.
std::string row(const std::vector<std::string>& cells) {
  return fmt::format("| {} |\n", fmt::join(cells, " | "));
}

// A code fence longer than any backtick run in `text`, so the block cannot end early.
std::string fence_for(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

void render_engine_table(const EngineBlock& block, std::uint32_t repeat, std::string& out) {
  out += fmt::format("## {}\n\n", block.name);
  if (block.metrics.empty()) {
    out += "No results.\n\n";
    return;
  }
  const auto [columns, rows] = metric_table(block.metrics, repeat, ReportFormat::markdown);
  out += markdown_table(columns, rows);
  out += '\n';
  if (std::none_of(block.metrics.begin(), block.metrics.end(),
                   [](const Metric* m) { return has_warnings(*m); })) {
    return;
  }
  out += "Warnings:\n\n";
  for (const Metric* metric : block.metrics) {
    if (metric->warnings.empty()) continue;
    out += fmt::format("- `{}`: {}\n", label_of(*metric),
                       cell(fmt::format("{}", fmt::join(metric->warnings, "; "))));
  }
  out += '\n';
}

// A table of the engines whose build the result records, after the environment's.
void render_plugin_builds(const ResultFile& result, std::string& out) {
  std::string rows;
  for (const result::EngineRecord& engine : result.experiment.engines) {
    if (!engine.build) continue;
    const result::PluginBuild& b = *engine.build;
    rows += row({cell(engine.name), cell(b.type), cell(result::optimization_text(b)),
                 cell(b.compiler), cell(b.flags), cell(or_unknown(b.file_hash))});
  }
  if (rows.empty()) return;
  out += "## Plugin builds\n\n| engine | build | optimization | compiler | flags | file hash |\n";
  out += "|---|---|---|---|---|---|\n" + rows + "\n";
}

void render_markdown(const ResultFile& result, std::string& out) {
  const auto& experiment = result.experiment;
  const auto& env = result.environment;
  out += fmt::format("# storh-host report: {}\n\n", cell(experiment.suite));
  const std::string datasets = fmt::format("{}", fmt::join(experiment.datasets, ", "));
  out +=
      fmt::format("- datasets: {}\n- repeat: {}\n- fingerprint: {}\n- durability: {}\n\n",
                  or_unknown(datasets), repeat_setting(experiment),
                  experiment.fingerprint.empty() ? "unknown" : "`" + experiment.fingerprint + "`",
                  or_unknown(experiment.durability));
  for (const auto& warning : run_warnings(result)) {
    out += fmt::format("> **Warning:** {}\n\n", one_line(warning));
  }
  if (const std::string summary = metric_warnings_summary(result); !summary.empty()) {
    out += fmt::format("> **Warning:** {}\n\n", summary);
  }
  if (result.interrupted) out += fmt::format("> **Interrupted:** {}\n\n", kInterrupted);

  out += "## Environment\n\n| | |\n|---|---|\n";
  auto rows = environment_rows(env);
  rows.emplace_back("Time", or_unknown(env.time));
  for (const auto& [name, value] : rows) out += row({name, cell(value)});
  out += '\n';
  render_plugin_builds(result, out);

  const bool ranged = has_several_datasets(result);
  if (!result.metrics.empty())
    out += fmt::format("Legend: {}.\n\n", legend(result, ReportFormat::markdown));
  if (const std::string note = min_time_note(result); !note.empty()) {
    out += fmt::format("Note: {}.\n\n", note);
  }
  for (const auto& block : engine_blocks(result)) {
    render_engine_table(block, experiment.repeat, out);
    out += counters_section(block.metrics, ReportFormat::markdown, counters_title(result));
    if (ranged) out += range_section(block.name, block.metrics, ReportFormat::markdown);
    out += load_tables(result, block, ReportFormat::markdown);
  }
  out += ycsb_section(result, ReportFormat::markdown);

  if (result.failures.empty()) return;
  out += "## Failures\n\n";
  out += "| engine | dataset | params | repeat | operation | kind | status | message |\n";
  out += "|---|---:|---|---:|---|---|---|---|\n";
  for (const Failure& failure : result.failures) {
    const std::string status = status_text(failure);
    out +=
        row({cell(failure.engine), std::to_string(failure.dataset),
             failure.params.empty() ? "-" : cell(params_text(failure.params)),
             repeat_text(failure.repeat), cell(failure.operation.empty() ? "-" : failure.operation),
             cell(std::string(result::failure_kind_name(failure.kind))),
             status.empty() ? "-" : status, cell(failure.message)});
  }
  out += '\n';
  for (const Failure& failure : result.failures) {
    const auto lines = tail_lines(failure.stderr_tail);
    if (lines.empty()) continue;
    const std::string text = fmt::format("{}", fmt::join(lines, "\n"));
    const std::string fence = fence_for(text);
    out += fmt::format("stderr tail of {}:\n\n{}text\n{}\n{}\n\n", failure_context(failure), fence,
                       text, fence);
  }
}

}  // namespace

std::optional<ReportFormat> parse_report_format(std::string_view name) {
  if (name == "text") return ReportFormat::text;
  if (name == "md" || name == "markdown") return ReportFormat::markdown;
  if (name == "csv") return ReportFormat::csv;
  if (name == "json") return ReportFormat::json;
  if (name == "html") return ReportFormat::html;
  if (name == "csv-intervals") return ReportFormat::csv_intervals;
  return std::nullopt;
}

std::string render_report(const ResultFile& result, ReportFormat format, const HtmlAssets& assets) {
  std::string out;
  switch (format) {
    case ReportFormat::text:
      render_text(result, out);
      break;
    case ReportFormat::markdown:
      render_markdown(result, out);
      while (out.ends_with("\n\n")) out.pop_back();  // sections end with a blank line
      break;
    case ReportFormat::csv:
      out = metrics_csv(result);
      break;
    case ReportFormat::csv_intervals:
      out = intervals_csv(result);
      break;
    case ReportFormat::json:
      out = result::to_json_text(result);
      break;
    case ReportFormat::html:
      out = render_html_report(result, assets);
      break;
  }
  return out;
}

}  // namespace storh::report
