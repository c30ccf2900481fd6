// `__describe` and `__preflight`: children that load a plugin to ask it about itself and
// run nothing, so a plugin that crashes while loading or describing fails only them.
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "plugin/describe.h"
#include "plugin/loader.h"
#include "storh/version.h"
#include "worker/request.h"
#include "worker/worker_context.h"
#include "worker/worker_main.h"

namespace storh::worker {
namespace {

// `__preflight`'s "--key=value" arguments into a map; anything else is an error.
std::optional<std::map<std::string, std::string>> parse_flags(const std::vector<std::string>& args,
                                                              std::size_t first) {
  std::map<std::string, std::string> flags;
  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const std::size_t equals = arg.find('=');
    if (!arg.starts_with("--") || equals == std::string::npos) return std::nullopt;
    flags[arg.substr(2, equals - 2)] = arg.substr(equals + 1);
  }
  return flags;
}

}  // namespace

int describe_main(const std::vector<std::string>& args) {
  if (args.size() < 2) return fail_input("usage: storh-host __describe FILE [--name=NAME]");
  std::string expected_name;
  if (args.size() > 2 && args[2].starts_with("--name=")) expected_name = args[2].substr(7);
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(args[1], expected_name);
  if (!loaded) {
    std::cerr << loaded.error() << '\n';
    return kWorkerExitBadInput;
  }
  plugin::Description description{(*loaded)->manifest(), (*loaded)->describe(), args[1], {}};
  if (Transactions* transactions = (*loaded)->transactions()) {
    description.transactions = transactions->describe();
  }
  description.key_value = (*loaded)->key_value() != nullptr;
  if ((*loaded)->manifest().abi_minor >= storh::kParamRangesAbiMinor) {
    description.ranges = (*loaded)->engine().param_ranges();
  }
  std::cout << plugin::description_json(description)
                   .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << '\n';
  return kWorkerExitOk;
}

int preflight_main(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    return fail_input("usage: storh-host __preflight FILE --name=NAME --params=JSON");
  }
  const auto flags = parse_flags(args, 2);
  if (!flags) return fail_input("arguments after FILE must be --key=value");
  const auto get = [&](const char* key) {
    auto it = flags->find(key);
    return it == flags->end() ? std::string() : it->second;
  };
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(args[1], get("name"));
  if (!loaded) return fail_input(loaded.error());
  if ((*loaded)->manifest().abi_minor < storh::kPreflightAbiMinor) return kWorkerExitOk;
  const Engine& engine = (*loaded)->engine();
  Expected<ParamValues> chosen = params_from_json(get("params"));
  if (!chosen) return fail_input("--params: " + chosen.error());
  const ParamValues params = build_params((*loaded)->describe(), *chosen);
  const Status status = engine.preflight({params.begin(), params.end()});
  if (!status.ok()) {
    std::cerr << status.message() << '\n';
    return kWorkerExitBadInput;
  }
  // ABI 1.7: the parts of each transaction type under these parameters, and the
  // parameter that needs a duration, as JSON {"parts": {"type": ["part", ...]},
  // "needs_duration": {"param": ..., "reason": ...}} on stdout, so that the host names
  // the parts' metrics and refuses a cell without a duration up front.
  Transactions* transactions = (*loaded)->transactions();
  if ((*loaded)->manifest().abi_minor >= storh::kTransactionReportAbiMinor &&
      transactions != nullptr) {
    const std::vector<std::pair<std::string, ParamValue>> values(params.begin(), params.end());
    nlohmann::json parts = nlohmann::json::object();
    const std::vector<TransactionSpec> specs = transactions->describe();
    for (std::size_t type = 0; type < specs.size(); ++type) {
      std::vector<std::string> names = transactions->parts(type, values);
      if (!names.empty()) parts[specs[type].name] = std::move(names);
    }
    nlohmann::json answer = {{"parts", std::move(parts)}};
    const Transactions::DurationNeed need = transactions->needs_duration(values);
    if (!need.param.empty()) {
      answer["needs_duration"] = {{"param", need.param}, {"reason", need.reason}};
    }
    std::cout << answer.dump() << '\n';
  }
  return kWorkerExitOk;
}

}  // namespace storh::worker
