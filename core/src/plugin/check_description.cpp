#include "plugin/check_description.h"

#include <algorithm>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "util/param_rules.h"

namespace storh::plugin {
namespace {

// `integer 3`, `string "hash"`: a value as the problem list shows it.
std::string shown(const ParamValue& value) {
  constexpr const char* kTypes[] = {"integer", "number", "string", "boolean"};
  return fmt::format("{} {}", kTypes[value.index()], param_value_json(value).dump());
}

// Adds a problem for each name that is not an identifier or repeats an earlier one.
void check_names(const std::vector<std::string>& names, std::string_view what,
                 std::vector<std::string>& problems) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!is_identifier(name)) {
      problems.push_back(fmt::format("{} name \"{}\" is not [a-z0-9_]+", what, name));
    }
    if (!seen.insert(name).second) {
      problems.push_back(fmt::format("{} \"{}\" is declared twice", what, name));
    }
  }
}

}  // namespace

std::string check_description(const Description& description) {
  std::vector<std::string> problems;
  const EngineInfo& info = description.info;
  if (info.name != description.manifest.name) {
    problems.push_back(fmt::format("describe() says name \"{}\", STORH_PLUGIN says \"{}\"",
                                   info.name, description.manifest.name));
  }
  if (info.version != description.manifest.version) {
    problems.push_back(fmt::format("describe() says version \"{}\", STORH_PLUGIN says \"{}\"",
                                   info.version, description.manifest.version));
  }
  for (const OperationSpec& op : info.operations) {
    if (op.direction != Direction::lower_is_better) {
      problems.push_back(fmt::format(
          "plugin \"{}\" declares operation \"{}\" higher_is_better, a direction SDK 1.5 "
          "removed: every operation is a timed step, lower is better",
          description.manifest.name, op.name));
    }
  }
  std::vector<std::string> names;
  for (const OperationSpec& op : info.operations) names.push_back(op.name);
  check_names(names, "operation", problems);
  names.clear();
  for (const TransactionSpec& t : description.transactions) names.push_back(t.name);
  check_names(names, "transaction", problems);
  names.clear();
  for (const ParamSpec& p : info.params) names.push_back(p.name);
  check_names(names, "parameter", problems);

  for (const ParamSpec& p : info.params) {
    if (!has_param_type(p.default_value, p.type)) {
      problems.push_back(fmt::format("parameter \"{}\" is declared {} but its default is {}",
                                     p.name, param_type_name(p.type), shown(p.default_value)));
    }
    for (const ParamValue& allowed : p.allowed) {
      if (!has_param_type(allowed, p.type)) {
        problems.push_back(fmt::format("parameter \"{}\" is declared {} but allows {}", p.name,
                                       param_type_name(p.type), shown(allowed)));
      }
    }
  }
  for (const ParamRange& range : description.ranges) {
    const auto spec = std::find_if(info.params.begin(), info.params.end(),
                                   [&](const ParamSpec& p) { return p.name == range.name; });
    if (spec == info.params.end()) {
      problems.push_back(
          fmt::format("param_ranges() bounds \"{}\", which is not a parameter", range.name));
    } else if (spec->type != ParamType::integer && spec->type != ParamType::number) {
      problems.push_back(
          fmt::format("param_ranges() bounds \"{}\", a {} parameter (only integer "
                      "and number parameters have bounds)",
                      range.name, param_type_name(spec->type)));
    } else if (!(range.minimum <= range.maximum)) {
      problems.push_back(fmt::format("param_ranges() gives \"{}\" the empty range {} to {}",
                                     range.name, range.minimum, range.maximum));
    }
  }
  return fmt::format("{}", fmt::join(problems, "; "));
}

}  // namespace storh::plugin
