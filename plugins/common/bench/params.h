// params.h: an adapter's parameters, each declared once. A declaration (IntParam,
// TextParam, BoolParam) holds the name, the default, the bounds or choices and the
// help line; spec() makes the ParamSpec describe() lists, range() the ParamRange
// param_ranges() gives, and integer(), text(), choice() and boolean() read the value
// of a cell with the declared default. So `storh-host list` and `validate` show and
// check what run() reads.
//
// Reading goes through a Lookup, made from a RunContext (run()) or from preflight's
// list of values, so both check a cell with the same code. The host hands a plugin
// only values its description allows; the checks here are for older hosts and direct
// callers. integer() and choice() throw std::invalid_argument naming the parameter,
// the value and what is valid. Declarations are constexpr and hold views into static
// text: declare them as namespace-scope constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storh/engine.h"

namespace storh::engines::bench {

// A parameter's value by name; nullptr when absent (the declared default applies).
// Refers to the RunContext or the list it was made from, which must outlive it.
class Lookup {
 public:
  using Values = std::vector<std::pair<std::string, ParamValue>>;
  Lookup(const RunContext& ctx) : ctx_(&ctx) {}       // NOLINT(google-explicit-constructor)
  Lookup(const Values& values) : values_(&values) {}  // NOLINT(google-explicit-constructor)
  const ParamValue* operator()(std::string_view name) const;

 private:
  const RunContext* ctx_ = nullptr;
  const Values* values_ = nullptr;
};

inline Lookup lookup(const RunContext& ctx) {
  return Lookup(ctx);
}
inline Lookup lookup(const Lookup::Values& values) {
  return Lookup(values);
}

// An adapter's preflight(): each of `readers` (a function of a Lookup, e.g. the one
// that builds the engine's options) run over the cell's values, so a value run() would
// refuse is refused before any cell runs. The first that throws is the error; the host
// names the engine before its message.
template <typename... Readers>
Status check_params(const Lookup::Values& values, const Readers&... readers) noexcept {
  return guarded("parameters", [&] {
    const Lookup param(values);
    (static_cast<void>(readers(param)), ...);
  });
}

inline constexpr std::int64_t kNoMinimum = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kNoMaximum = std::numeric_limits<std::int64_t>::max();

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// An integer parameter with inclusive bounds; kNoMinimum or kNoMaximum is no bound.
struct IntParam {
  std::string_view name;
  std::int64_t fallback;  // the default
  std::int64_t minimum;
  std::int64_t maximum;
  std::string_view description;  // one line: what it is and how to choose it
};

// A number parameter with inclusive bounds; kUnbounded (or its negation) is no bound.
struct NumberParam {
  std::string_view name;
  double fallback;  // the default
  double minimum;
  double maximum;
  std::string_view description;
};

// A string parameter. With choices, the only values a suite may give, in the order
// `list` shows them; without, any text.
struct TextParam {
  std::string_view name;
  std::string_view fallback;  // the default
  std::span<const std::string_view> choices;
  std::string_view description;
};

struct BoolParam {
  std::string_view name;
  bool fallback;  // the default
  std::string_view description;
};

ParamSpec spec(const IntParam& param);
ParamSpec spec(const NumberParam& param);
ParamSpec spec(const TextParam& param);
ParamSpec spec(const BoolParam& param);
// The bounds of `param`, each missing bound infinite.
ParamRange range(const IntParam& param);
ParamRange range(const NumberParam& param);

// The cell's value, or the default; std::invalid_argument when out of bounds:
// "value_size = 0 is out of range [1, 4194304]".
std::int64_t integer(const Lookup& param, const IntParam& spec);
// The cell's value or the default, unchecked: for an adapter whose own message names
// the bounds (in_range).
std::int64_t integer_value(const Lookup& param, const IntParam& spec);
bool in_range(const IntParam& spec, std::int64_t value);

// The cell's value or the default, unchecked (a NaN is in no range).
double number_value(const Lookup& param, const NumberParam& spec);
bool in_range(const NumberParam& spec, double value);

// The cell's text, or the default, not checked against the choices: for an adapter
// whose engine parses the text itself (and names the valid values when it cannot).
std::string text(const Lookup& param, const TextParam& spec);
// The index of the cell's text in spec.choices; std::invalid_argument for another
// text: "compression \"lz4\" (valid: none, snappy)".
std::size_t choice(const Lookup& param, const TextParam& spec);

bool boolean(const Lookup& param, const BoolParam& spec);

}  // namespace storh::engines::bench
