#include "cli/prepare.h"

#include <fmt/format.h>

#include "cli/args.h"
#include "plugin/discovery.h"
#include "suite/parse.h"

namespace storh::cli {
namespace {

// The flags `run` and `validate` accept, all of them taking a value.
std::vector<std::string> valued_flags() {
  return {"dataset", "engine",      "repeat",   "warmup", "output", "memory-limit",
          "timeout", "plugin-path", "work-dir", "set",    "format", "range-output"};
}

suite::Overrides overrides_from(const ParsedArgs& args) {
  suite::Overrides o;
  o.datasets = args.last("dataset");
  for (const std::string& value : args.all("engine")) {
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      if (comma != 0) o.engines.emplace_back(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  o.repeat = args.last("repeat");
  o.warmup = args.last("warmup");
  o.output = args.last("output");
  o.memory_limit = args.last("memory-limit");
  o.timeout = args.last("timeout");
  o.plugin_path = args.all("plugin-path");
  o.work_dir = args.last("work-dir");
  o.range_output = args.last("range-output");
  o.sets = args.all("set");
  return o;
}

void print_errors(const std::vector<suite::SuiteError>& errors, std::ostream& err) {
  for (const suite::SuiteError& error : errors) err << error.str() << '\n';
}

}  // namespace

std::optional<Prepared> prepare(const std::vector<std::string>& raw_args, const CommandIo& io,
                                const PrepareOptions& options) {
  std::vector<std::string> valued = valued_flags();
  valued.insert(valued.end(), options.extra_valued.begin(), options.extra_valued.end());
  Expected<ParsedArgs> args = parse_args(raw_args, valued, options.extra_switches);
  if (!args) {
    io.err << "storh-host: " << args.error() << '\n';
    return std::nullopt;
  }
  if (args->positional.empty() && options.default_suite) {
    args->positional.push_back(*options.default_suite);
  }
  if (args->positional.size() != 1) {
    io.err << "storh-host: expected one suite file, got " << args->positional.size()
           << " (see storh-host run --help)\n";
    return std::nullopt;
  }
  Prepared prepared;
  prepared.args = *args;
  prepared.command_line = {"storh-host", options.command};
  prepared.command_line.insert(prepared.command_line.end(), raw_args.begin(), raw_args.end());
  prepared.format = args->last("format").value_or("text");
  if (prepared.format != "text" && prepared.format != "md") {
    io.err << fmt::format("storh-host: --format: unknown format \"{}\" (valid: text, md)\n",
                          prepared.format);
    return std::nullopt;
  }

  std::vector<suite::SuiteError> errors;
  std::optional<suite::Suite> parsed = suite::parse_suite_file(args->positional[0], errors);
  if (!parsed || !suite::apply_overrides(*parsed, overrides_from(*args), errors)) {
    print_errors(errors, io.err);
    return std::nullopt;
  }
  prepared.suite = std::move(*parsed);
  suite::Suite& suite = prepared.suite;

  const auto engines = plugin::find_engines(plugin::search_path(suite.plugin_path));
  std::vector<std::string> known;
  for (const auto& [name, file] : engines) known.push_back(name);
  std::map<std::string, EngineInfo> infos;
  for (const suite::EngineSetting& setting : suite.engines) {
    auto found = engines.find(setting.name);
    if (found == engines.end()) continue;  // check_suite reports it with the known names
    Expected<plugin::Description> description =
        plugin::describe_plugin(io.environment.host_executable, found->second, setting.name);
    if (!description) {
      prepared.load_errors.emplace_back(setting.name, description.error());
      continue;
    }
    // A load suite runs transactions: they are its operations (docs/load.md).
    if (suite.load && !plan::use_transactions_as_operations(*description)) {
      errors.push_back(suite::SuiteError{
          setting.pos, fmt::format("engine \"{}\" offers no transactions, so a load suite "
                                   "([load]) cannot run it",
                                   setting.name)});
      continue;
    }
    infos[setting.name] = description->info;
    prepared.descriptions.emplace(setting.name, std::move(*description));
  }
  if (!errors.empty() || !suite::check_suite(suite, known, infos, errors)) {
    print_errors(errors, io.err);
    return std::nullopt;
  }

  // Engines that failed to load stay out of the plan; the caller records them.
  suite::Suite loadable = suite;
  std::erase_if(loadable.engines, [&](const suite::EngineSetting& e) {
    return prepared.descriptions.count(e.name) == 0;
  });
  prepared.plan = plan::expand_plan(loadable, prepared.descriptions);
  return prepared;
}

}  // namespace storh::cli
