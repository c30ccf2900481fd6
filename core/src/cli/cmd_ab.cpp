// `storh-host ab`, `storh-host calibrate` and `storh-host ci --base=DIR`: reads the A/B
// flags (cli/ab_flags.h), prepares each side, runs ab/flow.h with them and prints how
// it ended.
#include <fmt/format.h>

#include "ab/flow.h"
#include "cli/ab_command.h"
#include "cli/ab_flags.h"
#include "cli/execute.h"
#include "cli/output.h"

namespace storh::cli {
namespace {

// The run's flags and the A/B flags, as the command table lists them.
Expected<ParsedArgs> parse_ab_args(const std::vector<std::string>& args,
                                   const std::vector<std::string>& more_valued = {}) {
  const CommandFlags& ab = command_flags("ab");
  std::vector<std::string> valued = run_valued_flags();
  valued.insert(valued.end(), ab.valued.begin(), ab.valued.end());
  valued.insert(valued.end(), more_valued.begin(), more_valued.end());
  std::vector<std::string> switches = run_switches();
  switches.insert(switches.end(), ab.switches.begin(), ab.switches.end());
  return parse_args(args, valued, switches);
}

// One side: the run's flags with this side's plugin directory searched first and
// its parameter overrides last (so they win).
std::optional<Prepared> prepare_side(const std::vector<std::string>& run_args,
                                     const std::optional<std::string>& dir,
                                     const std::vector<std::string>& sets, const char* side,
                                     const AbCommandSettings& settings, const CommandIo& io) {
  // Checked here so that the message names the flag the user gave (--base / --head).
  if (std::vector<suite::SuiteError> errors;
      dir && !check_plugin_dirs({{*dir, suite::SourcePos{fmt::format("--{}", side)}}}, errors)) {
    print_errors(errors, io.err);
    return std::nullopt;
  }
  std::vector<std::string> side_args;
  if (dir) side_args.push_back("--plugin-path=" + *dir);
  side_args.insert(side_args.end(), run_args.begin(), run_args.end());
  for (const std::string& set : sets) {
    side_args.push_back("--set");
    side_args.push_back(set);
  }
  PrepareOptions options;
  options.default_suite = settings.default_suite;
  std::optional<Prepared> prepared = prepare(side_args, io, options);
  if (!prepared) return std::nullopt;
  for (const auto& [engine, message] : prepared->load_errors) {
    io.err << fmt::format("storh-host {}: {}: engine \"{}\": {}\n", settings.command, side, engine,
                          message);
  }
  if (!prepared->load_errors.empty()) return std::nullopt;
  if (dir) {
    std::error_code ec;
    const auto wanted = std::filesystem::weakly_canonical(*dir, ec);
    for (const auto& [engine, description] : prepared->descriptions) {
      const auto found = std::filesystem::weakly_canonical(description.file.parent_path(), ec);
      if (found != wanted) {
        io.err << fmt::format(
            "storh-host {}: {}: {} has no storh_{}.so (the only one found is {}); each side must "
            "bring every engine of the suite\n",
            settings.command, side, *dir, engine, description.file.string());
        return std::nullopt;
      }
    }
  }
  return prepared;
}

// calibrate's product: the table, where it went, and what to do with it.
void print_calibration(const ab::AbFlowOutcome& outcome, const ResolvedAb& resolved,
                       const CommandIo& io) {
  io.out << ab::render_calibration(*outcome.calibration, resolved.format)
         << "calibration: " << outcome.calibration_written.string() << '\n';
  if (outcome.calibration_kept) {
    io.err << fmt::format(
        "storh-host calibrate: {} exists and was left as it is; to use the new calibration, "
        "move {} over it (or pass --calibration={} to write it directly)\n",
        outcome.calibration_kept->string(), outcome.calibration_written.string(),
        outcome.calibration_kept->string());
  }
  for (const std::string& warning : outcome.result->head.environment.warnings) {
    if (warning.find("machine busy") == std::string::npos) continue;
    io.err << "storh-host calibrate: warning: measured while " << warning
           << ": the noise it records is this load's, not the machine's; calibrate again on "
              "a quiet machine before committing it\n";
    break;
  }
}

}  // namespace

int run_ab_command(const std::vector<std::string>& raw_args, const CommandIo& io,
                   const AbCommandSettings& settings) {
  InterruptGuard guard;
  Expected<ParsedArgs> flags = parse_ab_args(raw_args);
  if (!flags) {
    io.err << "storh-host: " << flags.error() << '\n';
    return kExitBadInput;
  }
  if (!settings.calibrating && !flags->has("base") && !flags->has("head") &&
      !flags->has("base-set") && !flags->has("head-set") && !flags->has("inject-slowdown")) {
    io.err << fmt::format(
        "storh-host {}: nothing tells the sides apart: give --base=DIR (and --head=DIR), or "
        "--base-set/--head-set ENGINE.PARAM=V\n",
        settings.command);
    return kExitBadInput;
  }
  // Everything but the A/B flags goes to prepare(), once per side.
  const CommandFlags& ab_flags = command_flags("ab");
  const std::vector<std::string> args = without_flags(raw_args, ab_flags.valued, ab_flags.switches);
  const std::optional<std::string> head_dir = flags->last("head");
  std::optional<Prepared> base =
      prepare_side(args, flags->last("base"), flags->all("base-set"), "base", settings, io);
  if (!base) return kExitBadInput;
  std::optional<Prepared> head =
      prepare_side(args, head_dir, flags->all("head-set"), "head", settings, io);
  if (!head) return kExitBadInput;
  Expected<ResolvedAb> resolved = resolve_ab_flags(*flags, head->suite, settings);
  if (!resolved) {
    io.err << fmt::format("storh-host {}: {}\n", settings.command, resolved.error());
    return kExitBadInput;
  }

  ab::AbFlowOptions options;
  options.command = settings.command;
  options.suite_output = head->suite.output;
  if (const auto& calibration = head->suite.gate.ab.calibration) {
    options.suite_calibration = calibration->value;
  }
  options.base = base->plan;
  options.head = head->plan;
  options.base.repeat = options.head.repeat = resolved->pairs;
  options.run = resolved->run;
  options.run.runner.host_executable = io.environment.host_executable;
  options.run.runner.progress = io.environment.interactive ? &io.err : nullptr;
  options.run.runner.cancel = &InterruptGuard::interrupted();
  options.run.runner.warnings = &io.err;
  options.run.runner.command_line = {"storh-host", settings.command};
  options.run.runner.command_line.insert(options.run.runner.command_line.end(), raw_args.begin(),
                                         raw_args.end());
  options.confirm_pairs = resolved->confirm_pairs;
  options.gate = resolved->gate;
  options.calibrating = settings.calibrating;
  options.calibration = resolved->calibration;
  // calibrate ... as this command was given: its suite and run flags, head's plugins.
  options.calibrate_args = args;
  if (head_dir)
    options.calibrate_args.insert(options.calibrate_args.begin(), "--plugin-path=" + *head_dir);
  if (head->args.positional.empty()) {
    options.calibrate_args.insert(options.calibrate_args.begin(), head->suite.file.string());
  }
  if (resolved->output) options.output = *resolved->output;
  if (settings.calibrating && flags->has("calibration")) {
    options.calibration_output = *flags->last("calibration");
  }
  options.before_writing = [&](const std::filesystem::path& file) {
    note_directory_created(settings.command, file, io);
  };

  const ab::AbFlowOutcome outcome = ab::run_ab_flow(std::move(options), io.err);
  if (outcome.written) {
    // JSON on stdout stays parseable: the path goes to stderr then.
    (resolved->format == compare::OutputFormat::json || resolved->html ? io.err : io.out)
        << "result: " << outcome.written->string() << '\n';
  }
  if (!outcome.error.empty()) {
    io.err << fmt::format("storh-host {}: {}\n", settings.command, outcome.error);
    return outcome.exit_code;
  }
  if (outcome.calibration) {
    print_calibration(outcome, *resolved, io);
    return outcome.exit_code;
  }
  if (!outcome.verdict) return outcome.exit_code;  // interrupted
  const ab::AbReport report = render_verdict(*outcome.result, *outcome.verdict, *resolved);
  io.out << report.out;
  io.err << report.err;
  const std::string origin = outcome.written ? outcome.written->string() : std::string();
  if (const int code =
          write_junit_if_asked(settings.command, *resolved, *outcome.verdict, origin, io);
      code != kExitOk) {
    return code;
  }
  if (outcome.failed_runs > 0) {
    io.err << fmt::format("storh-host {}: {} worker run(s) failed (see the result file)\n",
                          settings.command, outcome.failed_runs);
  }
  return outcome.exit_code;
}

int ab_command(const std::vector<std::string>& args, const CommandIo& io) {
  return run_ab_command(args, io, {"ab", std::nullopt, false, false});
}

int calibrate_command(const std::vector<std::string>& args, const CommandIo& io) {
  return run_ab_command(args, io, {"calibrate", std::nullopt, true, false});
}

}  // namespace storh::cli
