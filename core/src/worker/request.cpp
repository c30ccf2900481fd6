#include "worker/request.h"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "result/engine_values.h"
#include "util/text.h"

namespace storh::worker {
namespace {

// Reads one flag's value into the request: "" when it fits, else what was expected.
using ReadFlag = std::string (*)(WorkerRequest&, std::string_view);

struct RequestFlag {
  std::string_view name;
  ReadFlag read;
};

std::string expected(std::string_view what, std::string_view value) {
  return fmt::format("expected {}, got \"{}\"", what, value);
}

std::string read_number(std::optional<double>& field, std::string_view value,
                        std::string_view what) {
  field = parse_decimal(value);
  return field ? "" : expected(what, value);
}

std::vector<std::string> split_commas(std::string_view list) {
  std::vector<std::string> items;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    items.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return items;
}

// Every flag from_argv reads, in to_argv's order.
constexpr std::array<RequestFlag, 10> kRequestFlags{{
    {"plugin",
     [](WorkerRequest& r, std::string_view v) {
       r.plugin = v;
       return v.empty() ? expected("the plugin's file", v) : std::string();
     }},
    {"name",
     [](WorkerRequest& r, std::string_view v) {
       r.name = v;
       return std::string();
     }},
    {"dataset",
     [](WorkerRequest& r, std::string_view v) {
       const std::optional<std::uint64_t> size = parse_whole(v);
       r.dataset = size.value_or(0);
       return size ? std::string() : expected("a whole number", v);
     }},
    {"work-dir",
     [](WorkerRequest& r, std::string_view v) {
       r.work_dir = v;
       return std::string();
     }},
    {"ops",
     [](WorkerRequest& r, std::string_view v) {
       r.operations = split_commas(v);
       return std::string();
     }},
    {"params",
     [](WorkerRequest& r, std::string_view v) {
       Expected<ParamValues> params = params_from_json(v);
       if (!params) return params.error();
       r.params = std::move(*params);
       return std::string();
     }},
    {"load",
     [](WorkerRequest& r, std::string_view v) {
       const nlohmann::json parsed = nlohmann::json::parse(v, nullptr, false);
       if (parsed.is_discarded()) return expected("a load configuration as JSON", v);
       Expected<load::LoadConfig> config = load::config_from_json(parsed);
       if (!config) return config.error();
       r.load = *config;
       return std::string();
     }},
    {"min-time",
     [](WorkerRequest& r, std::string_view v) {
       return read_number(r.min_time, v, "a number of seconds");
     }},
    {"inject-slowdown",
     [](WorkerRequest& r, std::string_view v) {
       return read_number(r.inject_slowdown, v, "a fraction (0.05 = 5% slower)");
     }},
    {"count",
     [](WorkerRequest& r, std::string_view v) {
       r.count = count::parse_instrument(v);
       return r.count ? std::string()
                      : fmt::format("unknown instrument \"{}\" (valid: {})", v,
                                    count::instrument_choices());
     }},
}};

std::string valid_flags() {
  std::string names;
  for (const RequestFlag& flag : kRequestFlags) {
    names += fmt::format("{}--{}", names.empty() ? "" : ", ", flag.name);
  }
  return names;
}

}  // namespace

std::vector<std::string> WorkerRequest::to_argv(
    const std::filesystem::path& host_executable) const {
  std::vector<std::string> argv{host_executable.string(),
                                std::string(kWorkerCommand),
                                "--plugin=" + plugin.string(),
                                "--name=" + name,
                                fmt::format("--dataset={}", dataset),
                                "--work-dir=" + work_dir.string(),
                                fmt::format("--ops={}", fmt::join(operations, ",")),
                                "--params=" + params_to_json(params)};
  if (load) argv.push_back("--load=" + load::to_json(*load).dump());
  if (min_time) argv.push_back(fmt::format("--min-time={}", *min_time));
  if (inject_slowdown) argv.push_back(fmt::format("--inject-slowdown={}", *inject_slowdown));
  if (count) argv.push_back(fmt::format("--count={}", count::instrument_name(*count)));
  return argv;
}

Expected<WorkerRequest> WorkerRequest::from_argv(const std::vector<std::string>& args) {
  if (args.empty() || args.front() != kWorkerCommand) {
    return Error{fmt::format("the first argument must be {}", kWorkerCommand)};
  }
  WorkerRequest request;
  std::set<std::string_view, std::less<>> seen;
  for (auto arg = args.begin() + 1; arg != args.end(); ++arg) {
    const std::string_view text = *arg;
    const std::size_t equals = text.find('=');
    if (!text.starts_with("--") || equals == std::string_view::npos) {
      return Error{fmt::format("argument \"{}\": expected --flag=value", text)};
    }
    const std::string_view name = text.substr(2, equals - 2);
    const auto flag = std::find_if(kRequestFlags.begin(), kRequestFlags.end(),
                                   [&](const RequestFlag& f) { return f.name == name; });
    if (flag == kRequestFlags.end()) {
      return Error{fmt::format("unknown flag --{} (valid: {})", name, valid_flags())};
    }
    if (!seen.insert(flag->name).second) {
      return Error{fmt::format("--{} is given twice", name)};
    }
    if (std::string problem = flag->read(request, text.substr(equals + 1)); !problem.empty()) {
      return Error{fmt::format("--{}: {}", name, problem)};
    }
  }
  for (const std::string_view required : {"plugin", "dataset"}) {
    if (!seen.contains(required)) return Error{fmt::format("--{} is required", required)};
  }
  return request;
}

std::string params_to_json(const ParamValues& params) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : params) object[name] = result::param_value_json(value);
  return object.dump();
}

Expected<ParamValues> params_from_json(std::string_view text) {
  if (text.empty()) return ParamValues{};
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Error{fmt::format("expected a JSON object of parameter values, got \"{}\"", text)};
  }
  ParamValues params;
  for (const auto& [name, value] : parsed.items()) {
    Expected<ParamValue> typed = result::param_value_from_json(value);
    if (!typed) {
      return Error{fmt::format("the value of \"{}\" is not a string, number or boolean", name)};
    }
    params.emplace(name, std::move(*typed));
  }
  return params;
}

}  // namespace storh::worker
