#include "report/report_parts.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "report/format.h"
#include "result/metric_key.h"
#include "suite/parse.h"  // param_value_text: the one canonical text of a value

namespace storh::report {

using result::Failure;
using result::Metric;
using result::ResultFile;

namespace {

constexpr std::size_t kStderrTailLines = 5;  // enough for a message and its context

bool any_metric(const std::vector<const Metric*>& metrics, bool (*test)(const Metric&)) {
  return std::any_of(metrics.begin(), metrics.end(), [test](const Metric* m) { return test(*m); });
}

bool has_spread(const Metric& m) {
  return spread_percent(m).has_value();
}

bool has_latency(const Metric& m) {
  return m.latency.has_value();
}

std::string latency_text(const Metric& metric, std::optional<double> result::Latency::*percentile) {
  const bool present = metric.latency && ((*metric.latency).*percentile).has_value();
  return present ? format_seconds(*((*metric.latency).*percentile)) : "-";
}

std::size_t metrics_with_warnings(const ResultFile& result) {
  return static_cast<std::size_t>(
      std::count_if(result.metrics.begin(), result.metrics.end(), has_warnings));
}

}  // namespace

std::vector<EngineBlock> engine_blocks(const ResultFile& result) {
  std::vector<EngineBlock> blocks;
  std::vector<const std::vector<std::string>*> scenarios;
  auto block_of = [&](const std::string& name) -> std::size_t {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].name == name) return i;
    }
    blocks.push_back({name, {}});
    scenarios.push_back(nullptr);
    return blocks.size() - 1;
  };
  for (const auto& engine : result.experiment.engines) {
    scenarios[block_of(engine.name)] = &engine.operations;
  }
  const std::size_t listed = blocks.size();
  for (const Metric& metric : result.metrics) {
    blocks[block_of(metric.engine)].metrics.push_back(&metric);
  }
  std::sort(blocks.begin() + static_cast<std::ptrdiff_t>(listed), blocks.end(),
            [](const EngineBlock& a, const EngineBlock& b) { return a.name < b.name; });

  // A parameter's values in the order the suite gave them ("on" before "off" when the
  // suite listed it so), not in the values' own order; a value the experiment does not
  // list goes after those it does.
  auto value_order = [&](const Metric* metric) {
    std::vector<std::size_t> order;
    const auto engine =
        std::find_if(result.experiment.params.begin(), result.experiment.params.end(),
                     [&](const auto& e) { return e.first == metric->engine; });
    for (const auto& [name, value] : metric->params) {
      std::size_t index = std::numeric_limits<std::size_t>::max();
      if (engine != result.experiment.params.end()) {
        for (const auto& [declared, values] : engine->second) {
          if (declared != name) continue;
          const auto at = std::find(values.begin(), values.end(), value);
          if (at != values.end()) index = static_cast<std::size_t>(at - values.begin());
        }
      }
      order.push_back(index);
    }
    return order;
  };
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::vector<std::string>* scenario = i < listed ? scenarios[i] : nullptr;
    auto position = [scenario](const Metric* metric) -> std::size_t {
      if (scenario == nullptr) return 0;
      const auto at = std::find(scenario->begin(), scenario->end(), metric->operation);
      return static_cast<std::size_t>(std::distance(scenario->begin(), at));
    };
    std::stable_sort(
        blocks[i].metrics.begin(), blocks[i].metrics.end(), [&](const Metric* a, const Metric* b) {
          const std::size_t position_a = position(a), position_b = position(b);
          const std::vector<std::size_t> order_a = value_order(a), order_b = value_order(b);
          return std::tie(position_a, a->operation, a->dataset, order_a, a->params) <
                 std::tie(position_b, b->operation, b->dataset, order_b, b->params);
        });
  }
  return blocks;
}

std::string label_of(const Metric& metric, const std::vector<std::string>& dropped) {
  if (metric.key.empty()) return metric.operation;
  const result::MetricKey key = result::MetricKey::parse(metric.key).without(dropped);
  return key.engine == metric.engine ? key.label() : key.to_string();
}

std::string params_text(const std::vector<result::Param>& params) {
  std::vector<std::string> parts;
  parts.reserve(params.size());
  for (const auto& [name, value] : params) {
    parts.push_back(name + "=" + suite::param_value_text(value));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string one_line(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

std::string indent_lines(const std::string& text, std::size_t spaces) {
  std::string out;
  const std::string pad(spaces, ' ');
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out += pad + text.substr(start, end - start + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

bool is_load_qualifier(std::string_view qualifier) {
  return qualifier.starts_with("clients=") || qualifier.starts_with("transactions=") ||
         qualifier.starts_with("duration=");
}

std::string or_unknown(const std::string& text) {
  return text.empty() ? "unknown" : text;
}

// stddev / mean in percent, when there is a spread to speak of.
std::optional<double> spread_percent(const Metric& metric) {
  if (metric.seconds.runs < 2 || metric.seconds.mean <= 0) return std::nullopt;
  return metric.seconds.stddev / metric.seconds.mean * 100;
}

// The median step's time divided by its items (1 / rate): what one record, id or row
// costs. A load metric's rate is transactions per second of all clients, so none.
std::string per_item_text(const Metric& metric) {
  if (metric.load || !(metric.rate > 0)) return "-";
  return format_seconds(1 / metric.rate);
}

// Whether some sample of the metric is a measure_repeated batch (min_time).
bool is_repeated(const Metric& metric) {
  return std::any_of(metric.samples.begin(), metric.samples.end(),
                     [](const result::Sample& s) { return s.calls > 1; });
}

std::string rate_text(const Metric& metric) {
  return metric.rate > 0 ? format_rate(metric.rate, metric.unit) : "-";
}

std::string repeat_text(int repeat) {
  return repeat < 0 ? fmt::format("warm-up {}", -repeat) : std::to_string(repeat + 1);
}

// "signal 11", "exit code 3", or empty.
std::string status_text(const Failure& failure) {
  std::vector<std::string> parts;
  if (failure.signal) parts.push_back(fmt::format("signal {}", *failure.signal));
  if (failure.exit_code) parts.push_back(fmt::format("exit code {}", *failure.exit_code));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "cache dataset=1000 validation=hash repeat=1 operation=cold"
std::string failure_context(const Failure& failure) {
  std::string text = fmt::format("{} dataset={}", failure.engine, failure.dataset);
  // fmt::format rather than operator+ on temporaries: GCC 12 at -O2 reports a false
  // -Wrestrict on `" " + std::string&&`.
  if (!failure.params.empty()) text += fmt::format(" {}", params_text(failure.params));
  text += failure.repeat < 0 ? fmt::format(" warm-up={}", -failure.repeat)
                             : fmt::format(" repeat={}", repeat_text(failure.repeat));
  if (!failure.operation.empty()) text += fmt::format(" operation={}", failure.operation);
  return text;
}

// The last kStderrTailLines lines, without trailing blank lines and carriage returns.
std::vector<std::string> tail_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.emplace_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t") == std::string::npos) {
    lines.pop_back();
  }
  if (lines.size() > kStderrTailLines) {
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(kStderrTailLines));
  }
  return lines;
}

std::vector<std::string> run_warnings(const ResultFile& result) {
  std::vector<std::string> warnings = result.environment.warnings;
  const std::string& durability = result.experiment.durability;
  if (!durability.empty() && durability != "durable") {
    // "os" keeps a write in the OS's cache: it survives a process crash, not a power loss.
    warnings.push_back(
        fmt::format("durability is \"{}\": engines did not fsync every write they reported stored",
                    durability));
  }
  return warnings;
}

std::string repeat_setting(const result::Experiment& experiment) {
  if (!experiment.repeat_until) return std::to_string(experiment.repeat);
  return fmt::format("{}..{}@{:g}%", experiment.repeat_until->min, experiment.repeat_until->max,
                     experiment.repeat_until->until * 100);
}

bool has_warnings(const Metric& m) {
  return !m.warnings.empty();
}

std::vector<std::pair<std::string, std::string>> environment_rows(const result::Environment& env) {
  return {{"OS", or_unknown(env.os)},
          {"Kernel", or_unknown(env.kernel)},
          {"CPU", fmt::format("{} ({} CPUs)", or_unknown(env.cpu_model), env.cpu_count)},
          {"Memory", env.memory_bytes == 0 ? "unknown" : format_bytes(env.memory_bytes)},
          {"Work directory filesystem", or_unknown(env.work_dir_filesystem)},
          {"Compiler", or_unknown(env.compiler)},
          {"Build", or_unknown(env.build_type)},
          {"Build flags", or_unknown(env.build_flags)},
          {"CPU governor", env.cpu_governor.empty() ? "not exposed" : env.cpu_governor}};
}

std::pair<std::vector<Column>, Rows> metric_table(const std::vector<const Metric*>& metrics,
                                                  std::uint32_t repeat, ReportFormat format) {
  const bool markdown = format != ReportFormat::text;  // HTML is laid out as Markdown
  const bool min_max = format != ReportFormat::markdown;
  const bool marker = any_metric(metrics, has_warnings);
  const bool spread = markdown || any_metric(metrics, has_spread);
  // Fewer runs than repeats means some failed: the spread covers only the rest.
  // Adaptive repeats differ per cell: the column says how many each took.
  const bool runs = markdown || std::any_of(metrics.begin(), metrics.end(), [&](const Metric* m) {
                      return m->seconds.runs < repeat || m->repeats.has_value();
                    });
  const bool latency = any_metric(metrics, has_latency);
  std::vector<Column> columns;
  if (marker) columns.push_back({"", Align::left});
  columns.insert(columns.end(), {{"operation", Align::left},
                                 {"median", Align::right},
                                 {"per item", Align::right},
                                 {"rate", Align::right}});
  if (spread) columns.push_back({"cv", Align::right});
  if (spread && min_max) columns.push_back({"min .. max", Align::left});
  if (runs) columns.push_back({"runs", Align::right});
  if (latency) columns.insert(columns.end(), {{"p50", Align::right}, {"p99", Align::right}});

  Rows rows;
  for (const Metric* metric : metrics) {
    std::vector<std::string> row;
    if (marker) row.emplace_back(metric->warnings.empty() ? "" : "!");
    row.insert(row.end(), {label_of(*metric), format_seconds(metric->seconds.median),
                           per_item_text(*metric), rate_text(*metric)});
    const auto cv = spread_percent(*metric);
    if (spread) row.push_back(cv ? fmt::format("{:.1f}%", *cv) : "-");
    if (spread && min_max) {
      row.push_back(cv ? fmt::format("{} .. {}", format_seconds(metric->seconds.min),
                                     format_seconds(metric->seconds.max))
                       : "");
    }
    if (runs) {
      row.push_back(markdown || metric->seconds.runs >= repeat
                        ? std::to_string(metric->seconds.runs)
                        : fmt::format("{}/{}", metric->seconds.runs, repeat));
    }
    if (latency) {
      row.push_back(latency_text(*metric, &result::Latency::p50));
      row.push_back(latency_text(*metric, &result::Latency::p99));
    }
    rows.push_back(std::move(row));
  }
  return {std::move(columns), std::move(rows)};
}

// The summary line of per-metric warnings, or empty when no metric has any.
std::string metric_warnings_summary(const ResultFile& result) {
  const std::size_t warned = metrics_with_warnings(result);
  if (warned == 0) return "";
  return fmt::format("{} of {} metric{} {} warnings (marked !, listed under {} engine)", warned,
                     result.metrics.size(), result.metrics.size() == 1 ? "" : "s",
                     warned == 1 ? "has" : "have", warned == 1 ? "its" : "their");
}

// What the columns mean; cv only where the table has that column (text: when some
// row shows a cv; Markdown always has it).
std::string legend(const ResultFile& result, ReportFormat format) {
  std::string text =
      "median = time of one step (one call of a repeated step); per item = median / the "
      "step's items";
  if (format != ReportFormat::text ||
      std::any_of(result.metrics.begin(), result.metrics.end(), has_spread)) {
    text += "; cv = coefficient of variation (stddev / mean) over the repeats";
  }
  return text;
}

// "min_time 20.00 ms: 3 metrics timed in batches ..." when a step was repeated.
std::string min_time_note(const ResultFile& result) {
  const auto repeated = std::count_if(result.metrics.begin(), result.metrics.end(), is_repeated);
  if (repeated == 0) return "";
  const std::optional<double> min_time = result.experiment.min_time_seconds;
  if (!min_time) {
    // A file that does not say its min_time (Google Benchmark's): what is known.
    return fmt::format("{} metric{} timed in batches of calls, shown per call", repeated,
                       repeated == 1 ? "" : "s");
  }
  return fmt::format(
      "min_time {}: {} metric{} timed in batches of calls lasting at least that, shown per call",
      format_seconds(*min_time), repeated, repeated == 1 ? "" : "s");
}

}  // namespace storh::report
