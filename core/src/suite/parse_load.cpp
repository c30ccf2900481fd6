// The [load] section of a suite file and [engines.<name>.load] (docs/load.md);
// [[load.bench]] tables are read by parse_bench.cpp.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "suite/suite_internal.h"

namespace storh::suite::detail {
namespace {

constexpr std::array<std::string_view, 10> kLoadKeys = {
    "bench", "clients",  "duration", "interval",     "latency_limit",
    "mode",  "progress", "rate",     "transactions", "warmup"};
constexpr std::array<std::string_view, 1> kEngineLoadKeys = {"mode"};

std::vector<const toml::node*> items_of(const toml::node& node) {
  std::vector<const toml::node*> items;
  if (const auto* list = node.as_array()) {
    for (const toml::node& item : *list) items.push_back(&item);
  } else {
    items.push_back(&node);
  }
  return items;
}

std::optional<double> seconds_of(const toml::node& node) {
  if (const auto* whole = node.as_integer()) return static_cast<double>(whole->get());
  if (const auto* real = node.as_floating_point()) return real->get();
  if (const auto* text = node.as_string()) return parse_duration(text->get());
  return std::nullopt;
}

// A list (or one value) of whole numbers in [1, max], without duplicates.
template <typename T>
void read_counts(Reader& reader, const toml::node& node, std::string_view name, std::int64_t max,
                 std::vector<Located<T>>& out) {
  if (const auto* list = node.as_array(); list != nullptr && list->empty()) {
    reader.error(node, fmt::format("{} must not be an empty list", in_quotes(name)));
    return;
  }
  for (const toml::node* item : items_of(node)) {
    const auto* number = item->as_integer();
    if (number == nullptr || number->get() < 1 || number->get() > max) {
      reader.type_error(*item, name, fmt::format("an integer from 1 to {} or a list of them", max));
      continue;
    }
    const auto value = static_cast<T>(number->get());
    if (std::any_of(out.begin(), out.end(), [&](const auto& v) { return v.value == value; })) {
      reader.error(*item, fmt::format("{} appears twice in {}", value, in_quotes(name)));
      continue;
    }
    out.push_back({value, reader.pos(*item)});
  }
}

void read_durations(Reader& reader, const toml::node& node, LoadSetting& load) {
  for (const toml::node* item : items_of(node)) {
    const std::optional<double> seconds = seconds_of(*item);
    if (!seconds || !(*seconds > 0) || !std::isfinite(*seconds)) {
      reader.type_error(*item, "load.duration",
                        "a duration > 0 such as \"10s\" or \"1m\", or a list of them");
      continue;
    }
    load.durations.push_back({*seconds, reader.pos(*item)});
  }
}

std::optional<load::ClientMode> mode_of(Reader& reader, const toml::node& node,
                                        std::string_view name) {
  const auto* text = node.as_string();
  if (text != nullptr && text->get() == "threads") return load::ClientMode::threads;
  if (text != nullptr && text->get() == "processes") return load::ClientMode::processes;
  reader.type_error(node, name, "\"threads\" or \"processes\"");
  return std::nullopt;
}

}  // namespace

void read_load(Reader& reader, const toml::node& node, Suite& suite) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, "load", "a table ([load])");
    return;
  }
  LoadSetting load;
  load.pos = reader.pos(node);
  // clients, transactions and duration keys as written: benches refuse them.
  std::vector<const toml::key*> matrix_keys;
  for (const auto& [key, value] : reader.known_entries(*table, kLoadKeys, "[load]")) {
    const std::string name(key->str());
    const std::string path = "load." + name;
    if (name == "clients" || name == "transactions" || name == "duration") {
      matrix_keys.push_back(key);
    }
    if (name == "bench") {
      read_benches(reader, *value, load);
    } else if (name == "clients") {
      read_counts(reader, *value, path, static_cast<std::int64_t>(kMaxLoadClients), load.clients);
    } else if (name == "transactions") {
      read_counts(reader, *value, path, static_cast<std::int64_t>(kMaxLoadTransactions),
                  load.transactions);
    } else if (name == "duration") {
      read_durations(reader, *value, load);
    } else if (name == "rate") {
      std::optional<double> rate;
      if (const auto* whole = value->as_integer()) rate = static_cast<double>(whole->get());
      if (const auto* real = value->as_floating_point()) rate = real->get();
      if (!rate || !(*rate > 0) || !std::isfinite(*rate)) {
        reader.type_error(*value, path, "a number > 0 (transactions per second, all clients)");
      } else {
        load.rate = rate;
      }
    } else if (name == "warmup") {
      // A whole number is transactions per client; a duration string is time.
      if (const auto* whole = value->as_integer(); whole != nullptr && whole->get() >= 0) {
        load.warmup_transactions = static_cast<std::uint64_t>(whole->get());
      } else if (const auto* text = value->as_string();
                 text != nullptr && parse_duration(text->get())) {
        load.warmup_seconds = *parse_duration(text->get());
      } else {
        reader.type_error(*value, path,
                          "transactions per client (an integer >= 0) or a duration such as "
                          "\"2s\"");
      }
    } else if (name == "mode") {
      if (auto mode = mode_of(reader, *value, path)) load.mode = *mode;
    } else if (name == "interval" || name == "latency_limit") {
      const std::optional<double> seconds = seconds_of(*value);
      if (!seconds || !(*seconds > 0) || !std::isfinite(*seconds)) {
        reader.type_error(*value, path, "a duration > 0 such as \"1s\" or \"10ms\"");
      } else if (name == "interval") {
        load.interval_seconds = *seconds;
      } else {
        load.latency_limit = *seconds;
      }
    } else if (name == "progress") {
      const std::optional<double> seconds = seconds_of(*value);
      if (!seconds || !(*seconds >= 0) || !std::isfinite(*seconds)) {
        reader.type_error(*value, path, "a duration >= 0 such as \"5s\" (0: no progress lines)");
      } else {
        load.progress_seconds = *seconds;
      }
    }
  }
  // The key, not load.benches: a bench list with mistakes gets no second error.
  if (table->contains("bench")) {
    for (const toml::key* key : matrix_keys) {
      reader.error(reader.pos(*key),
                   fmt::format("[load] has [[load.bench]] tables, so {} must not be given: each "
                               "bench lists its own \"clients/transactions\" points (docs/load.md)",
                               in_quotes(key->str())));
    }
    load.transactions.clear();
    load.durations.clear();
    load.clients.clear();
  } else if (!load.transactions.empty() && !load.durations.empty()) {
    reader.error(load.pos,
                 "[load] has both \"transactions\" and \"duration\": give one (transactions per "
                 "client, or how long each cell runs)");
  } else if (load.transactions.empty() && load.durations.empty()) {
    reader.error(load.pos,
                 "[load] needs \"transactions\" (per client, e.g. [100, 300]) or \"duration\" "
                 "(e.g. \"10s\")");
  }
  if (load.clients.empty()) load.clients.push_back({1, load.pos});
  suite.load = std::move(load);
}

void read_engine_load(Reader& reader, const toml::node& node, const std::string& engine_name,
                      EngineSetting& engine) {
  const std::string context = fmt::format("[engines.{}.load]", engine_name);
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.type_error(node, fmt::format("engines.{}.load", engine_name),
                      "a table such as { mode = \"processes\" }");
    return;
  }
  for (const auto& [key, value] : reader.known_entries(*table, kEngineLoadKeys, context)) {
    const std::string path = fmt::format("engines.{}.load.{}", engine_name, key->str());
    if (auto mode = mode_of(reader, *value, path)) {
      engine.load_mode = Located<load::ClientMode>{*mode, reader.pos(*value)};
    }
  }
}

}  // namespace storh::suite::detail
