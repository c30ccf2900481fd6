#include "report/statements_section.h"

#include <fmt/format.h>

#include "report/html.h"
#include "report/table.h"

namespace storh::report {
namespace {

using result::Metric;
using result::StatementLatency;

constexpr const char* kTitle = "statement latencies in milliseconds, failures and retries";

std::string cell_name(const Metric& metric) {
  const std::string prefix = metric.engine + ".";
  return metric.key.starts_with(prefix) ? metric.key.substr(prefix.size()) : metric.key;
}

double mean_ms(const StatementLatency& row) {
  return row.count > 0 ? row.seconds * 1e3 / static_cast<double>(row.count) : 0.0;
}

bool has_rows(const Metric* metric) {
  return metric->load && !metric->load->statements.empty();
}

std::pair<std::vector<Column>, Rows> table_of(const Metric& metric) {
  const std::vector<Column> columns = {{"script", Align::left},      {"line", Align::right},
                                       {"latency ms", Align::right}, {"failures", Align::right},
                                       {"retries", Align::right},    {"command", Align::left}};
  Rows rows;
  for (const StatementLatency& row : metric.load->statements) {
    rows.push_back({row.script, std::to_string(row.line), fmt::format("{:.3f}", mean_ms(row)),
                    std::to_string(row.failures), std::to_string(row.retries), row.command});
  }
  return {columns, rows};
}

std::string text_block(const Metric& metric) {
  std::string out = fmt::format("  {}: {}\n", kTitle, cell_name(metric));
  const std::string* script = nullptr;
  for (const StatementLatency& row : metric.load->statements) {
    if (!row.script.empty() && (script == nullptr || *script != row.script)) {
      out += fmt::format("    script {}:\n", row.script);
    }
    script = &row.script;
    out += fmt::format("    {:>11.3f}  {:>10}  {:>10}  {}\n", mean_ms(row), row.failures,
                       row.retries, row.command);
  }
  return out;
}

}  // namespace

std::string statements_section(const std::vector<const Metric*>& metrics, ReportFormat format) {
  std::string out;
  for (const Metric* metric : metrics) {
    if (!has_rows(metric)) continue;
    if (format == ReportFormat::text) {
      out += text_block(*metric);
      continue;
    }
    const auto [columns, rows] = table_of(*metric);
    out += fmt::format("**{}: {}**\n\n", kTitle, markdown_cell(cell_name(*metric)));
    out += markdown_table(columns, rows) + "\n";
  }
  return out;
}

std::string statements_html(const std::vector<const Metric*>& metrics) {
  std::string out;
  for (const Metric* metric : metrics) {
    if (!has_rows(metric)) continue;
    const auto [columns, rows] = table_of(*metric);
    out += fmt::format("<h3>{}: {}</h3>\n", html_escape(kTitle), html_escape(cell_name(*metric)));
    out += html_table(columns, rows);
  }
  return out;
}

}  // namespace storh::report
