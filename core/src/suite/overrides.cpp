#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "suite/parse.h"
#include "suite/suite_internal.h"
#include "util/param_rules.h"
#include "util/text.h"

namespace storh::suite {
namespace {

using detail::in_quotes;

class FlagErrors {
 public:
  explicit FlagErrors(std::vector<SuiteError>& errors) : errors_(errors) {}
  void add(std::string_view flag, std::string message) {
    errors_.push_back(SuiteError{SourcePos{std::string(flag)}, std::move(message)});
  }

 private:
  std::vector<SuiteError>& errors_;
};

std::optional<std::uint32_t> parse_flag_count(FlagErrors& errors, std::string_view flag,
                                              const std::string& text, std::uint32_t min) {
  const std::optional<std::uint64_t> number = parse_whole(text);
  if (!number || *number < min || *number > std::numeric_limits<std::uint32_t>::max()) {
    errors.add(flag, fmt::format("expected a whole number >= {}, got {}", min, in_quotes(text)));
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*number);
}

void apply_datasets(FlagErrors& errors, const std::string& text, Suite& suite) {
  constexpr std::string_view kFlag = "--dataset";
  std::vector<Located<std::uint64_t>> datasets;
  bool ok = true;
  for (std::string_view part : detail::split_unquoted(text, ',')) {
    part = trim(part);
    const std::optional<std::uint64_t> size = parse_count(part);
    if (!size || *size == 0) {
      errors.add(kFlag, fmt::format("expected record counts >= 1 such as 1000, 10k or 1000,10000, "
                                    "got {}",
                                    in_quotes(part)));
      ok = false;
    } else if (*size > kMaxDataset) {
      errors.add(kFlag, fmt::format("dataset {} is more than the {} records a cell may have", *size,
                                    kMaxDataset));
      ok = false;
    } else if (std::any_of(datasets.begin(), datasets.end(),
                           [&](const auto& dataset) { return dataset.value == *size; })) {
      errors.add(kFlag, fmt::format("{} is given twice in {}", *size, in_quotes(text)));
      ok = false;
    } else {
      datasets.push_back({*size, SourcePos{std::string(kFlag)}});
    }
  }
  if (ok) suite.datasets = std::move(datasets);
}

void apply_engines(FlagErrors& errors, const std::vector<std::string>& flags, Suite& suite) {
  constexpr std::string_view kFlag = "--engine";
  std::vector<std::string> names;
  bool ok = true;
  for (const std::string& flag : flags) {
    for (std::string_view part : detail::split_unquoted(flag, ',')) {
      part = trim(part);
      if (part.empty()) {
        errors.add(kFlag, fmt::format("an empty engine name in {} (give names such as "
                                      "--engine=doc or --engine=doc,log)",
                                      in_quotes(flag)));
        ok = false;
      } else if (!is_identifier(part)) {
        errors.add(kFlag,
                   fmt::format("{} is not an engine name (use a-z, 0-9 and _)", in_quotes(part)));
        ok = false;
      } else if (std::find(names.begin(), names.end(), part) == names.end()) {
        names.emplace_back(part);
      }
    }
  }
  if (!ok || names.empty()) return;
  std::vector<EngineSetting> kept;
  for (EngineSetting& engine : suite.engines) {
    if (std::find(names.begin(), names.end(), engine.name) != names.end()) {
      kept.push_back(std::move(engine));
    }
  }
  for (const std::string& name : names) {
    const auto configured = [&](const EngineSetting& engine) { return engine.name == name; };
    if (std::none_of(kept.begin(), kept.end(), configured)) {
      kept.push_back(EngineSetting{name, SourcePos{std::string(kFlag)}, {}, {}, {}, {}});
    }
  }
  suite.engines = std::move(kept);
}

// As TOML would read it (42, 1.5, true, "text"); anything else is the text itself.
ParamValue parse_scalar(std::string_view text) {
  const std::string document = "v = " + std::string(text);
  try {
    const toml::table table = toml::parse(std::string_view(document), std::string_view("--set"));
    const toml::node* node = table.get("v");
    if (table.size() == 1 && node != nullptr) {
      if (std::optional<ParamValue> value = detail::Reader::scalar(*node)) return *value;
    }
  } catch (const toml::parse_error&) {
    // Not TOML: a bare word such as hash.
  }
  return std::string(text);
}

void apply_set(FlagErrors& errors, std::string_view text, Suite& suite) {
  constexpr std::string_view kFlag = "--set";
  const std::size_t equals = text.find('=');
  const std::string_view target = trim(text.substr(0, equals));
  const std::size_t dot = target.find('.');
  if (equals == std::string_view::npos || dot == std::string_view::npos || dot == 0 ||
      dot + 1 == target.size()) {
    errors.add(kFlag,
               fmt::format("expected engine.param=value[,value...], got {}", in_quotes(text)));
    return;
  }
  const std::string_view engine_name = target.substr(0, dot);
  const auto engine = std::find_if(suite.engines.begin(), suite.engines.end(),
                                   [&](const EngineSetting& e) { return e.name == engine_name; });
  if (engine == suite.engines.end()) {
    std::vector<std::string> names;
    for (const EngineSetting& e : suite.engines) names.push_back(e.name);
    errors.add(kFlag,
               fmt::format("engine {} is not in the suite (engines: {}){}", in_quotes(engine_name),
                           detail::join(names), detail::did_you_mean(engine_name, names)));
    return;
  }

  ParamSetting param{std::string(target.substr(dot + 1)), SourcePos{std::string(kFlag)}, {}, false};
  for (std::string_view part : detail::split_unquoted(text.substr(equals + 1), ',')) {
    part = trim(part);
    if (part.empty()) {
      errors.add(kFlag, fmt::format("empty value in {}", in_quotes(text)));
      return;
    }
    ParamValue value = parse_scalar(part);
    const auto same = [&](const Located<ParamValue>& v) { return v.value == value; };
    if (std::any_of(param.values.begin(), param.values.end(), same)) {
      errors.add(kFlag,
                 fmt::format("{} appears twice in {}", detail::describe(value), in_quotes(text)));
      return;
    }
    param.values.push_back({std::move(value), SourcePos{std::string(kFlag)}});
  }
  param.is_list = param.values.size() > 1;

  const auto existing = std::find_if(engine->params.begin(), engine->params.end(),
                                     [&](const ParamSetting& p) { return p.name == param.name; });
  if (existing != engine->params.end()) {
    *existing = std::move(param);
  } else {
    engine->params.push_back(std::move(param));
  }
}

// "0" and "none" lift the limit; `parse` reads anything else.
template <typename T, typename Parse>
void apply_limit(FlagErrors& errors, std::string_view flag, const std::string& text,
                 std::string_view expected, Parse parse, std::optional<T>& limit) {
  const std::optional<T> value = text == "none" ? std::optional<T>(0) : parse(text);
  if (!value) {
    errors.add(
        flag, fmt::format("expected {} (0 or none: unlimited), got {}", expected, in_quotes(text)));
  } else if (*value == 0) {
    limit.reset();
  } else {
    limit = value;
  }
}

std::optional<std::string> non_empty(FlagErrors& errors, std::string_view flag,
                                     const std::optional<std::string>& text) {
  if (text && text->empty()) errors.add(flag, "expected a path, got \"\"");
  return text && !text->empty() ? text : std::nullopt;
}

}  // namespace

bool apply_overrides(Suite& suite, const Overrides& overrides, std::vector<SuiteError>& errors) {
  const std::size_t first_error = errors.size();
  FlagErrors flag_errors(errors);
  if (overrides.datasets) apply_datasets(flag_errors, *overrides.datasets, suite);
  apply_engines(flag_errors, overrides.engines, suite);
  if (overrides.repeat) {
    if (auto count = parse_flag_count(flag_errors, "--repeat", *overrides.repeat, 1)) {
      suite.repeat = *count;
    }
  }
  if (overrides.warmup) {
    if (auto count = parse_flag_count(flag_errors, "--warmup", *overrides.warmup, 0)) {
      suite.warmup = *count;
    }
  }
  if (auto output = non_empty(flag_errors, "--output", overrides.output)) suite.output = *output;
  if (overrides.memory_limit) {
    apply_limit(flag_errors, "--memory-limit", *overrides.memory_limit,
                "a size such as 512M, 2G or 1048576", parse_size, suite.memory_limit_bytes);
  }
  if (overrides.timeout) {
    apply_limit(flag_errors, "--timeout", *overrides.timeout,
                "a duration such as 10m, 30s, 1500ms or 90", parse_duration, suite.timeout_seconds);
    if (suite.timeout_seconds && *suite.timeout_seconds > kMaxTimeoutSeconds) {
      flag_errors.add("--timeout",
                      fmt::format("{} s is longer than the {} s (30 days) a cell may run",
                                  *suite.timeout_seconds, kMaxTimeoutSeconds));
    }
  }
  if (overrides.min_time) {
    const std::optional<double> seconds = parse_duration(*overrides.min_time);
    if (!seconds || !(*seconds >= 0) || *seconds > 3600) {
      flag_errors.add("--min-time", fmt::format("expected a duration from 0 to 1h such as 20ms "
                                                "or 0.5s (0: every step runs once), got {}",
                                                in_quotes(*overrides.min_time)));
    } else {
      suite.min_time_seconds = *seconds;
    }
  }
  std::vector<Located<std::filesystem::path>> plugin_path;
  for (const std::string& dir : overrides.plugin_path) {
    if (auto checked = non_empty(flag_errors, "--plugin-path", dir))
      plugin_path.push_back({*checked, SourcePos{"--plugin-path"}});
  }
  plugin_path.insert(plugin_path.end(), suite.plugin_path.begin(), suite.plugin_path.end());
  suite.plugin_path = std::move(plugin_path);
  if (auto dir = non_empty(flag_errors, "--work-dir", overrides.work_dir)) suite.work_dir = *dir;
  if (auto dir = non_empty(flag_errors, "--range-output", overrides.range_output)) {
    suite.range_output = *dir;
  }
  for (const std::string& set : overrides.sets) apply_set(flag_errors, set, suite);
  detail::apply_load_overrides(overrides, suite, errors);
  detail::apply_ycsb_overrides(overrides, suite, errors);
  if (overrides.counters) detail::apply_counters(*overrides.counters, suite, errors);
  return errors.size() == first_error;
}

}  // namespace storh::suite
