// report/report_html.cpp: render_report(..., ReportFormat::html): the text report's
// content as one self-contained page with charts (report/html.h).
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/counters_section.h"
#include "report/format.h"
#include "report/html.h"
#include "report/html_assets.h"
#include "report/load_section.h"
#include "report/load_time_section.h"
#include "report/range_section.h"
#include "report/report.h"
#include "report/report_parts.h"
#include "report/statements_section.h"
#include "report/ycsb_section.h"
#include "result/plugin_build.h"

namespace storh::report {
namespace {

using result::Failure;
using result::Metric;
using result::ResultFile;

std::string e(std::string_view text) {
  return html_escape(text);
}

// A definition list of label/value pairs (values are text, escaped here).
std::string definitions(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<dl>\n";
  for (const auto& [label, value] : items) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", e(label), e(value));
  }
  return out + "</dl>\n";
}

// A load run's metrics only: min_time (how long a repeated step's batch lasts) never
// applies to them, so its header leaves it out.
bool all_load(const ResultFile& result) {
  return !result.metrics.empty() && std::all_of(result.metrics.begin(), result.metrics.end(),
                                                [](const Metric& m) { return m.load.has_value(); });
}

std::string experiment_section(const ResultFile& result) {
  const result::Experiment& x = result.experiment;
  std::vector<std::pair<std::string, std::string>> items = {
      {"suite file", or_unknown(x.suite_file)},
      {"datasets", or_unknown(fmt::format("{}", fmt::join(x.datasets, ", ")))},
      // An adaptive repeat is min..max@until: its min alone says too little.
      {"repeat", fmt::format("{} (warm-up {})", repeat_setting(x), x.warmup)},
      {"durability", or_unknown(x.durability)},
      {"fingerprint", or_unknown(x.fingerprint)},
      {"time", or_unknown(result.environment.time)}};
  if (x.min_time_seconds && !all_load(result)) {
    items.push_back({"min_time", format_seconds(*x.min_time_seconds)});
  }
  return fmt::format("<header>\n<h1>storh-host report: {}</h1>\n{}</header>\n", e(x.suite),
                     definitions(items));
}

// Warnings and the interrupted mark, at the top, where nobody misses them.
std::string warnings_section(const ResultFile& result) {
  std::vector<std::string> warnings = run_warnings(result);
  if (const std::string summary = metric_warnings_summary(result); !summary.empty()) {
    warnings.push_back(summary);
  }
  std::string out;
  if (result.interrupted) {
    out += fmt::format("<p class=\"alert interrupted\"><strong>Interrupted:</strong> {}</p>\n",
                       e(kInterrupted));
  }
  if (!result.failures.empty()) {
    out += fmt::format(
        "<p class=\"alert\"><strong>{} failure{}:</strong> see <a href=\"#failures\">Failures"
        "</a>.</p>\n",
        result.failures.size(), result.failures.size() == 1 ? "" : "s");
  }
  if (warnings.empty()) return out;
  out += "<section class=\"warnings\"><h2>Warnings</h2>\n<ul>\n";
  for (const std::string& warning : warnings) out += fmt::format("<li>{}</li>\n", e(warning));
  return out + "</ul>\n</section>\n";
}

// Each operation's median as a point on its min .. max bar (kind "metrics"); load
// metrics are left to the load section.
std::string metrics_figure(const std::vector<const Metric*>& metrics, HtmlCharts& charts) {
  nlohmann::json labels = nlohmann::json::array(), median = nlohmann::json::array(),
                 low = nlohmann::json::array(), high = nlohmann::json::array(),
                 runs = nlohmann::json::array();
  for (const Metric* metric : metrics) {
    if (metric->load || !(metric->seconds.median > 0)) continue;  // a log axis has no 0
    labels.push_back(label_of(*metric));
    median.push_back(metric->seconds.median);
    low.push_back(metric->seconds.min);
    high.push_back(metric->seconds.max);
    runs.push_back(metric->seconds.runs);
  }
  if (labels.empty()) return "";
  const int height = bar_chart_height(labels.size());
  return charts.figure({{"kind", "metrics"},
                        {"labels", std::move(labels)},
                        {"median", std::move(median)},
                        {"min", std::move(low)},
                        {"max", std::move(high)},
                        {"runs", std::move(runs)}},
                       "median time of one step (point) and its min .. max over the repeats "
                       "(bar), log axis",
                       height);
}

std::string engine_section(const EngineBlock& block, const ResultFile& result, bool ranged,
                           HtmlCharts& charts) {
  std::string out = fmt::format("<section class=\"engine\" id=\"engine-{}\">\n<h2>{}</h2>\n",
                                e(block.name), e(block.name));
  if (block.metrics.empty()) return out + "<p>No results.</p>\n</section>\n";
  out += metrics_figure(block.metrics, charts);
  const auto [columns, rows] =
      metric_table(block.metrics, result.experiment.repeat, ReportFormat::html);
  out += html_table(columns, rows);
  if (std::any_of(block.metrics.begin(), block.metrics.end(),
                  [](const Metric* m) { return has_warnings(*m); })) {
    out += "<p>Warnings:</p>\n<ul class=\"metric-warnings\">\n";
    for (const Metric* metric : block.metrics) {
      if (metric->warnings.empty()) continue;
      out += fmt::format("<li><code>{}</code>: {}</li>\n", e(label_of(*metric)),
                         e(fmt::format("{}", fmt::join(metric->warnings, "; "))));
    }
    out += "</ul>\n";
  }
  if (has_counted(block.metrics) || has_engine_counters(block.metrics)) {
    const auto [counter_columns, counter_rows] = counters_table(block.metrics);
    std::string title = counters_title(result);
    title[0] = static_cast<char>(std::toupper(title[0]));
    out += "<h3>" + e(title) + "</h3>\n" + html_table(counter_columns, counter_rows);
  }
  if (ranged) out += range_section_html(block.metrics, charts);
  // YCSB metrics have no clients x amount matrix; their table (ycsb_section) follows
  // the engines, one per workload with the engines as rows.
  std::vector<const result::Metric*> load_metrics = block.metrics;
  std::erase_if(load_metrics, [](const result::Metric* m) { return is_ycsb_metric(*m); });
  out += load_section_html(block.name, load_metrics, charts);
  out += load_time_html(load_metrics, charts);
  out += statements_html(load_metrics);
  return out + "</section>\n";
}

std::string failures_section(const ResultFile& result) {
  if (result.failures.empty()) return "";
  const std::vector<Column> columns = {{"engine", Align::left},    {"dataset", Align::right},
                                       {"params", Align::left},    {"repeat", Align::right},
                                       {"operation", Align::left}, {"kind", Align::left},
                                       {"status", Align::left},    {"message", Align::left}};
  Rows rows;
  std::string tails;
  for (const Failure& failure : result.failures) {
    const std::string status = status_text(failure);
    rows.push_back({failure.engine, std::to_string(failure.dataset),
                    failure.params.empty() ? "-" : params_text(failure.params),
                    repeat_text(failure.repeat),
                    failure.operation.empty() ? "-" : failure.operation,
                    std::string(result::failure_kind_name(failure.kind)),
                    status.empty() ? "-" : status, one_line(failure.message)});
    const auto lines = tail_lines(failure.stderr_tail);
    if (lines.empty()) continue;
    tails += fmt::format("<p>stderr tail of {}:</p>\n<pre>{}</pre>\n", e(failure_context(failure)),
                         e(fmt::format("{}", fmt::join(lines, "\n"))));
  }
  return fmt::format(
      "<section class=\"failures\" id=\"failures\">\n<h2>Failures ({})</h2>\n{}{}"
      "</section>\n",
      result.failures.size(), html_table(columns, rows), tails);
}

std::string environment_section(const ResultFile& result) {
  std::string out = "<section class=\"environment\">\n<h2>Environment</h2>\n";
  out += definitions(environment_rows(result.environment));
  Rows builds;
  for (const result::EngineRecord& engine : result.experiment.engines) {
    if (!engine.build) continue;
    const result::PluginBuild& b = *engine.build;
    builds.push_back({engine.name, engine.version, b.type, result::optimization_text(b), b.compiler,
                      b.flags, or_unknown(b.file_hash)});
  }
  if (!builds.empty()) {
    out += "<h3>Plugin builds</h3>\n";
    out += html_table({{"engine", Align::left},
                       {"version", Align::left},
                       {"build", Align::left},
                       {"optimization", Align::left},
                       {"compiler", Align::left},
                       {"flags", Align::left},
                       {"file hash", Align::left}},
                      builds);
  }
  return out + "</section>\n";
}

}  // namespace

std::string render_html_report(const ResultFile& result, const HtmlAssets& assets) {
  HtmlCharts charts;
  const std::vector<EngineBlock> blocks = engine_blocks(result);
  std::string body = experiment_section(result) + warnings_section(result);
  if (blocks.size() > 1) {
    body += "<nav><ul>\n";
    for (const EngineBlock& block : blocks) {
      body += fmt::format("<li><a href=\"#engine-{}\">{}</a></li>\n", e(block.name), e(block.name));
    }
    body += "</ul></nav>\n";
  }
  body += "<main>\n";
  if (!result.metrics.empty()) {
    std::string legend_text = legend(result, ReportFormat::html);
    if (const std::string note = min_time_note(result); !note.empty()) {
      legend_text += ". " + note;
    }
    body += fmt::format("<p class=\"legend\">{}.</p>\n", e(legend_text));
  }
  const bool ranged = has_several_datasets(result);
  for (const EngineBlock& block : blocks) body += engine_section(block, result, ranged, charts);
  body += ycsb_section(result, ReportFormat::html);
  body += failures_section(result) + environment_section(result) + "</main>\n";
  return html_page("storh-host report: " + result.experiment.suite, body, charts, assets);
}

}  // namespace storh::report
