// The [engines.<name>] and [gate] sections of a suite file.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "count/counters.h"
#include "suite/suite_internal.h"
#include "util/param_rules.h"

namespace storh::suite::detail {
namespace {

constexpr std::array<std::string_view, 4> kEngineKeys = {"counters", "operations", "params",
                                                         "load"};
constexpr std::array<std::string_view, 11> kGateKeys = {
    "ab",      "alpha",      "baseline",    "confirm",   "counters",  "lenient_missing",
    "metrics", "min_effect", "significant", "threshold", "thresholds"};
constexpr std::array<std::string_view, 5> kGateAbKeys = {"alpha", "calibration", "confirm_pairs",
                                                         "pairs", "threshold"};

void read_operations(Reader& reader, const toml::node& node, const std::string& path,
                     EngineSetting& engine) {
  constexpr std::string_view kExpected = "a list of operation names (strings)";
  const auto* list = node.as_array();
  if (list == nullptr) {
    reader.type_error(node, path, kExpected);
    return;
  }
  if (list->empty()) {
    reader.error(node, fmt::format("{} must not be empty (leave it out to run every operation)",
                                   in_quotes(path)));
    return;
  }
  for (const toml::node& item : *list) {
    const auto* name = item.as_string();
    if (name == nullptr || name->get().empty()) {
      reader.type_error(item, path, kExpected);
    } else if (const auto* same = find_value(engine.operations, name->get())) {
      reader.error(item, fmt::format("duplicate operation {} in {} (first at {})",
                                     in_quotes(name->get()), in_quotes(path), line_col(same->pos)));
    } else {
      engine.operations.push_back({name->get(), reader.pos(item)});
    }
  }
}

// settings = { work_mem = "4MB", jit = false } is the string "work_mem=4MB;jit=false":
// a string parameter holding several name=value settings (docs/plugin-guide.md).
// Entries in file order, values in their canonical text (param_value_text). nullopt
// after reporting an entry that cannot be one setting.
std::optional<ParamValue> settings_value(Reader& reader, const toml::table& table,
                                         const std::string& path) {
  std::vector<std::string> settings;
  bool ok = true;
  for (const auto& [key, node] : Reader::in_file_order(table)) {
    const std::string name(key->str());
    const std::string setting_path = fmt::format("{}.{}", path, name);
    if (name.empty() || name.find_first_of(";=") != std::string::npos) {
      reader.error(reader.pos(*key),
                   fmt::format("setting name {} in {} must be non-empty, without ';' or '='",
                               in_quotes(name), in_quotes(path)));
      ok = false;
      continue;
    }
    const std::optional<ParamValue> value = Reader::scalar(*node);
    if (!value) {
      reader.type_error(*node, setting_path,
                        "a string, integer, float or boolean (one setting's value; tables and "
                        "lists cannot be settings)");
      ok = false;
      continue;
    }
    // The value itself, not param_value_text's masked display: it goes to the engine.
    const std::string* as_string = std::get_if<std::string>(&*value);
    const std::string text = as_string != nullptr ? *as_string : param_value_text(*value);
    if (text.find(';') != std::string::npos) {
      reader.error(*node, fmt::format("{} must not contain ';' (it separates the settings of {})",
                                      in_quotes(setting_path), in_quotes(path)));
      ok = false;
      continue;
    }
    settings.push_back(fmt::format("{}={}", name, text));
  }
  if (!ok) return std::nullopt;
  return ParamValue(fmt::format("{}", fmt::join(settings, ";")));
}

void read_param(Reader& reader, const toml::key& key, const toml::node& node,
                const std::string& path, EngineSetting& engine) {
  constexpr std::string_view kExpected =
      "a string, integer, float or boolean, a table of settings, or a list of them";
  ParamSetting param{std::string(key.str()), reader.pos(key), {}, false};
  std::vector<const toml::node*> items;
  if (const auto* list = node.as_array()) {
    if (list->empty()) {
      reader.error(node, fmt::format("{} must not be an empty list (give one value or several)",
                                     in_quotes(path)));
      return;
    }
    param.is_list = true;
    for (const toml::node& item : *list) items.push_back(&item);
  } else {
    items.push_back(&node);
  }
  for (const toml::node* item : items) {
    std::optional<ParamValue> value;
    if (const auto* table = item->as_table()) {
      value = settings_value(reader, *table, path);
      if (!value) continue;  // reported
    } else {
      value = Reader::scalar(*item);
    }
    if (!value) {
      reader.type_error(*item, path, kExpected);
    } else if (const auto* same = find_value(param.values, *value)) {
      reader.error(*item, fmt::format("{} appears twice in {} (first at {})", describe(*value),
                                      in_quotes(path), line_col(same->pos)));
    } else {
      param.values.push_back({std::move(*value), reader.pos(*item)});
    }
  }
  engine.params.push_back(std::move(param));
}

void read_engine(Reader& reader, const toml::key& key, const toml::node& node, Suite& suite) {
  const std::string name(key.str());
  if (!is_identifier(name)) {
    reader.error(reader.pos(key),
                 fmt::format("engine name {} must use only a-z, 0-9 and _", in_quotes(name)));
    return;
  }
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "engines." + name, fmt::format("a table such as [engines.{}]", name));
    return;
  }
  EngineSetting engine{name, reader.pos(key), {}, {}, {}, {}};
  for (const auto& [section_key, section] :
       reader.known_entries(*table, kEngineKeys, fmt::format("[engines.{}]", name))) {
    const std::string path = fmt::format("engines.{}.{}", name, section_key->str());
    if (section_key->str() == "operations") {
      read_operations(reader, *section, path, engine);
    } else if (section_key->str() == "load") {
      read_engine_load(reader, *section, name, engine);
    } else if (section_key->str() == "counters") {
      engine.counters.emplace();
      detail::read_counters(reader, *section, *engine.counters);
    } else if (const auto* params = section->as_table()) {
      for (const auto& [param_key, value] : Reader::in_file_order(*params)) {
        read_param(reader, *param_key, *value, fmt::format("{}.{}", path, param_key->str()),
                   engine);
      }
    } else {
      reader.type_error(*section, path, "a table of parameter values");
    }
  }
  suite.engines.push_back(std::move(engine));
}

bool is_metric_name(std::string_view metric) {
  const std::size_t dot = metric.find('.');
  return dot != std::string_view::npos && is_identifier(metric.substr(0, dot)) &&
         dot + 1 < metric.size() && metric.find('.', dot + 1) == std::string_view::npos;
}

void read_metrics(Reader& reader, const toml::node& node, GateSetting& gate) {
  constexpr std::string_view kExpected = "a list of \"engine.operation\" strings";
  const auto* list = node.as_array();
  if (list == nullptr) {
    reader.type_error(node, "gate.metrics", kExpected);
    return;
  }
  for (const toml::node& item : *list) {
    const auto* metric = item.as_string();
    if (metric == nullptr) {
      reader.type_error(item, "gate.metrics", kExpected);
    } else if (!is_metric_name(metric->get())) {
      reader.error(item,
                   fmt::format("gate metric {} must be \"engine.operation\", e.g. \"doc.put\"",
                               in_quotes(metric->get())));
    } else if (const auto* same = find_value(gate.metrics, metric->get())) {
      reader.error(item, fmt::format("duplicate gate metric {} (first at {})",
                                     in_quotes(metric->get()), line_col(same->pos)));
    } else {
      gate.metrics.push_back({metric->get(), reader.pos(item)});
    }
  }
}

}  // namespace

void read_engines(Reader& reader, const toml::node& node, Suite& suite) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "engines", "a table of [engines.<name>] tables");
    return;
  }
  if (table->empty()) {
    reader.error(node, std::string(kNoEngines));
    return;
  }
  for (const auto& [key, value] : Reader::in_file_order(*table)) {
    read_engine(reader, *key, *value, suite);
  }
}

std::optional<double> read_percent(Reader& reader, const toml::node& value,
                                   const std::string& path) {
  std::optional<double> percent;
  if (const auto* whole = value.as_integer()) percent = static_cast<double>(whole->get());
  if (const auto* real = value.as_floating_point()) percent = real->get();
  if (!percent || !(*percent >= 0) || !std::isfinite(*percent)) {
    reader.type_error(value, path, "a number >= 0 (percent)");
    return std::nullopt;
  }
  return percent;
}

std::optional<bool> read_bool(Reader& reader, const toml::node& value, const std::string& path) {
  if (const auto* flag = value.as_boolean()) return flag->get();
  reader.type_error(value, path, "true or false");
  return std::nullopt;
}

// The [gate] keys beyond storh's three.
// counters = { fsync = 0, instructions = 2, pg.blks_read = 10 }: host counter names or
// engine counter names (docs/counters.md), percents >= 0.
void read_counter_tolerances(Reader& reader, const std::string& path, const toml::node& value,
                             GateSetting& gate) {
  const auto* table = value.as_table();
  if (table == nullptr) {
    reader.type_error(value, path, "a table of counter = percent, e.g. { fsync = 0 }");
    return;
  }
  for (const auto& [name, percent_node] : Reader::in_file_order(*table)) {
    const std::string counter_path = fmt::format("{}.{}", path, name->str());
    // `pg.blks_read = 10` is TOML for pg = { blks_read = 10 }: an engine's counters.
    if (const auto* engine = percent_node->as_table();
        engine != nullptr && count::find_counter(name->str()) == nullptr) {
      for (const auto& [counter, engine_percent] : Reader::in_file_order(*engine)) {
        const std::string full = fmt::format("{}.{}", name->str(), counter->str());
        if (!count::is_engine_counter_name(full)) {
          reader.error(reader.pos(*counter),
                       fmt::format("{}: \"{}\" is not an engine counter name (e.g. pg.blks_read)",
                                   path, full));
        } else if (auto percent =
                       read_percent(reader, *engine_percent, fmt::format("{}.{}", path, full))) {
          gate.counter_tolerances.emplace_back(
              Located<std::string>{full, reader.pos(*engine_percent)}, *percent);
        }
      }
      continue;
    }
    if (count::find_counter(name->str()) == nullptr &&
        !count::is_engine_counter_name(name->str())) {
      reader.error(reader.pos(*name),
                   fmt::format("{}: {}", path, count::unknown_counter_message(name->str())));
      continue;
    }
    if (auto percent = read_percent(reader, *percent_node, counter_path)) {
      gate.counter_tolerances.emplace_back(
          Located<std::string>{std::string(name->str()), reader.pos(*percent_node)}, *percent);
    }
  }
}

void read_gate_addition(Reader& reader, const std::string& key, const toml::node& value,
                        GateSetting& gate) {
  const std::string path = fmt::format("gate.{}", key);
  if (key == "thresholds") {
    const auto* table = value.as_table();
    if (table == nullptr) {
      reader.type_error(value, path, "a table of \"engine.operation\" = percent");
      return;
    }
    for (const auto& [metric, percent_node] : Reader::in_file_order(*table)) {
      const std::string metric_path = fmt::format("{}.{}", path, metric->str());
      if (metric->str().find('.') == std::string_view::npos) {
        reader.error(*percent_node,
                     fmt::format("{}: the key must be \"engine.operation\"", metric_path));
        continue;
      }
      if (auto percent = read_percent(reader, *percent_node, metric_path)) {
        gate.thresholds.emplace_back(
            Located<std::string>{std::string(metric->str()), reader.pos(*percent_node)}, *percent);
      }
    }
  } else if (key == "counters") {
    read_counter_tolerances(reader, path, value, gate);
  } else if (key == "significant") {
    if (auto flag = read_bool(reader, value, path)) gate.significant = *flag;
  } else if (key == "lenient_missing") {
    if (auto flag = read_bool(reader, value, path)) gate.lenient_missing = *flag;
  } else if (key == "alpha") {
    const std::optional<double> alpha = value.value<double>();
    if (!alpha || !(*alpha > 0 && *alpha < 1)) {
      reader.type_error(value, path, "a number between 0 and 1, e.g. 0.05");
    } else {
      gate.alpha = *alpha;
    }
  } else if (key == "min_effect") {
    std::optional<double> seconds;
    if (const auto* text = value.as_string()) seconds = parse_duration(text->get());
    if (const auto* number = value.as_integer()) seconds = static_cast<double>(number->get());
    if (const auto* number = value.as_floating_point()) seconds = number->get();
    if (!seconds || !(*seconds >= 0) || !std::isfinite(*seconds)) {
      reader.type_error(value, path, "a duration such as \"5us\", \"2ms\" or a number of seconds");
    } else {
      gate.min_effect_seconds = *seconds;
    }
  } else if (key == "confirm") {
    const auto* count = value.as_integer();
    if (count == nullptr || count->get() < 0 || count->get() > 100) {
      reader.type_error(value, path, "an integer from 0 to 100 (re-runs of failing cells)");
    } else {
      gate.confirm = static_cast<std::uint32_t>(count->get());
    }
  }
}

// [gate.ab]: the A/B mode's defaults.
void read_gate_ab(Reader& reader, const toml::node& node, AbGateSetting& ab) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "gate.ab", "a table ([gate.ab])");
    return;
  }
  for (const auto& [key, value] : reader.known_entries(*table, kGateAbKeys, "[gate.ab]")) {
    const std::string path = fmt::format("gate.ab.{}", key->str());
    if (key->str() == "pairs" || key->str() == "confirm_pairs") {
      const auto* count = value->as_integer();
      if (count == nullptr || count->get() < 1 || count->get() > 1000) {
        reader.type_error(*value, path, "an integer from 1 to 1000 (pairs per cell)");
      } else {
        (key->str() == "pairs" ? ab.pairs : ab.confirm_pairs) =
            static_cast<std::uint32_t>(count->get());
      }
    } else if (key->str() == "threshold") {
      if (auto percent = read_percent(reader, *value, path)) ab.threshold = *percent;
    } else if (key->str() == "alpha") {
      const std::optional<double> alpha = value->value<double>();
      if (!alpha || !(*alpha > 0 && *alpha < 1)) {
        reader.type_error(*value, path, "a number between 0 and 1, e.g. 0.01");
      } else {
        ab.alpha = *alpha;
      }
    } else if (key->str() == "calibration") {
      const auto* text = value->as_string();
      if (text == nullptr || text->get().empty()) {
        reader.type_error(*value, path, "the path of a calibration file (a non-empty string)");
      } else {
        ab.calibration = Located<std::string>{text->get(), reader.pos(*value)};
      }
    }
  }
}

void read_gate(Reader& reader, const toml::node& node, Suite& suite) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "gate", "a table ([gate])");
    return;
  }
  for (const auto& [key, value] : reader.known_entries(*table, kGateKeys, "[gate]")) {
    const std::string path = fmt::format("gate.{}", key->str());
    if (key->str() == "baseline") {
      const auto* text = value->as_string();
      if (text == nullptr || text->get().empty()) {
        reader.type_error(*value, path, "the path of a result file (a non-empty string)");
      } else {
        suite.gate.baseline = Located<std::string>{text->get(), reader.pos(*value)};
      }
    } else if (key->str() == "threshold") {
      if (auto percent = read_percent(reader, *value, path)) {
        suite.gate.threshold = Located<double>{*percent, reader.pos(*value)};
      }
    } else if (key->str() == "metrics") {
      read_metrics(reader, *value, suite.gate);
    } else if (key->str() == "ab") {
      read_gate_ab(reader, *value, suite.gate.ab);
    } else {
      read_gate_addition(reader, std::string(key->str()), *value, suite.gate);
    }
  }
}

}  // namespace storh::suite::detail
