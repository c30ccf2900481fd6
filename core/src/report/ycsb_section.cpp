#include "report/ycsb_section.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/format.h"
#include "report/html.h"
#include "report/table.h"
#include "result/metric_key.h"

namespace storh::report {
namespace {

using result::Metric;

// The kinds in the order YCSB's workloads name them; then any other phase.
constexpr std::string_view kKindOrder[] = {"read", "update", "insert", "scan", "read_modify_write"};

// One row: an engine cell of one workload ("rocksdb[clients=2]"), by phase ("" is
// the mix, "load" the load phase, else the kind).
struct Row {
  std::string label;
  std::map<std::string, const Metric*> phases;
};

struct Workload {
  std::vector<Row> rows;
  std::vector<std::string> kinds;  // in kKindOrder order
};

std::string ops_text(const Metric* metric) {
  if (metric == nullptr || !metric->load) return kAbsent;
  return format_rate(metric->load->tps_excluding_setup, "ops");
}

std::string p99_text(const Metric* metric) {
  if (metric == nullptr || !metric->load || !metric->load->latency || !metric->load->latency->p99) {
    return kAbsent;
  }
  return format_seconds(*metric->load->latency->p99);
}

bool is_ycsb_operation(std::string_view op) {
  return op.starts_with("ycsb_") && op.size() >= 6 && (op.size() == 6 || op[6] == '.');
}

std::map<char, Workload> collect(const result::ResultFile& result) {
  std::map<char, Workload> workloads;
  for (const Metric& metric : result.metrics) {
    if (!metric.load) continue;
    const result::MetricKey key = result::MetricKey::parse(metric.key);
    const std::string_view op = key.operation;
    if (!is_ycsb_operation(op)) continue;
    const char letter = op[5];
    const std::string phase(op.size() > 7 ? op.substr(7) : std::string_view{});
    Workload& workload = workloads[letter];
    result::MetricKey row_key = key;
    row_key.operation.clear();
    const std::string label = row_key.to_string();
    auto row = std::find_if(workload.rows.begin(), workload.rows.end(),
                            [&](const Row& r) { return r.label == label; });
    if (row == workload.rows.end()) row = workload.rows.insert(workload.rows.end(), {label, {}});
    row->phases[phase] = &metric;
    if (phase.empty() || phase == "load") continue;
    if (std::find(workload.kinds.begin(), workload.kinds.end(), phase) == workload.kinds.end()) {
      workload.kinds.push_back(phase);
    }
  }
  const auto rank = [](const std::string& kind) {
    const auto* at = std::find(std::begin(kKindOrder), std::end(kKindOrder), kind);
    return at - std::begin(kKindOrder);
  };
  for (auto& [letter, workload] : workloads) {
    std::stable_sort(workload.kinds.begin(), workload.kinds.end(),
                     [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  }
  return workloads;
}

}  // namespace

bool is_ycsb_metric(const result::Metric& metric) {
  return metric.load.has_value() &&
         is_ycsb_operation(result::MetricKey::parse(metric.key).operation);
}

std::string ycsb_section(const result::ResultFile& result, ReportFormat format) {
  std::string out;
  for (const auto& [letter, workload] : collect(result)) {
    std::vector<Column> columns = {
        {"engine"}, {"load ops/s", Align::right}, {"ops/s", Align::right}, {"p99", Align::right}};
    for (const std::string& kind : workload.kinds) {
      columns.push_back({kind + " ops/s", Align::right});
      columns.push_back({kind + " p99", Align::right});
    }
    Rows rows;
    for (const Row& row : workload.rows) {
      const auto phase = [&](const std::string& name) -> const Metric* {
        const auto it = row.phases.find(name);
        return it == row.phases.end() ? nullptr : it->second;
      };
      std::vector<std::string> cells = {row.label, ops_text(phase("load")), ops_text(phase("")),
                                        p99_text(phase(""))};
      for (const std::string& kind : workload.kinds) {
        cells.push_back(ops_text(phase(kind)));
        cells.push_back(p99_text(phase(kind)));
      }
      rows.push_back(std::move(cells));
    }
    if (format == ReportFormat::html) {
      // Engines as rows, as the text report; the id lets a page link to a workload.
      out += fmt::format(
          "<section class=\"ycsb\" id=\"ycsb-{0}\">\n<h2>YCSB workload {0}</h2>\n{1}"
          "</section>\n",
          letter, html_table(columns, rows));
      continue;
    }
    if (format == ReportFormat::markdown) {
      out += fmt::format("## YCSB workload {}\n\n", letter);
      out += markdown_table(columns, rows);
      out += '\n';
      continue;
    }
    out += fmt::format("YCSB workload {}:\n", letter);
    const std::string table = text_table(columns, rows);
    std::string_view rest = table;
    while (!rest.empty()) {
      const auto end = rest.find('\n');
      out += "  ";
      out += rest.substr(0, end);
      out += '\n';
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }
  return out;
}

}  // namespace storh::report
