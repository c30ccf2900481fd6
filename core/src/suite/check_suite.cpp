#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "suite/parse.h"
#include "suite/suite_internal.h"
#include "util/param_rules.h"

namespace storh::suite {
namespace {

using detail::did_you_mean;
using detail::in_quotes;
using detail::join;

class Checker {
 public:
  explicit Checker(std::vector<SuiteError>& errors) : errors_(errors) {}
  void add(const SourcePos& pos, std::string message) {
    errors_.push_back(SuiteError{pos, std::move(message)});
  }

 private:
  std::vector<SuiteError>& errors_;
};

std::string_view type_name(ParamType type) {
  switch (type) {
    case ParamType::integer:
      return "an integer";
    case ParamType::number:
      return "a number";
    case ParamType::string:
      return "a string";
    case ParamType::boolean:
      return "a boolean (true or false)";
  }
  return "a value";
}

std::optional<double> as_number(const ParamValue& value) {
  if (const auto* whole = std::get_if<std::int64_t>(&value)) return static_cast<double>(*whole);
  if (const auto* real = std::get_if<double>(&value)) return *real;
  return std::nullopt;
}

// Numbers compare by value, so 2 matches an allowed 2.0.
bool same_value(const ParamValue& a, const ParamValue& b) {
  const std::optional<double> x = as_number(a);
  const std::optional<double> y = as_number(b);
  if (x && y) return *x == *y;
  return a == b;
}

// A value inside a message: strings in_quotes, everything else as written.
std::string shown(const ParamValue& value) {
  const std::string text = param_value_text(value);
  return std::holds_alternative<std::string>(value) ? in_quotes(text) : text;
}

std::vector<std::string> operation_names(const EngineInfo& info) {
  std::vector<std::string> names;
  for (const OperationSpec& operation : info.operations) names.push_back(operation.name);
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void check_operations(Checker& checker, const EngineInfo& info, const EngineSetting& engine) {
  const std::vector<std::string> names = operation_names(info);
  for (const Located<std::string>& operation : engine.operations) {
    if (contains(names, operation.value)) continue;
    checker.add(operation.pos, fmt::format("unknown operation {} for engine {} (operations: {}){}",
                                           in_quotes(operation.value), in_quotes(engine.name),
                                           join(names), did_you_mean(operation.value, names)));
  }
}

void check_values(Checker& checker, const ParamSpec& spec, const std::string& engine_name,
                  const ParamSetting& param) {
  const std::string full_name = in_quotes(engine_name + "." + param.name);
  std::vector<std::string> allowed;
  for (const ParamValue& value : spec.allowed) allowed.push_back(param_value_text(value));
  for (const Located<ParamValue>& value : param.values) {
    if (!has_param_type(value.value, spec.type)) {
      checker.add(value.pos, fmt::format("parameter {} must be {}, got {}", full_name,
                                         type_name(spec.type), detail::describe(value.value)));
      continue;
    }
    if (spec.allowed.empty()) continue;
    const auto matches = [&](const ParamValue& choice) { return same_value(choice, value.value); };
    if (std::any_of(spec.allowed.begin(), spec.allowed.end(), matches)) continue;
    const std::string hint = std::holds_alternative<std::string>(value.value)
                                 ? did_you_mean(param_value_text(value.value), allowed)
                                 : std::string();
    checker.add(value.pos, fmt::format("value {} is not allowed for parameter {} (allowed: {}){}",
                                       shown(value.value), full_name, join(allowed), hint));
  }
}

void check_params(Checker& checker, const EngineInfo& info, const EngineSetting& engine) {
  std::vector<std::string> names;
  for (const ParamSpec& spec : info.params) names.push_back(spec.name);
  for (const ParamSetting& param : engine.params) {
    const auto spec = std::find_if(info.params.begin(), info.params.end(),
                                   [&](const ParamSpec& s) { return s.name == param.name; });
    if (spec != info.params.end()) {
      check_values(checker, *spec, engine.name, param);
    } else if (names.empty()) {
      checker.add(param.pos,
                  fmt::format("unknown parameter {} for engine {} (it has no parameters)",
                              in_quotes(param.name), in_quotes(engine.name)));
    } else {
      checker.add(param.pos, fmt::format("unknown parameter {} for engine {} (parameters: {}){}",
                                         in_quotes(param.name), in_quotes(engine.name), join(names),
                                         did_you_mean(param.name, names)));
    }
  }
}

void check_gate(Checker& checker, const Suite& suite,
                const std::map<std::string, EngineInfo>& infos) {
  std::vector<std::string> suite_engines;
  for (const EngineSetting& engine : suite.engines) suite_engines.push_back(engine.name);
  for (const Located<std::string>& metric : suite.gate.metrics) {
    const std::size_t dot = metric.value.find('.');
    if (dot == std::string::npos) {
      checker.add(metric.pos, fmt::format("gate metric {} must be \"engine.operation\"",
                                          in_quotes(metric.value)));
      continue;
    }
    const std::string engine_name = metric.value.substr(0, dot);
    const std::string operation = metric.value.substr(dot + 1);
    const auto engine = std::find_if(suite.engines.begin(), suite.engines.end(),
                                     [&](const EngineSetting& e) { return e.name == engine_name; });
    if (engine == suite.engines.end()) {
      checker.add(metric.pos,
                  fmt::format("gate metric {}: engine {} is not in the suite (engines: {}){}",
                              in_quotes(metric.value), in_quotes(engine_name), join(suite_engines),
                              did_you_mean(engine_name, suite_engines)));
      continue;
    }
    const auto info = infos.find(engine_name);
    if (info == infos.end()) continue;  // unknown or not loaded: reported elsewhere
    const std::vector<std::string> names = operation_names(info->second);
    if (!contains(names, operation)) {
      checker.add(metric.pos, fmt::format("gate metric {}: unknown operation {} (operations: {}){}",
                                          in_quotes(metric.value), in_quotes(operation),
                                          join(names), did_you_mean(operation, names)));
      continue;
    }
    const auto selected = [&](const Located<std::string>& op) { return op.value == operation; };
    if (!engine->operations.empty() &&
        std::none_of(engine->operations.begin(), engine->operations.end(), selected)) {
      std::vector<std::string> run;
      for (const Located<std::string>& op : engine->operations) run.push_back(op.value);
      checker.add(metric.pos,
                  fmt::format("gate metric {} is never measured (operations run for {}: {})",
                              in_quotes(metric.value), in_quotes(engine_name), join(run)));
    }
  }
}

// [[load.bench]] operations must be transaction types of every engine of the suite,
// and an engine that selects operations must select one that some bench runs.
void check_benches(Checker& checker, const Suite& suite,
                   const std::map<std::string, EngineInfo>& infos) {
  if (!suite.load || suite.load->benches.empty()) return;
  std::vector<std::string> benched;
  for (const BenchSetting& bench : suite.load->benches) {
    for (const Located<std::string>& operation : bench.operations) {
      if (!contains(benched, operation.value)) benched.push_back(operation.value);
    }
  }
  for (const EngineSetting& engine : suite.engines) {
    const auto info = infos.find(engine.name);
    if (info == infos.end()) continue;  // unknown or not loaded: reported elsewhere
    const std::vector<std::string> names = operation_names(info->second);
    for (const BenchSetting& bench : suite.load->benches) {
      for (const Located<std::string>& operation : bench.operations) {
        if (contains(names, operation.value)) continue;
        checker.add(
            operation.pos,
            fmt::format("bench {}: unknown transaction type {} for engine {} "
                        "(transaction types: {}){}",
                        in_quotes(bench.name.value), in_quotes(operation.value),
                        in_quotes(engine.name), join(names), did_you_mean(operation.value, names)));
      }
    }
    if (engine.operations.empty()) continue;
    const auto in_a_bench = [&](const Located<std::string>& op) {
      return contains(benched, op.value);
    };
    if (std::none_of(engine.operations.begin(), engine.operations.end(), in_a_bench)) {
      std::vector<std::string> selected;
      for (const Located<std::string>& op : engine.operations) selected.push_back(op.value);
      checker.add(engine.operations.front().pos,
                  fmt::format("engine {} selects operations no [[load.bench]] runs ({}; the "
                              "benches run: {}), so it would have no cells",
                              in_quotes(engine.name), join(selected), join(benched)));
    }
  }
}

}  // namespace

// "1 to 64", "at least 1", "at most 10".
std::string range_text(const ParamRange& range) {
  const auto number = [](double value) { return fmt::format("{}", value); };
  if (std::isinf(range.maximum)) return "at least " + number(range.minimum);
  if (std::isinf(range.minimum)) return "at most " + number(range.maximum);
  return number(range.minimum) + " to " + number(range.maximum);
}

bool check_param_ranges(const Suite& suite,
                        const std::map<std::string, std::vector<ParamRange>>& ranges,
                        std::vector<SuiteError>& errors) {
  const std::size_t first_error = errors.size();
  for (const EngineSetting& engine : suite.engines) {
    const auto bounds = ranges.find(engine.name);
    if (bounds == ranges.end()) continue;
    for (const ParamSetting& param : engine.params) {
      const auto range = std::find_if(bounds->second.begin(), bounds->second.end(),
                                      [&](const ParamRange& r) { return r.name == param.name; });
      if (range == bounds->second.end()) continue;
      for (const Located<ParamValue>& value : param.values) {
        double number = 0;
        if (const auto* i = std::get_if<std::int64_t>(&value.value)) {
          number = static_cast<double>(*i);
        } else if (const auto* d = std::get_if<double>(&value.value)) {
          number = *d;
        } else {
          continue;  // a wrong type is check_suite's error
        }
        if (number >= range->minimum && number <= range->maximum) continue;
        errors.push_back(
            SuiteError{value.pos, fmt::format("parameter {} must be {}, got {}",
                                              in_quotes(engine.name + "." + param.name),
                                              range_text(*range), param_value_text(value.value))});
      }
    }
  }
  return errors.size() == first_error;
}

bool check_suite(const Suite& suite, const std::vector<std::string>& known_engines,
                 const std::map<std::string, EngineInfo>& infos, std::vector<SuiteError>& errors) {
  const std::size_t first_error = errors.size();
  Checker checker(errors);
  std::vector<std::string> known = known_engines;
  for (const auto& [name, info] : infos) known.push_back(name);
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());

  for (const EngineSetting& engine : suite.engines) {
    if (!contains(known, engine.name)) {
      checker.add(engine.pos,
                  known.empty()
                      ? fmt::format("unknown engine {} (no engines found on the plugin path)",
                                    in_quotes(engine.name))
                      : fmt::format("unknown engine {} (known: {}){}", in_quotes(engine.name),
                                    join(known), did_you_mean(engine.name, known)));
      continue;
    }
    const auto info = infos.find(engine.name);
    if (info == infos.end()) continue;  // could not be loaded: the caller reports why
    check_operations(checker, info->second, engine);
    check_params(checker, info->second, engine);
  }
  check_gate(checker, suite, infos);
  check_benches(checker, suite, infos);
  detail::check_ycsb(suite, errors);
  return errors.size() == first_error;
}

}  // namespace storh::suite
