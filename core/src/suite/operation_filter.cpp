// --operation=NAME[,NAME]: run only some operations of the suite's engines.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "suite/suite_internal.h"

namespace storh::suite {
namespace {

using detail::in_quotes;

constexpr std::string_view kFlag = "--operation";

// "op" matches every engine's op; "engine.op" only that engine's.
bool matches(const std::string& name, const std::string& engine, const std::string& operation) {
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos) return name == operation;
  return name.compare(0, dot, engine) == 0 && dot == engine.size() &&
         name.compare(dot + 1, std::string::npos, operation) == 0;
}

}  // namespace

bool filter_operations(Suite& suite, const std::vector<std::string>& flags,
                       const std::map<std::string, EngineInfo>& infos,
                       std::vector<SuiteError>& errors) {
  std::vector<std::string> names;
  bool empty_name = false;
  for (const std::string& flag : flags) {
    for (std::string_view part : detail::split_unquoted(flag, ',')) {
      part = trim(part);
      if (part.empty()) {
        if (!empty_name) {
          errors.push_back(SuiteError{
              SourcePos{std::string(kFlag)},
              fmt::format("an empty operation name in {} (give names such as --operation=get "
                          "or --operation=doc.get,log.append)",
                          in_quotes(flag))});
        }
        empty_name = true;
      } else if (std::find(names.begin(), names.end(), part) == names.end()) {
        names.emplace_back(part);
      }
    }
  }
  if (empty_name) return false;
  if (names.empty()) return true;

  // Every operation the suite's loaded engines declare: as (engine, operation), and
  // as names for messages, plain and qualified.
  std::vector<std::pair<std::string, std::string>> declared;
  std::vector<std::string> plain, qualified;
  for (const EngineSetting& engine : suite.engines) {
    const auto info = infos.find(engine.name);
    if (info == infos.end()) continue;
    for (const OperationSpec& op : info->second.operations) {
      if (std::find(plain.begin(), plain.end(), op.name) == plain.end()) plain.push_back(op.name);
      qualified.push_back(engine.name + "." + op.name);
      declared.emplace_back(engine.name, op.name);
    }
  }
  const std::size_t first_error = errors.size();
  for (const std::string& name : names) {
    const auto named = [&](const auto& engine_op) {
      return matches(name, engine_op.first, engine_op.second);
    };
    if (std::any_of(declared.begin(), declared.end(), named)) continue;
    // "engine.op" of an engine the suite runs: only that engine's operations are
    // listed, not every engine's.
    const std::size_t dot = name.find('.');
    std::vector<std::string> of_engine;
    if (dot != std::string::npos) {
      const std::string prefix = name.substr(0, dot + 1);
      for (const std::string& q : qualified) {
        if (q.starts_with(prefix)) of_engine.push_back(q);
      }
    }
    const std::string listed =
        of_engine.empty() ? fmt::format("the suite's engines have: {}", detail::join(qualified))
                          : fmt::format("engine {} has: {}", in_quotes(name.substr(0, dot)),
                                        detail::join(of_engine));
    const std::vector<std::string>& choices = dot == std::string::npos ? plain : qualified;
    errors.push_back(SuiteError{SourcePos{std::string(kFlag)},
                                fmt::format("unknown operation {} ({}){}", in_quotes(name), listed,
                                            detail::did_you_mean(name, choices))});
  }
  if (errors.size() != first_error) return false;

  std::vector<EngineSetting> kept;
  for (EngineSetting& engine : suite.engines) {
    const auto info = infos.find(engine.name);
    if (info == infos.end()) {
      kept.push_back(std::move(engine));
      continue;
    }
    engine.operations.clear();
    for (const OperationSpec& op : info->second.operations) {
      const auto wanted = [&](const std::string& name) {
        return matches(name, engine.name, op.name);
      };
      if (std::any_of(names.begin(), names.end(), wanted)) {
        engine.operations.push_back({op.name, SourcePos{std::string(kFlag)}});
      }
    }
    if (!engine.operations.empty()) kept.push_back(std::move(engine));
  }
  suite.engines = std::move(kept);
  return true;
}

}  // namespace storh::suite
