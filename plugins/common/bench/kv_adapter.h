// kv_adapter.h: what the adapters of the byte-store engines (rocksdb, leveldb, lmdb,
// sqlite) share: their parameters read the same way in run() and in preflight()
// (check_params), and the ByteStores (kv_record.h) over an engine store that many
// threads may use at once or over a connection a session owns.
//
// Parameters: an adapter declares each integer parameter once as an IntParam (default,
// bounds, description) and builds its ParamSpec, its ParamRange and its reading from
// it. Reading goes through a Lookup, so run() (a RunContext) and preflight() (the list
// of values) check a cell with the same code. A value out of its bounds or choices
// throws std::invalid_argument naming the parameter, the value and what is valid.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/bench/kv_record.h"
#include "storh/engine.h"

namespace storh::engines::bench {

struct IntParam {
  std::string_view name;
  std::int64_t fallback;  // the default
  std::int64_t minimum;
  std::int64_t maximum;
  std::string_view description;  // one line: what it is and how to choose it
};

// A parameter's value by name; nullptr when absent (the declared default applies).
using Lookup = std::function<const ParamValue*(std::string_view)>;

inline Lookup lookup(const RunContext& ctx) {
  return [&ctx](std::string_view name) { return ctx.param(name); };
}

// Over preflight's list; `values` must outlive the Lookup.
inline Lookup lookup(const std::vector<std::pair<std::string, ParamValue>>& values) {
  return [&values](std::string_view name) -> const ParamValue* {
    for (const auto& [key, value] : values) {
      if (key == name) return &value;
    }
    return nullptr;
  };
}

// An adapter's preflight(): each of `readers` (a function of a Lookup, e.g. the one
// that builds the engine's options) run over the cell's values, so a value run() would
// refuse is refused before any cell runs. The first that throws is the error; the host
// names the engine before its message.
template <typename... Readers>
Status check_params(const std::vector<std::pair<std::string, ParamValue>>& values,
                    const Readers&... readers) noexcept {
  return guarded("parameters", [&] {
    const Lookup param = lookup(values);
    (static_cast<void>(readers(param)), ...);
  });
}

inline std::int64_t integer(const Lookup& param, const IntParam& spec) {
  const ParamValue* value = param(spec.name);
  const std::int64_t got = value != nullptr && std::holds_alternative<std::int64_t>(*value)
                               ? std::get<std::int64_t>(*value)
                               : spec.fallback;
  if (got < spec.minimum || got > spec.maximum) {
    throw std::invalid_argument(std::string(spec.name) + " = " + std::to_string(got) +
                                " is out of range [" + std::to_string(spec.minimum) + ", " +
                                std::to_string(spec.maximum) + "]");
  }
  return got;
}

// The index in `names` of the parameter's text; `fallback` when absent.
template <std::size_t N>
std::size_t choice(const Lookup& param, std::string_view name,
                   const std::array<std::string_view, N>& names, std::size_t fallback) {
  const ParamValue* value = param(name);
  if (value == nullptr || !std::holds_alternative<std::string>(*value)) return fallback;
  const std::string& text = std::get<std::string>(*value);
  const auto found = std::find(names.begin(), names.end(), text);
  if (found != names.end()) return static_cast<std::size_t>(found - names.begin());
  std::string valid;
  for (std::string_view known : names) valid += (valid.empty() ? "" : ", ") + std::string(known);
  throw std::invalid_argument(std::string(name) + " \"" + text + "\" (valid: " + valid + ")");
}

inline bool boolean(const Lookup& param, std::string_view name, bool fallback) {
  const ParamValue* value = param(name);
  return value != nullptr && std::holds_alternative<bool>(*value) ? std::get<bool>(*value)
                                                                  : fallback;
}

inline ParamSpec int_spec(const IntParam& spec) {
  return {
      std::string(spec.name), ParamType::integer, spec.fallback, {}, std::string(spec.description)};
}

inline ParamRange int_range(const IntParam& spec) {
  return {std::string(spec.name), static_cast<double>(spec.minimum),
          static_cast<double>(spec.maximum)};
}

// A string parameter whose values are `names`, the first its default.
template <std::size_t N>
ParamSpec choice_spec(std::string_view name, const std::array<std::string_view, N>& names,
                      std::string description) {
  ParamSpec spec{
      std::string(name), ParamType::string, std::string(names[0]), {}, std::move(description)};
  for (std::string_view value : names) spec.allowed.emplace_back(std::string(value));
  return spec;
}

// The `durability` names, in KvDurability's order (kv_durability_param allows these).
inline constexpr std::array<std::string_view, 3> kKvDurabilities{"none", "os", "fsync"};

// kv_durability(ctx) of kv_record.h, through a Lookup.
inline KvDurability kv_durability(const Lookup& param) {
  return static_cast<KvDurability>(choice(param, "durability", kKvDurabilities, 2));
}

// The ByteStore of one key-value session over an engine store shared by every session
// (get, put, erase and scan safe from many threads at once, as Store's of rocksdb and
// leveldb are). The store must outlive it.
template <typename Store>
class SharedByteStore final : public ByteStore {
 public:
  explicit SharedByteStore(Store& store) : store_(store) {}
  std::optional<std::string> get(std::string_view key) override { return store_.get(key); }
  void put(std::string_view key, std::string_view value) override { store_.put(key, value); }
  bool erase(std::string_view key) override { return store_.erase(key); }
  void scan(std::string_view start, std::size_t count,
            const std::function<void(std::string_view, std::string_view)>& row) override {
    store_.scan(start, count, row);
  }

 private:
  Store& store_;
};

// The ByteStore of one key-value session over an engine connection it owns and uses
// from the session's thread only (sqlite's SqliteConnection).
template <typename Connection>
class OwningByteStore final : public ByteStore {
 public:
  explicit OwningByteStore(Connection connection) : connection_(std::move(connection)) {}
  std::optional<std::string> get(std::string_view key) override { return connection_.get(key); }
  void put(std::string_view key, std::string_view value) override { connection_.put(key, value); }
  bool erase(std::string_view key) override { return connection_.erase(key); }
  void scan(std::string_view start, std::size_t count,
            const std::function<void(std::string_view, std::string_view)>& row) override {
    connection_.scan(start, count, row);
  }

 private:
  Connection connection_;
};

}  // namespace storh::engines::bench
