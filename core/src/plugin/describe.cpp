#include "plugin/describe.h"

#include <cmath>

#include <fmt/format.h>

#include "plugin/check_description.h"
#include "result/engine_values.h"
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

result::PluginBuild plugin_build(const Description& description) {
  const ManifestInfo& m = description.manifest;
  return {m.build_type, m.build_flags, m.compiler, m.optimized, description.file_hash};
}

}  // namespace storh::plugin
