// The [ycsb] table of a suite file (docs/ycsb.md), its checks, and the --workload,
// --operationcount and --recordcount flags. A [ycsb] suite also gets a [load]
// setting (its clients, its target as the rate), so the load flags, the plan's load
// cells and the runner serve it as they serve a load suite.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "suite/suite_internal.h"
#include "ycsb/cell.h"
#include "ycsb/properties.h"

namespace storh::suite::detail {
namespace {

constexpr std::string_view kWorkloadChoices = "a, b, c, d, e or f";

// workload, clients, target and every property name set_property knows.
const std::vector<std::string_view>& ycsb_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> all = {"clients", "target", "workload"};
    for (const std::string& name : ycsb::property_names()) all.push_back(name);
    return all;
  }();
  return keys;
}

std::optional<char> workload_letter(std::string_view text) {
  if (text.size() != 1) return std::nullopt;
  const char letter = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  if (!ycsb::workload_preset(letter)) return std::nullopt;
  return letter;
}

void read_workloads(Reader& reader, const toml::node& node, YcsbSetting& ycsb) {
  std::vector<const toml::node*> items;
  if (const auto* list = node.as_array()) {
    if (list->empty()) reader.error(node, "\"ycsb.workload\" must not be an empty list");
    for (const toml::node& item : *list) items.push_back(&item);
  } else {
    items.push_back(&node);
  }
  for (const toml::node* item : items) {
    const auto* text = item->as_string();
    const std::optional<char> letter = text ? workload_letter(text->get()) : std::nullopt;
    if (!letter) {
      reader.type_error(
          *item, "ycsb.workload",
          fmt::format("a YCSB core workload, {}, or a list of them", kWorkloadChoices));
      continue;
    }
    if (find_value(ycsb.workloads, *letter) != nullptr) {
      reader.error(*item,
                   fmt::format("workload \"{}\" appears twice in \"ycsb.workload\"", *letter));
      continue;
    }
    ycsb.workloads.push_back({*letter, reader.pos(*item)});
  }
}

void read_clients(Reader& reader, const toml::node& node, LoadSetting& load) {
  std::vector<const toml::node*> items;
  if (const auto* list = node.as_array()) {
    if (list->empty()) reader.error(node, "\"ycsb.clients\" must not be an empty list");
    for (const toml::node& item : *list) items.push_back(&item);
  } else {
    items.push_back(&node);
  }
  for (const toml::node* item : items) {
    const auto* number = item->as_integer();
    if (number == nullptr || number->get() < 1 ||
        number->get() > static_cast<std::int64_t>(kMaxLoadClients)) {
      reader.type_error(*item, "ycsb.clients",
                        fmt::format("an integer from 1 to {} or a list of them", kMaxLoadClients));
      continue;
    }
    const auto clients = static_cast<std::uint32_t>(number->get());
    if (find_value(load.clients, clients) != nullptr) {
      reader.error(*item, fmt::format("{} appears twice in \"ycsb.clients\"", clients));
      continue;
    }
    load.clients.push_back({clients, reader.pos(*item)});
  }
}

// A property's value as set_property takes it: its TOML scalar as text.
void read_property(Reader& reader, const toml::key& key, const toml::node& node,
                   YcsbSetting& ycsb) {
  const std::string name(key.str());
  const std::optional<ParamValue> value = Reader::scalar(node);
  if (!value) {
    reader.type_error(node, "ycsb." + name, "a string, number or boolean");
    return;
  }
  const std::string text = param_value_text(*value);
  // The value alone, on the 'a' preset: a bad value is reported where it is written.
  ycsb::Properties probe = *ycsb::workload_preset('a');
  if (std::string problem = ycsb::set_property(probe, name, text); !problem.empty()) {
    reader.error(node, std::move(problem));
    return;
  }
  ycsb.properties.push_back({{name, reader.pos(key)}, {text, reader.pos(node)}});
}

load::YcsbSpec spec_of(const YcsbSetting& ycsb, char letter) {
  load::YcsbSpec spec;
  spec.workload = letter;
  for (const auto& [name, value] : ycsb.properties)
    spec.properties.emplace_back(name.value, value.value);
  return spec;
}

}  // namespace

void read_ycsb(Reader& reader, const toml::node& node, Suite& suite) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "ycsb", "a table ([ycsb])");
    return;
  }
  YcsbSetting ycsb;
  ycsb.pos = reader.pos(node);
  LoadSetting load;
  load.pos = ycsb.pos;
  for (const auto& [key, value] : reader.known_entries(*table, ycsb_keys(), "[ycsb]")) {
    const std::string name(key->str());
    if (name == "workload") {
      read_workloads(reader, *value, ycsb);
    } else if (name == "clients") {
      read_clients(reader, *value, load);
    } else if (name == "target") {
      std::optional<double> target;
      if (const auto* whole = value->as_integer()) target = static_cast<double>(whole->get());
      if (const auto* real = value->as_floating_point()) target = real->get();
      if (!target || !(*target >= 0) || !std::isfinite(*target)) {
        reader.type_error(*value, "ycsb.target",
                          "a number >= 0 (operations per second of all clients; 0: unthrottled)");
      } else if (*target > 0) {
        load.rate = target;
      }
    } else {
      read_property(reader, *key, *value, ycsb);
    }
  }
  if (ycsb.workloads.empty()) ycsb.workloads.push_back({'a', ycsb.pos});
  if (load.clients.empty()) load.clients.push_back({1, ycsb.pos});
  suite.ycsb = std::move(ycsb);
  suite.load = std::move(load);
}

void check_ycsb(const Suite& suite, std::vector<SuiteError>& errors) {
  if (!suite.ycsb) return;
  for (const auto& [letter, pos] : suite.ycsb->workloads) {
    Expected<ycsb::Properties> properties = ycsb::cell_properties(spec_of(*suite.ycsb, letter));
    if (!properties) {
      errors.push_back({pos, properties.error()});
      continue;
    }
    for (const std::string& problem : ycsb::check_properties(*properties)) {
      errors.push_back({suite.ycsb->pos, fmt::format("[ycsb] workload {}: {}", letter, problem)});
    }
  }
}

bool has_ycsb_overrides(const Overrides& overrides) {
  return overrides.workload || overrides.operationcount || overrides.recordcount;
}

void apply_ycsb_overrides(const Overrides& overrides, Suite& suite,
                          std::vector<SuiteError>& errors) {
  if (!has_ycsb_overrides(overrides)) return;
  const auto flag_error = [&](std::string_view flag, std::string message) {
    errors.push_back(SuiteError{SourcePos{std::string(flag)}, std::move(message)});
  };
  if (!suite.ycsb) {
    flag_error(overrides.workload         ? "--workload"
               : overrides.operationcount ? "--operationcount"
                                          : "--recordcount",
               "the suite has no [ycsb] table; --workload, --operationcount and --recordcount "
               "set up YCSB runs (docs/ycsb.md)");
    return;
  }
  YcsbSetting& ycsb = *suite.ycsb;
  if (overrides.workload) {
    std::vector<Located<char>> workloads;
    for (std::string_view part : split_unquoted(*overrides.workload, ',')) {
      part = trim(part);
      const std::optional<char> letter = workload_letter(part);
      if (!letter) {
        flag_error("--workload", fmt::format("unknown YCSB workload {} (valid: {})",
                                             in_quotes(part), kWorkloadChoices));
        return;
      }
      if (find_value(workloads, *letter) != nullptr) {
        flag_error("--workload",
                   fmt::format("{} is given twice in {}", part, in_quotes(*overrides.workload)));
        return;
      }
      workloads.push_back({*letter, SourcePos{"--workload"}});
    }
    ycsb.workloads = std::move(workloads);
  }
  const auto set = [&](std::string_view flag, std::string_view name, const std::string& text) {
    const std::optional<std::uint64_t> count = parse_count(text);
    if (!count) {
      flag_error(flag,
                 fmt::format("expected a count such as 1000 or 10k, got {}", in_quotes(text)));
      return;
    }
    // Last, so it wins over the suite's own value of the property.
    ycsb.properties.push_back({{std::string(name), SourcePos{std::string(flag)}},
                               {std::to_string(*count), SourcePos{std::string(flag)}}});
  };
  if (overrides.operationcount)
    set("--operationcount", "operationcount", *overrides.operationcount);
  if (overrides.recordcount) set("--recordcount", "recordcount", *overrides.recordcount);
}

}  // namespace storh::suite::detail
