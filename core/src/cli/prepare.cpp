#include "cli/prepare.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/output.h"
#include "load/outcome.h"
#include "plugin/discovery.h"
#include "plugin/session.h"
#include "run/counting_pass.h"
#include "run/worker_run.h"
#include "storh/version.h"
#include "suite/parse.h"
#include "util/files.h"

namespace storh::cli {

std::vector<std::string> run_valued_flags() {
  return {"dataset",        "engine",       "repeat",      "warmup",       "output",
          "memory-limit",   "timeout",      "plugin-path", "work-dir",     "set",
          "format",         "range-output", "clients",     "transactions", "duration",
          "rate",           "operation",    "counters",    "min-time",     "workload",
          "operationcount", "recordcount",  "o",           "interval",     "latency-limit"};
}

std::vector<std::string> run_switches() {
  return {"no-fail-fast"};
}

namespace {

suite::Overrides overrides_from(const ParsedArgs& args) {
  suite::Overrides o;
  o.datasets = args.last("dataset");
  o.engines = args.all("engine");  // lists are split (and empty names refused) by apply_engines
  o.repeat = args.last("repeat");
  o.warmup = args.last("warmup");
  o.output = output_flag(args);  // --output, or -o as report, merge and compare take it
  o.memory_limit = args.last("memory-limit");
  o.timeout = args.last("timeout");
  o.min_time = args.last("min-time");
  o.plugin_path = args.all("plugin-path");
  o.work_dir = args.last("work-dir");
  o.range_output = args.last("range-output");
  o.sets = args.all("set");
  o.clients = args.last("clients");
  o.transactions = args.last("transactions");
  o.duration = args.last("duration");
  o.rate = args.last("rate");
  o.interval = args.last("interval");
  o.latency_limit = args.last("latency-limit");
  o.workload = args.last("workload");
  o.operationcount = args.last("operationcount");
  o.recordcount = args.last("recordcount");
  o.operations = args.all("operation");
  o.counters = args.last("counters");
  return o;
}

// After each load operation that has parts (Transactions::parts, ABI 1.7), one
// operation per part, "<type>.<part>", so that every part is a metric of its own.
void add_part_operations(plan::Cell& cell,
                         const std::map<std::string, std::vector<std::string>>& parts) {
  if (!cell.load || parts.empty()) return;
  std::vector<OperationSpec> operations;
  for (const OperationSpec& op : cell.operations) {
    operations.push_back(op);
    const auto found = parts.find(op.name);
    if (found == parts.end()) continue;
    for (const std::string& name : load::part_operations(op.name, found->second)) {
      operations.push_back(
          {name, op.unit, op.direction,
           fmt::format("{}: its {} transactions", op.name, name.substr(op.name.size() + 1))});
    }
  }
  cell.operations = std::move(operations);
}

// Where the suite set the cell's value of `param`: the value's position, else the
// parameter's, else the engine's (a default value the suite never wrote).
suite::SourcePos param_position(const suite::Suite& suite, const plan::Cell& cell,
                                const std::string& param) {
  const auto engine =
      std::find_if(suite.engines.begin(), suite.engines.end(),
                   [&](const suite::EngineSetting& e) { return e.name == cell.engine; });
  if (engine == suite.engines.end()) return {};
  const auto setting = std::find_if(engine->params.begin(), engine->params.end(),
                                    [&](const suite::ParamSetting& p) { return p.name == param; });
  if (setting == engine->params.end()) return engine->pos;
  const auto chosen = std::find_if(cell.params.begin(), cell.params.end(),
                                   [&](const result::Param& p) { return p.first == param; });
  for (const suite::Located<ParamValue>& value : setting->values) {
    if (chosen != cell.params.end() && value.value == chosen->second) return value.pos;
  }
  return setting->pos;
}

// A load cell bounded by a count of transactions whose parameters let a transaction go
// on without end (Transactions::needs_duration): bad input, said where the value is.
std::optional<suite::SuiteError> duration_need_error(const suite::Suite& suite,
                                                     const plan::Cell& cell,
                                                     const plugin::Preflight& answer) {
  if (!cell.load || cell.load->duration_seconds || answer.duration_param.empty()) {
    return std::nullopt;
  }
  return suite::SuiteError{
      param_position(suite, cell, answer.duration_param),
      fmt::format("{}.{}: {}, and a cell of this suite counts transactions instead "
                  "(give it a duration)",
                  cell.engine, answer.duration_param, answer.duration_reason)};
}

// Engine::preflight (ABI 1.4) of every distinct parameter combination of the plan, asked
// of the engine's session (its describing child): a machine that cannot run a cell (an
// installation a parameter names is missing) is bad input before any cell runs. Prints every
// refusal, and each note once. Adds the parts the plugin names to the cells' operations, and
// refuses a load cell that counts transactions where a parameter needs a duration.
bool preflight_cells(Prepared& prepared, const CommandIo& io) {
  std::map<std::pair<std::string, std::string>, plugin::Preflight> checked;  // engine, params
  std::set<std::string> noted;
  std::set<std::string> refused;
  bool ok = true;
  for (plan::Cell& cell : prepared.plan.cells) {
    const auto found = prepared.descriptions.find(cell.engine);
    if (found == prepared.descriptions.end() ||
        found->second.manifest.abi_minor < storh::kPreflightAbiMinor) {
      continue;
    }
    const std::string params = run::params_argument(cell);
    auto [answer, first] = checked.try_emplace({cell.engine, params});
    if (first) {
      answer->second = prepared.sessions->find(cell.engine)->preflight(params);
      // A note (a database a crashed run left on a DSN server) is the same for every
      // combination that reaches the same server: said once.
      for (const std::string& note : answer->second.notes) {
        if (noted.insert(note).second) {
          io.err << "storh-host: " << cell.engine << ": " << note << '\n';
        }
      }
    }
    add_part_operations(cell, answer->second.parts);
    if (auto error = duration_need_error(prepared.suite, cell, answer->second)) {
      // Every cell of a count sweep has the same fault: said once.
      if (refused.insert(error->str()).second) io.err << "storh-host: " << error->str() << '\n';
      ok = false;
    }
    if (!first || answer->second.error.empty()) continue;
    const std::string where =
        cell.qualifiers.empty()
            ? cell.engine
            : fmt::format("{}[{}]", cell.engine, fmt::join(cell.qualifiers, ","));
    io.err << "storh-host: " << where << ": " << answer->second.error << '\n';
    ok = false;
  }
  return ok;
}

}  // namespace

void print_errors(const std::vector<suite::SuiteError>& errors, std::ostream& err) {
  // Enough to fix in one sitting; a file of thousands of bad lines says how many more.
  constexpr std::size_t kShown = 50;
  std::vector<std::string> seen;
  std::size_t shown = 0;
  for (const suite::SuiteError& error : errors) {
    std::string line = error.str();
    // Two checks of one value can find the same fault: say it once.
    if (std::find(seen.begin(), seen.end(), line) != seen.end()) continue;
    seen.push_back(line);
    if (shown++ < kShown) err << "storh-host: " << line << '\n';
  }
  if (shown > kShown) {
    err << fmt::format("storh-host: ... and {} more error(s) not shown\n", shown - kShown);
  }
}

std::vector<suite::Located<std::filesystem::path>> with_env_plugin_path(
    std::vector<suite::Located<std::filesystem::path>> dirs) {
  for (std::filesystem::path& dir : plugin::env_plugin_path()) {
    dirs.push_back({std::move(dir), suite::SourcePos{"$STORH_PLUGIN_PATH"}});
  }
  return dirs;
}

bool check_plugin_dirs(const std::vector<suite::Located<std::filesystem::path>>& dirs,
                       std::vector<suite::SuiteError>& errors) {
  const std::size_t first_error = errors.size();
  for (const auto& [dir, pos] : dirs) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) continue;
    const std::string shown =
        dir.is_absolute()
            ? fmt::format("\"{}\"", dir.string())
            : fmt::format("\"{}\" ({})", dir.string(), std::filesystem::absolute(dir, ec).string());
    errors.push_back(suite::SuiteError{
        pos, fmt::format("plugin directory {} does not exist (a plugin path you name must exist, "
                         "so that a typo does not run the plugins found elsewhere)",
                         shown)});
  }
  return errors.size() == first_error;
}

std::optional<Prepared> prepare(const std::vector<std::string>& raw_args, const CommandIo& io,
                                const PrepareOptions& options) {
  std::vector<std::string> valued = run_valued_flags();
  valued.insert(valued.end(), options.extra_valued.begin(), options.extra_valued.end());
  std::vector<std::string> switches = run_switches();
  switches.insert(switches.end(), options.extra_switches.begin(), options.extra_switches.end());
  Expected<ParsedArgs> args = parse_args(raw_args, valued, switches);
  if (!args) {
    io.err << "storh-host: " << args.error() << '\n';
    return std::nullopt;
  }
  if (args->positional.empty() && options.default_suite) {
    args->positional.push_back(*options.default_suite);
  }
  // Without a suite file, --engine makes one from the flags (suite_from_flags).
  const bool from_flags = args->positional.empty() && args->has("engine");
  if (args->positional.size() != 1 && !from_flags) {
    io.err << "storh-host: expected one suite file (or --engine=NAME to run without one), got "
           << args->positional.size() << " (see storh-host run --help)\n";
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
  const suite::Overrides overrides = overrides_from(*args);
  std::optional<suite::Suite> partial;
  std::optional<suite::Suite> parsed =
      from_flags ? suite::suite_from_flags(overrides, errors)
                 : suite::parse_suite_file(args->positional[0], errors, &partial);
  bool bad_values = false;
  if (parsed && !from_flags && !suite::apply_overrides(*parsed, overrides, errors)) {
    partial = std::exchange(parsed, std::nullopt);
  }
  if (!parsed) {
    // A suite whose TOML was read but some value was not: go on to the checks that need
    // the plugins (unknown engines, parameters, bounds), so one pass reports them all.
    if (!partial) {
      print_errors(errors, io.err);
      return std::nullopt;
    }
    parsed = std::move(partial);
    bad_values = true;
  }
  prepared.suite = std::move(*parsed);
  suite::Suite& suite = prepared.suite;
  // Before any work: a result that cannot be written would be lost after the whole run.
  std::string output_error = bad_values ? "" : check_output_file(suite.output);
  if (output_error.empty() && suite.range_output && !bad_values) {
    output_error = check_output_file(*suite.range_output / "index.json");
  }
  if (!output_error.empty()) {
    io.err << "storh-host: " << output_error << '\n';
    return std::nullopt;
  }

  if (!check_plugin_dirs(with_env_plugin_path(suite.plugin_path), errors)) {
    print_errors(errors, io.err);
    return std::nullopt;
  }
  std::vector<std::filesystem::path> first_dirs;
  for (const auto& dir : suite.plugin_path) first_dirs.push_back(dir.value);
  std::vector<plugin::ShadowedPlugin> shadowed;
  const auto engines = plugin::find_engines(plugin::search_path(first_dirs), &shadowed);
  for (const plugin::ShadowedPlugin& hidden : shadowed) {
    const auto in_suite = [&](const suite::EngineSetting& e) { return e.name == hidden.name; };
    if (std::any_of(suite.engines.begin(), suite.engines.end(), in_suite)) {
      io.err << "storh-host: warning: " << plugin::shadowed_message(hidden) << '\n';
    }
  }
  std::vector<std::string> known;
  known.reserve(engines.size());
  for (const auto& [name, file] : engines) known.push_back(name);
  // Every engine's child starts before the first answer is awaited: they load at once.
  prepared.sessions = std::make_shared<plugin::Sessions>();
  for (const suite::EngineSetting& setting : suite.engines) {
    auto found = engines.find(setting.name);
    if (found == engines.end()) continue;  // check_suite reports it with the known names
    prepared.sessions->start(setting.name, io.environment.host_executable, found->second);
  }
  std::map<std::string, EngineInfo> infos;
  for (const suite::EngineSetting& setting : suite.engines) {
    plugin::Session* session = prepared.sessions->find(setting.name);
    if (session == nullptr) continue;
    Expected<plugin::Description> description = session->description();
    if (!description) {
      prepared.load_errors.emplace_back(setting.name, description.error());
      continue;
    }
    // A YCSB suite runs the key-value store: its metrics are its operations.
    if (suite.ycsb && !plan::use_ycsb_as_operations(*suite.ycsb, *description)) {
      errors.push_back(suite::SuiteError{
          setting.pos, fmt::format("engine \"{}\" offers no key-value store (storh/key_value.h, "
                                   "plugin ABI 1.6), so a YCSB suite ([ycsb]) cannot run it",
                                   setting.name)});
      continue;
    }
    // A load suite runs transactions: they are its operations (docs/load.md).
    if (suite.load && !suite.ycsb && !plan::use_transactions_as_operations(*description)) {
      errors.push_back(suite::SuiteError{
          setting.pos, fmt::format("engine \"{}\" offers no transactions, so a load suite "
                                   "([load]) cannot run it",
                                   setting.name)});
      continue;
    }
    infos[setting.name] = description->info;
    prepared.descriptions.emplace(setting.name, std::move(*description));
  }
  if (errors.empty()) suite::filter_operations(suite, overrides.operations, infos, errors);
  std::map<std::string, std::vector<ParamRange>> ranges;
  for (const auto& [name, description] : prepared.descriptions) ranges[name] = description.ranges;
  // Every check runs, so that every error of the suite is said at once.
  bool checked = suite::check_suite(suite, known, infos, errors);
  checked = suite::check_param_ranges(suite, ranges, errors) && checked;
  if (!bad_values)
    checked = run::check_counting(suite, io.environment.host_executable, errors) && checked;
  if (bad_values || !checked || !errors.empty()) {
    print_errors(errors, io.err);
    return std::nullopt;
  }

  // Engines that failed to load stay out of the plan; the caller records them.
  suite::Suite loadable = suite;
  std::erase_if(loadable.engines, [&](const suite::EngineSetting& e) {
    return prepared.descriptions.count(e.name) == 0;
  });
  prepared.plan = plan::expand_plan(loadable, prepared.descriptions);
  if (!preflight_cells(prepared, io)) return std::nullopt;
  return prepared;
}

}  // namespace storh::cli
