#include "plugin/describe.h"

#include <cmath>

#include <fmt/format.h>

#include "plugin/check_description.h"
#include "process/child_process.h"
#include "result/engine_values.h"
#include "util/files.h"
#include "util/json_node.h"

namespace storh::plugin {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

Expected<ParamType> param_type_from(const std::string& name) {
  for (ParamType type :
       {ParamType::integer, ParamType::number, ParamType::string, ParamType::boolean}) {
    if (name == param_type_name(type)) return type;
  }
  return Error{fmt::format("unknown parameter type \"{}\"", name)};
}

}  // namespace

const char* param_type_name(ParamType type) {
  switch (type) {
    case ParamType::integer:
      return "integer";
    case ParamType::number:
      return "number";
    case ParamType::string:
      return "string";
    case ParamType::boolean:
      return "boolean";
  }
  return "unknown";
}

ordered_json description_json(const Description& description) {
  ordered_json params = ordered_json::array();
  for (const ParamSpec& spec : description.info.params) {
    ordered_json allowed = ordered_json::array();
    for (const ParamValue& value : spec.allowed) allowed.push_back(param_value_json(value));
    params.push_back({{"name", spec.name},
                      {"type", param_type_name(spec.type)},
                      {"default", param_value_json(spec.default_value)},
                      {"allowed", allowed},
                      {"description", spec.description}});
  }
  ordered_json operations = ordered_json::array();
  for (const OperationSpec& op : description.info.operations) {
    operations.push_back(
        {{"name", op.name},
         {"unit", op.unit},
         {"direction", result::direction_name(result::metric_direction(op.direction))},
         {"description", op.description}});
  }
  const ManifestInfo& m = description.manifest;
  ordered_json described = {{"file", description.file.string()},
                            {"manifest",
                             {{"struct_size", m.struct_size},
                              {"abi_major", m.abi_major},
                              {"abi_minor", m.abi_minor},
                              {"toolchain", m.toolchain},
                              {"name", m.name},
                              {"version", m.version}}},
                            {"name", description.info.name},
                            {"version", description.info.version},
                            {"description", description.info.description},
                            {"params", params},
                            {"operations", operations}};
  ordered_json& manifest = described["manifest"];
  manifest["build_type"] = m.build_type;
  manifest["build_flags"] = m.build_flags;
  manifest["compiler"] = m.compiler;
  manifest["optimized"] = m.optimized ? ordered_json(*m.optimized) : ordered_json(nullptr);
  // Only plugins with transactions have the key, so older descriptions read the same.
  if (!description.transactions.empty()) {
    ordered_json transactions = ordered_json::array();
    for (const TransactionSpec& t : description.transactions) {
      transactions.push_back(
          {{"name", t.name}, {"description", t.description}, {"read_only", t.read_only}});
    }
    described["transactions"] = transactions;
  }
  // Only key-value plugins have the key, so older descriptions read the same.
  if (description.key_value) described["key_value"] = true;
  if (!description.file_hash.empty()) described["file_hash"] = description.file_hash;
  // Only plugins that declare bounds have the key; an infinite bound is null.
  if (!description.ranges.empty()) {
    const auto bound = [](double value) {
      return std::isfinite(value) ? ordered_json(value) : ordered_json(nullptr);
    };
    ordered_json ranges = ordered_json::array();
    for (const ParamRange& r : description.ranges) {
      ranges.push_back(
          {{"name", r.name}, {"minimum", bound(r.minimum)}, {"maximum", bound(r.maximum)}});
    }
    described["ranges"] = ranges;
  }
  return described;
}

Expected<Description> description_from_json(const json& j) {
  try {
    const JsonNode root(j, "");
    const auto param_value = [](const JsonNode& node) {
      Expected<ParamValue> value = result::param_value_from_json(node.raw());
      if (!value) node.refuse(value.error());
      return *value;
    };
    Description d;
    d.file = root.at("file").str();
    const JsonNode m = root.at("manifest");
    d.manifest.struct_size = m.at("struct_size").count32();
    d.manifest.abi_major = m.at("abi_major").count32();
    d.manifest.abi_minor = m.at("abi_minor").count32();
    d.manifest.toolchain = m.at("toolchain").str();
    d.manifest.name = m.at("name").str();
    d.manifest.version = m.at("version").str();
    d.manifest.build_type = m.at("build_type").str();
    d.manifest.build_flags = m.at("build_flags").str();
    d.manifest.compiler = m.at("compiler").str();
    d.manifest.optimized = m.optional("optimized", &JsonNode::boolean);
    d.info.name = root.at("name").str();
    d.info.version = root.at("version").str();
    d.info.description = root.at("description").str();
    for (const JsonNode& p : root.at("params").items()) {
      ParamSpec spec;
      spec.name = p.at("name").str();
      Expected<ParamType> type = param_type_from(p.at("type").str());
      if (!type) p.at("type").refuse(type.error());
      spec.type = *type;
      spec.default_value = param_value(p.at("default"));
      for (const JsonNode& a : p.at("allowed").items()) spec.allowed.push_back(param_value(a));
      spec.description = p.at("description").str();
      d.info.params.push_back(std::move(spec));
    }
    for (const JsonNode& o : root.at("operations").items()) {
      OperationSpec op;
      op.name = o.at("name").str();
      op.unit = o.at("unit").str();
      const JsonNode direction = o.at("direction");
      const std::optional<result::MetricDirection> parsed =
          result::parse_direction(direction.str());
      if (!parsed) direction.refuse("expected \"lower_is_better\" or \"higher_is_better\"");
      // higher_is_better is the retired value; check_description refuses it by name.
      op.direction = *parsed == result::MetricDirection::lower_is_better
                         ? Direction::lower_is_better
                         : kRetiredHigherIsBetter;
      op.description = o.at("description").str();
      d.info.operations.push_back(std::move(op));
    }
    if (root.has("transactions")) {
      for (const JsonNode& t : root.at("transactions").items()) {
        d.transactions.push_back(
            {t.at("name").str(), t.at("description").str(), t.at("read_only").boolean()});
      }
    }
    if (root.has("key_value")) d.key_value = root.at("key_value").boolean();
    if (root.has("file_hash")) d.file_hash = root.at("file_hash").str();
    if (root.has("ranges")) {
      for (const JsonNode& r : root.at("ranges").items()) {
        ParamRange range;
        range.name = r.at("name").str();
        if (const auto minimum = r.optional("minimum", &JsonNode::number)) range.minimum = *minimum;
        if (const auto maximum = r.optional("maximum", &JsonNode::number)) range.maximum = *maximum;
        d.ranges.push_back(std::move(range));
      }
    }
    return d;
  } catch (const BadJsonValue& bad) {
    return Error{fmt::format("malformed plugin description: {}", bad.message)};
  }
}

Expected<Description> describe_plugin(const std::filesystem::path& host_executable,
                                      const std::filesystem::path& file,
                                      const std::string& expected_name) {
  process::ProcessOptions options;
  options.argv = {host_executable.string(), "__describe", file.string()};
  if (!expected_name.empty()) options.argv.push_back("--name=" + expected_name);
  options.timeout_seconds = 30;
  options.capture_stdout = true;
  const process::ProcessOutcome outcome = process::run_process(options);
  if (!outcome.started) return Error{fmt::format("{}: {}", file.string(), outcome.error)};
  if (!outcome.succeeded()) {
    std::string reason = process::tail_lines(outcome.stderr_tail, 5);
    if (outcome.timed_out) reason = "timed out after 30 s while loading or describing";
    if (outcome.signal) {
      reason = fmt::format("crashed with signal {} ({}) while loading or describing{}{}",
                           *outcome.signal, strsignal(*outcome.signal), reason.empty() ? "" : ": ",
                           reason);
    }
    if (reason.empty())
      reason = fmt::format("describe exited with {}", outcome.exit_code.value_or(-1));
    // A refusal from the loader already names the file.
    if (reason.starts_with(file.string())) return Error{reason};
    return Error{fmt::format("{}: {}", file.string(), reason)};
  }
  const json parsed = json::parse(outcome.stdout_text, nullptr, false);
  if (parsed.is_discarded()) {
    return Error{fmt::format("{}: describe printed invalid JSON", file.string())};
  }
  Expected<Description> description = description_from_json(parsed);
  if (!description) return description;
  if (std::string problems = check_description(*description); !problems.empty()) {
    return Error{
        fmt::format("{}: refused: check \"description\" failed: {}", file.string(), problems)};
  }
  // Hashed here, not in the child: the host records what it will hand the workers.
  Expected<std::string> hash = file_hash(file);
  if (!hash) return Error{hash.error()};
  description->file_hash = *hash;
  return description;
}

result::PluginBuild plugin_build(const Description& description) {
  const ManifestInfo& m = description.manifest;
  return {m.build_type, m.build_flags, m.compiler, m.optimized, description.file_hash};
}

namespace {

// The parts __preflight printed, or an error naming the file.
Preflight preflight_parts(const std::filesystem::path& file, const std::string& text) {
  Preflight answer;
  if (text.find_first_not_of(" \n") == std::string::npos) return answer;
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  try {
    if (parsed.is_discarded() || !parsed.is_object()) throw std::runtime_error("not a JSON object");
    const nlohmann::json parts = parsed.value("parts", nlohmann::json::object());
    for (const auto& [type, names] : parts.items()) {
      answer.parts[type] = names.get<std::vector<std::string>>();
    }
    if (const auto need = parsed.find("needs_duration"); need != parsed.end()) {
      answer.duration_param = need->at("param").get<std::string>();
      answer.duration_reason = need->at("reason").get<std::string>();
    }
  } catch (const std::exception& e) {
    answer.error =
        fmt::format("{}: preflight printed an unreadable answer: {}", file.string(), e.what());
  }
  return answer;
}

}  // namespace

Preflight preflight_plugin(const std::filesystem::path& host_executable,
                           const std::filesystem::path& file, const std::string& name,
                           const std::string& params_json) {
  process::ProcessOptions options;
  options.argv = {host_executable.string(), "__preflight", file.string(), "--name=" + name,
                  "--params=" + params_json};
  options.timeout_seconds = 30;
  options.capture_stdout = true;
  options.stderr_tail_bytes = 16384;  // room for a few notes
  const process::ProcessOutcome outcome = process::run_process(options);
  Preflight preflight;
  if (outcome.succeeded()) {
    preflight = preflight_parts(file, outcome.stdout_text);
    constexpr std::string_view kNote = "note: ";
    std::string_view rest = outcome.stderr_tail;
    while (!rest.empty()) {
      const std::size_t end = std::min(rest.find('\n'), rest.size());
      const std::string_view line = rest.substr(0, end);
      if (line.starts_with(kNote)) preflight.notes.emplace_back(line.substr(kNote.size()));
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    return preflight;
  }
  if (!outcome.started) {
    preflight.error = fmt::format("{}: {}", file.string(), outcome.error);
  } else if (outcome.timed_out) {
    preflight.error = fmt::format("{}: preflight timed out after 30 s", file.string());
  } else if (outcome.signal) {
    preflight.error = fmt::format("{}: crashed with signal {} ({}) in preflight", file.string(),
                                  *outcome.signal, strsignal(*outcome.signal));
  } else {
    std::string reason = process::tail_lines(outcome.stderr_tail, 5);
    const std::string prefix = "storh-host worker: ";
    if (reason.starts_with(prefix)) reason.erase(0, prefix.size());
    preflight.error = reason.empty() ? fmt::format("{}: preflight exited with {}", file.string(),
                                                   outcome.exit_code.value_or(-1))
                                     : reason;
  }
  return preflight;
}

}  // namespace storh::plugin
