#include "report/load_section.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "load/config.h"
#include "report/format.h"
#include "report/html.h"
#include "report/report_parts.h"
#include "report/table.h"
#include "result/metric_key.h"

namespace storh::report {
namespace {

using result::LoadResult;
using result::Metric;

// The metric key's label without the engine and the load qualifiers:
// "doc.put_get[n=1000,clients=4,transactions=100]" -> "put_get[n=1000]".
std::string group_label(const Metric& metric) {
  result::MetricKey key = result::MetricKey::parse(metric.key);
  key.operation = metric.operation;
  std::erase_if(key.qualifiers, [](const std::string& q) { return is_load_qualifier(q); });
  return key.label();
}

// A column of the matrix: transactions per client, or a duration; sorted by value.
struct Amount {
  bool is_duration = false;
  double value = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy reads the defaulted <=> as a 0 literal
  auto operator<=>(const Amount&) const = default;
};

Amount amount_of(const LoadResult& load) {
  if (load.transactions_per_client) {
    return {false, static_cast<double>(*load.transactions_per_client)};
  }
  return {true, load.duration_seconds.value_or(0)};
}

std::string amount_text(const Amount& amount) {
  return amount.is_duration ? load::duration_text(amount.value)
                            : fmt::format("{}", static_cast<std::uint64_t>(amount.value));
}

struct Group {
  std::string label;
  std::map<std::pair<std::uint32_t, Amount>, const Metric*> cells;
  std::set<std::uint32_t> clients;
  std::set<Amount> amounts;
  std::size_t repeats = 0;
};

using CellText = std::function<std::string(const LoadResult&)>;

struct MetricColumn {
  std::string name;
  CellText text;
};

std::string seconds_or_absent(const std::optional<double>& value) {
  return value ? format_seconds(*value) : kAbsent;
}

std::string latency_text(const LoadResult& load,
                         const std::function<std::optional<double>(const result::Latency&)>& get) {
  return load.latency ? seconds_or_absent(get(*load.latency)) : kAbsent;
}

// The conflict columns (pgbench 15's retried, retries and failures by kind) and the
// reconnection time (pgbench -C), each only when some cell has it.
void add_try_columns(const std::vector<Group>& groups, std::vector<MetricColumn>& list) {
  using Count = std::uint64_t LoadResult::*;
  const std::pair<const char*, Count> counts[] = {
      {"retried", &LoadResult::retried},
      {"retries", &LoadResult::retries},
      {"serialization failures", &LoadResult::serialization_failures},
      {"deadlock failures", &LoadResult::deadlock_failures}};
  const auto any = [&](const std::function<bool(const LoadResult&)>& has) {
    for (const Group& group : groups) {
      for (const auto& [position, metric] : group.cells) {
        if (has(*metric->load)) return true;
      }
    }
    return false;
  };
  for (const auto& [name, member] : counts) {
    if (!any([member = member](const LoadResult& l) { return l.*member > 0; })) continue;
    list.push_back(
        {name, [member = member](const LoadResult& l) { return std::to_string(l.*member); }});
  }
  if (any([](const LoadResult& l) { return l.connection_mean.has_value(); })) {
    list.push_back({"connection mean", [](const LoadResult& l) {
                      return l.connection_mean ? format_seconds(*l.connection_mean) : kAbsent;
                    }});
  }
}

// With a rate: the schedule lag's mean and max; with a latency limit: late and skipped
// transactions. Each only when some cell has it.
void add_lateness_columns(const std::vector<Group>& groups, std::vector<MetricColumn>& list) {
  bool lag = false, late = false, skipped = false;
  for (const Group& group : groups) {
    for (const auto& [position, metric] : group.cells) {
      lag = lag || metric->load->lag.has_value();
      late = late || metric->load->late > 0;
      skipped = skipped || metric->load->skipped > 0;
    }
  }
  if (lag) {
    list.push_back({"schedule lag mean", [](const LoadResult& l) {
                      return l.lag ? format_seconds(l.lag->mean) : kAbsent;
                    }});
    list.push_back({"schedule lag max", [](const LoadResult& l) {
                      return l.lag ? format_seconds(l.lag->max) : kAbsent;
                    }});
  }
  if (late) {
    list.push_back(
        {"late (over latency_limit)", [](const LoadResult& l) { return std::to_string(l.late); }});
  }
  if (skipped) {
    list.push_back(
        {"skipped (late when due)", [](const LoadResult& l) { return std::to_string(l.skipped); }});
  }
}

std::vector<MetricColumn> metric_columns(const std::vector<Group>& groups) {
  using L = result::Latency;
  std::vector<MetricColumn> list = {
      {"tps excluding set-up",
       [](const LoadResult& l) { return fmt::format("{:.1f}", l.tps_excluding_setup); }},
      {"tps including set-up",
       [](const LoadResult& l) { return fmt::format("{:.1f}", l.tps_including_setup); }},
      {"latency mean",
       [](const LoadResult& l) {
         return latency_text(l, [](const L& t) { return std::optional(t.mean); });
       }},
      {"latency stddev",
       [](const LoadResult& l) {
         return latency_text(l, [](const L& t) { return std::optional(t.stddev); });
       }},
      {"latency p50",
       [](const LoadResult& l) { return latency_text(l, [](const L& t) { return t.p50; }); }},
      {"latency p95",
       [](const LoadResult& l) { return latency_text(l, [](const L& t) { return t.p95; }); }},
      {"latency p99",
       [](const LoadResult& l) { return latency_text(l, [](const L& t) { return t.p99; }); }},
      {"latency p99.9",
       [](const LoadResult& l) { return latency_text(l, [](const L& t) { return t.p999; }); }},
      {"latency max",
       [](const LoadResult& l) {
         return latency_text(l, [](const L& t) { return std::optional(t.max); });
       }},
  };
  bool short_of_intended = false, failed = false;
  for (const Group& group : groups) {
    for (const auto& [position, metric] : group.cells) {
      const LoadResult& l = *metric->load;
      if (l.intended && l.processed < *l.intended) short_of_intended = true;
      if (l.failed > 0) failed = true;
    }
  }
  if (short_of_intended) {
    list.push_back({"processed of intended", [](const LoadResult& l) {
                      return l.intended ? fmt::format("{}/{}", l.processed, *l.intended)
                                        : std::to_string(l.processed);
                    }});
  }
  if (failed) {
    list.push_back({"failed", [](const LoadResult& l) { return std::to_string(l.failed); }});
  }
  add_try_columns(groups, list);
  add_lateness_columns(groups, list);
  return list;
}

std::vector<Group> groups_of(const std::vector<const Metric*>& metrics) {
  std::vector<Group> groups;
  for (const Metric* metric : metrics) {
    if (!metric->load) continue;
    const std::string label = group_label(*metric);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.label == label; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{label, {}, {}, {}, 0});
    const Amount amount = amount_of(*metric->load);
    it->cells[{metric->load->clients, amount}] = metric;
    it->clients.insert(metric->load->clients);
    it->amounts.insert(amount);
    it->repeats = std::max(it->repeats, metric->load->repeats.size());
  }
  return groups;
}

report::Rows rows_of(const Group& group, const MetricColumn& column) {
  report::Rows rows;
  for (std::uint32_t clients : group.clients) {
    std::vector<std::string> row = {std::to_string(clients)};
    for (const Amount& amount : group.amounts) {
      const auto cell = group.cells.find({clients, amount});
      row.push_back(cell == group.cells.end() ? kAbsent : column.text(*cell->second->load));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Column> columns_of(const Group& group) {
  const bool durations = !group.amounts.empty() && group.amounts.begin()->is_duration;
  std::vector<Column> columns = {
      {durations ? "clients \\ duration" : "clients \\ transactions", Align::left}};
  for (const Amount& amount : group.amounts) columns.push_back({amount_text(amount), Align::right});
  return columns;
}

std::string heading(const Group& group) {
  const bool durations = !group.amounts.empty() && group.amounts.begin()->is_duration;
  return fmt::format("{}: clients x {} (repeats: {})", group.label,
                     durations ? "duration" : "transactions per client", group.repeats);
}

// Inline style of a heat-map cell, `fraction` of the way from the group's lowest tps
// (pale) to its highest (strong blue), with text that stays readable on it.
std::string heat_style(double fraction) {
  const long lightness = 95 - std::lround(std::clamp(fraction, 0.0, 1.0) * 50);  // 95% .. 45%
  return fmt::format("background:hsl(212,70%,{}%);color:{}", lightness,
                     lightness < 65 ? "#fff" : "#111");
}

// The tps (excluding set-up) matrix as a table whose cells are coloured by their value.
std::string heat_map(const Group& group) {
  double lowest = 0, highest = 0;
  bool first = true;
  for (const auto& [position, metric] : group.cells) {
    const double tps = metric->load->tps_excluding_setup;
    lowest = first ? tps : std::min(lowest, tps);
    highest = first ? tps : std::max(highest, tps);
    first = false;
  }
  std::string out = std::string(kTableBoxOpen) + "<table class=\"heat-map\">\n<thead><tr>";
  for (const Column& column : columns_of(group)) {
    out += fmt::format("<th>{}</th>", html_escape(column.header));
  }
  out += "</tr></thead>\n<tbody>\n";
  for (std::uint32_t clients : group.clients) {
    out += fmt::format("<tr><th>{}</th>", clients);
    for (const Amount& amount : group.amounts) {
      const auto cell = group.cells.find({clients, amount});
      if (cell == group.cells.end()) {
        out += "<td class=\"num\">-</td>";
        continue;
      }
      const double tps = cell->second->load->tps_excluding_setup;
      out +=
          fmt::format("<td class=\"num heat\" style=\"{}\">{:.1f}</td>",
                      heat_style(highest > lowest ? (tps - lowest) / (highest - lowest) : 1), tps);
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>" + kTableBoxClose;
}

// The latency percentiles of each cell, for a grouped bar chart (kind "latency").
nlohmann::json latency_chart(const Group& group) {
  using L = result::Latency;
  const std::pair<const char*, std::optional<double> L::*> percentiles[] = {
      {"p50", &L::p50}, {"p95", &L::p95}, {"p99", &L::p99}, {"p99.9", &L::p999}};
  nlohmann::json labels = nlohmann::json::array();
  nlohmann::json series = nlohmann::json::array();
  for (const auto& [name, member] : percentiles) {
    series.push_back({{"label", name}, {"values", nlohmann::json::array()}});
  }
  for (const auto& [position, metric] : group.cells) {  // clients, then amount, ascending
    labels.push_back(fmt::format("{} x {}", position.first, amount_text(position.second)));
    for (std::size_t i = 0; i < std::size(percentiles); ++i) {
      const auto& latency = metric->load->latency;
      nlohmann::json& values = series[i]["values"];
      if (latency && ((*latency).*(percentiles[i].second)).has_value()) {
        values.push_back(((*latency).*(percentiles[i].second)).value());
      } else {
        values.push_back(nullptr);
      }
    }
  }
  return {{"kind", "latency"}, {"labels", std::move(labels)}, {"series", std::move(series)}};
}

}  // namespace

std::string load_section_html(const std::string& engine, const std::vector<const Metric*>& metrics,
                              HtmlCharts& charts) {
  const std::vector<Group> groups = groups_of(metrics);
  if (groups.empty()) return "";
  const std::vector<MetricColumn> columns = metric_columns(groups);
  std::string out;
  for (const Group& group : groups) {
    out += fmt::format("<h3>{}.{}</h3>\n", html_escape(engine), html_escape(heading(group)));
    out +=
        "<p>Transactions per second excluding set-up (mean over the repeats), by clients "
        "(rows) and transactions per client or duration (columns):</p>\n";
    out += heat_map(group);
    nlohmann::json latency = latency_chart(group);
    const bool measured = std::any_of(
        latency["series"].begin(), latency["series"].end(), [](const nlohmann::json& series) {
          return std::any_of(series["values"].begin(), series["values"].end(),
                             [](const nlohmann::json& v) { return v.is_number(); });
        });
    if (measured) {  // no latency recorded: nothing to draw
      out += charts.figure(std::move(latency),
                           "latency percentiles of each clients x transactions cell, merged over "
                           "clients and repeats (log axis)");
    }
    out += "<details><summary>every matrix</summary>\n";
    for (const MetricColumn& column : columns) {
      out += fmt::format("<h4>{}</h4>\n", html_escape(column.name));
      out += html_table(columns_of(group), rows_of(group, column));
    }
    out += "</details>\n";
  }
  return out;
}

std::string load_section(const std::string& engine, const std::vector<const Metric*>& metrics,
                         ReportFormat format) {
  const std::vector<Group> groups = groups_of(metrics);
  if (groups.empty()) return "";
  const std::vector<MetricColumn> columns = metric_columns(groups);
  std::string out;
  for (const Group& group : groups) {
    if (format == ReportFormat::text) {
      out += fmt::format("  {}\n", heading(group));
      for (const MetricColumn& column : columns) {
        out += fmt::format("    {}\n", column.name);
        out += indent_lines(text_table(columns_of(group), rows_of(group, column)), 6);
      }
    } else {
      out += fmt::format("### {}.{}\n\n", engine, markdown_cell(heading(group)));
      for (const MetricColumn& column : columns) {
        out += fmt::format("**{}**\n\n", column.name);
        out += markdown_table(columns_of(group), rows_of(group, column));
        out += '\n';
      }
    }
  }
  return out;
}

}  // namespace storh::report
