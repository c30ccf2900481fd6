#include "report/bench_section.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "report/report_parts.h"
#include "report/table.h"
#include "result/metric_key.h"

namespace storh::report {
namespace {

using result::LoadBench;
using result::LoadBenchPoint;
using result::LoadResult;
using result::Metric;

// The metric key's qualifiers other than the load cell's, joined as in the key.
std::string side_of(const Metric& metric) {
  std::vector<std::string> qualifiers = result::MetricKey::parse(metric.key).qualifiers;
  std::erase_if(qualifiers, [](const std::string& q) { return is_load_qualifier(q); });
  return fmt::format("{}", fmt::join(qualifiers, ","));
}

// Where a metric's side comes in the run's matrix: per qualifier of the side (in key
// order, which is the plan's), the index of the metric's value among the values the
// experiment records, so sides sort as the suite listed them ("on" before "off").
std::vector<std::size_t> side_order(const Metric& metric, const result::Experiment& experiment) {
  constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> order;
  const auto engine_params =
      std::find_if(experiment.params.begin(), experiment.params.end(),
                   [&](const auto& entry) { return entry.first == metric.engine; });
  for (const std::string& qualifier : result::MetricKey::parse(metric.key).qualifiers) {
    if (is_load_qualifier(qualifier)) continue;
    const std::string name = qualifier.substr(0, qualifier.find('='));
    std::size_t index = kUnknown;
    if (name == "n") {
      const auto at =
          std::find(experiment.datasets.begin(), experiment.datasets.end(), metric.dataset);
      if (at != experiment.datasets.end()) index = at - experiment.datasets.begin();
    } else if (engine_params != experiment.params.end()) {
      const auto value = std::find_if(metric.params.begin(), metric.params.end(),
                                      [&](const result::Param& p) { return p.first == name; });
      const auto values = std::find_if(engine_params->second.begin(), engine_params->second.end(),
                                       [&](const auto& entry) { return entry.first == name; });
      if (value != metric.params.end() && values != engine_params->second.end()) {
        const auto at = std::find(values->second.begin(), values->second.end(), value->second);
        if (at != values->second.end()) index = at - values->second.begin();
      }
    }
    order.push_back(index);
  }
  return order;
}

// A load metric of one (side, operation, point).
struct BenchCell {
  std::string side;
  std::string operation;
  LoadBenchPoint point;
  const Metric* metric = nullptr;
};

struct Grid {
  std::string name;
  std::function<std::string(const LoadResult&)> text;
};

std::string milliseconds(const LoadResult& load,
                         std::optional<double> result::Latency::*percentile) {
  if (!load.latency || !((*load.latency).*percentile)) return kAbsent;
  return fmt::format("{:.3f}", *((*load.latency).*percentile) * 1e3);
}

// One bench's table for one operation of the engine.
class BenchTable {
 public:
  BenchTable(const LoadBench& bench, std::string operation, const std::vector<BenchCell>& cells,
             const std::vector<std::string>& sides, std::string single_side_label)
      : bench_(bench),
        operation_(std::move(operation)),
        cells_(cells),
        sides_(sides),
        single_side_label_(std::move(single_side_label)) {}

  std::string heading() const {
    std::size_t repeats = 0;
    for_each_metric([&](const Metric& m) { repeats = std::max(repeats, m.load->repeats.size()); });
    return fmt::format("{}: {} (repeats: {})", bench_.name, operation_, repeats);
  }

  // Whether `has` holds for some cell of the table.
  bool any(const std::function<bool(const LoadResult&)>& has) const {
    bool found = false;
    for_each_metric([&](const Metric& m) { found = found || has(*m.load); });
    return found;
  }

  std::vector<Column> columns() const {
    std::vector<Column> list = {{"side \\ clients/transactions", Align::left}};
    for (const LoadBenchPoint& p : bench_.points) {
      list.push_back({fmt::format("{}/{}", p.clients, p.transactions), Align::right});
    }
    return list;
  }

  Rows rows(const Grid& grid) const {
    Rows rows;
    for (const std::string& side : sides_) {
      std::vector<std::string> row = {
          side.empty() ? (sides_.size() == 1 ? single_side_label_ : "(default)") : side};
      for (const LoadBenchPoint& point : bench_.points) {
        const Metric* metric = find(side, point);
        row.push_back(metric != nullptr ? grid.text(*metric->load) : kAbsent);
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  const Metric* find(const std::string& side, const LoadBenchPoint& point) const {
    for (const BenchCell& cell : cells_) {
      if (cell.side == side && cell.operation == operation_ && cell.point == point) {
        return cell.metric;
      }
    }
    return nullptr;
  }

  void for_each_metric(const std::function<void(const Metric&)>& visit) const {
    for (const std::string& side : sides_) {
      for (const LoadBenchPoint& point : bench_.points) {
        if (const Metric* metric = find(side, point)) visit(*metric);
      }
    }
  }

  const LoadBench& bench_;
  std::string operation_;
  const std::vector<BenchCell>& cells_;
  const std::vector<std::string>& sides_;
  std::string single_side_label_;
};

// The grids of a table: tps and latency always; failures, the conflict counts (pgbench
// 15's retried, retries and failures by kind), the connection time (pgbench -C), the
// schedule lag (a rate, pgbench -R) and the late and skipped counts (pgbench -L) when
// some cell has them, as the clients x transactions matrices show them.
std::vector<Grid> grids(const BenchTable& table) {
  using L = result::Latency;
  std::vector<Grid> list = {
      {"tps excluding set-up",
       [](const LoadResult& l) { return fmt::format("{:.1f}", l.tps_excluding_setup); }},
      {"tps including set-up",
       [](const LoadResult& l) { return fmt::format("{:.1f}", l.tps_including_setup); }},
      {"latency p50 (ms)", [](const LoadResult& l) { return milliseconds(l, &L::p50); }},
      {"latency p95 (ms)", [](const LoadResult& l) { return milliseconds(l, &L::p95); }},
      {"latency p99 (ms)", [](const LoadResult& l) { return milliseconds(l, &L::p99); }},
  };
  using Count = std::uint64_t LoadResult::*;
  const std::pair<const char*, Count> counts[] = {
      {"failed", &LoadResult::failed},
      {"retried", &LoadResult::retried},
      {"retries", &LoadResult::retries},
      {"serialization failures", &LoadResult::serialization_failures},
      {"deadlock failures", &LoadResult::deadlock_failures},
      {"late (over latency_limit)", &LoadResult::late},
      {"skipped (late when due)", &LoadResult::skipped}};
  for (const auto& [name, member] : counts) {
    if (!table.any([member = member](const LoadResult& l) { return l.*member > 0; })) continue;
    list.push_back(
        {name, [member = member](const LoadResult& l) { return std::to_string(l.*member); }});
  }
  if (table.any([](const LoadResult& l) { return l.connection_mean.has_value(); })) {
    list.push_back({"connection mean (ms)", [](const LoadResult& l) {
                      return l.connection_mean ? fmt::format("{:.3f}", *l.connection_mean * 1e3)
                                               : std::string(kAbsent);
                    }});
  }
  if (table.any([](const LoadResult& l) { return l.lag.has_value(); })) {
    list.push_back({"schedule lag mean (ms)", [](const LoadResult& l) {
                      return l.lag ? fmt::format("{:.3f}", l.lag->mean * 1e3)
                                   : std::string(kAbsent);
                    }});
    list.push_back({"schedule lag max (ms)", [](const LoadResult& l) {
                      return l.lag ? fmt::format("{:.3f}", l.lag->max * 1e3) : std::string(kAbsent);
                    }});
  }
  return list;
}

// The operation, then its parts ("custom.transfer", Transactions::parts) in the order
// the cells have them.
std::vector<std::string> with_parts(const std::string& operation,
                                    const std::vector<BenchCell>& cells) {
  std::vector<std::string> names = {operation};
  for (const BenchCell& cell : cells) {
    if (cell.operation.starts_with(operation + ".") &&
        std::find(names.begin(), names.end(), cell.operation) == names.end()) {
      names.push_back(cell.operation);
    }
  }
  return names;
}

}  // namespace

std::string bench_section(const std::string& engine, const std::vector<const Metric*>& metrics,
                          const result::Experiment& experiment, ReportFormat format) {
  std::vector<BenchCell> cells;
  std::vector<std::pair<std::vector<std::size_t>, std::string>> ordered_sides;
  for (const Metric* metric : metrics) {
    // Bench points are counts of transactions; a duration cell is no point.
    if (!metric->load || !metric->load->transactions_per_client) continue;
    std::string side = side_of(*metric);
    if (std::none_of(ordered_sides.begin(), ordered_sides.end(),
                     [&](const auto& known) { return known.second == side; })) {
      ordered_sides.emplace_back(side_order(*metric, experiment), side);
    }
    cells.push_back({std::move(side),
                     metric->operation,
                     {metric->load->clients, *metric->load->transactions_per_client},
                     metric});
  }
  std::stable_sort(ordered_sides.begin(), ordered_sides.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> sides;
  sides.reserve(ordered_sides.size());
  for (auto& [order, side] : ordered_sides) sides.push_back(std::move(side));
  const auto record = std::find_if(experiment.engines.begin(), experiment.engines.end(),
                                   [&](const result::EngineRecord& e) { return e.name == engine; });
  const std::vector<std::string> operations =
      record != experiment.engines.end() ? record->operations : std::vector<std::string>{};
  std::string out;
  for (const LoadBench& bench : experiment.load_benches) {
    for (const std::string& bench_operation : bench.operations) {
      for (const std::string& operation : with_parts(bench_operation, cells)) {
        const bool ran =
            std::find(operations.begin(), operations.end(), operation) != operations.end() ||
            std::any_of(cells.begin(), cells.end(),
                        [&](const BenchCell& cell) { return cell.operation == operation; });
        if (!ran || sides.empty()) continue;
        const BenchTable table(bench, operation, cells, sides, engine);
        if (format == ReportFormat::markdown) {
          out += fmt::format("### {}: {}\n\n", engine, markdown_cell(table.heading()));
        } else {
          out += fmt::format("  {}\n", one_line(table.heading()));
        }
        for (const Grid& grid : grids(table)) {
          if (format == ReportFormat::markdown) {
            out += fmt::format("**{}**\n\n", grid.name);
            out += markdown_table(table.columns(), table.rows(grid));
            out += '\n';
          } else {
            out += fmt::format("    {}\n", grid.name);
            out += indent_lines(text_table(table.columns(), table.rows(grid)), 6);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace storh::report
