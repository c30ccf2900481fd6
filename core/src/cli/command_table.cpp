// The one list of commands: what each is called, runs, prints for --help and accepts
// as flags. Adding a command is adding its line here.
#include <algorithm>

#include "cli/commands.h"
#include "cli/help.h"

namespace storh::cli {

namespace {

// ab, calibrate and ci --base=DIR: the A/B flags, taken on top of the run flags
// (cli/prepare.h) that each side is prepared with.
CommandFlags ab_flags() {
  return {{"base", "head", "base-set", "head-set", "pairs", "confirm-pairs", "order", "seed",
           "alpha", "calibration", "format", "output", "inject-slowdown", "junit", "threshold",
           "metric", "counter"},
          {"lenient"}};
}

// history's subcommands, each with its own flags.
std::vector<Subcommand> history_subcommands() {
  return {{"add", {{"db", "commit", "branch", "time"}, {}}},
          {"show", {{"db", "format", "output", "o", "max-p", "min-segment"}, {}}},
          {"changes", {{"db", "format", "output", "o", "max-p", "min-segment"}, {}}},
          {"export", {{"db", "format", "output", "o"}, {"results"}}},
          {"copy", {{"from", "to"}, {}}}};
}

}  // namespace

const std::vector<Command>& commands() {
  // The order is the one the program's help and the unknown-command error list them in.
  // Each `usage` line is the command's in the program's help.
  static const std::vector<Command> table = {
      {"run",
       run_command,
       run_help,
       {{"shard"}, {}},
       {},
       {"storh-host SUITE.toml [options]       run a suite (same as `storh-host run`)",
        "storh-host run SUITE.toml [options]",
        "storh-host run --engine=NAME [options]  run without a suite file (defaults: run --help)"}},
      {"validate",
       validate_command,
       validate_help,
       {{"shard"}, {}},
       {},
       {"storh-host validate SUITE.toml        check a suite without running it"}},
      {"list",
       list_command,
       list_help,
       {{"plugin-path", "format"}, {}},
       {},
       {"storh-host list [--plugin-path=DIR]   plugins found, their operations and parameters"}},
      {"report",
       report_command,
       report_help,
       {{"format", "output", "o"}, {}},
       {},
       {"storh-host report RESULT.json [--format=text|md|csv|json|html|bmf|...] [-o FILE]"}},
      {"merge",
       merge_command,
       merge_help,
       {{"output", "o"}, {}},
       {},
       {"storh-host merge SHARD.json... [-o FILE]  join the shards of run --shard=K/N"}},
      // Its flags are its subcommands'.
      {"history",
       history_command,
       history_help,
       {},
       history_subcommands(),
       {"storh-host history add|show|changes|export|copy   the run history and its changes"}},
      {"compare",
       compare_command,
       compare_help,
       {{"format", "alpha", "output", "o"}, {}},
       {},
       {"storh-host compare BASE.json NEW.json [MORE.json...] [--format=...|html] [-o FILE]"}},
      {"gate",
       gate_command,
       gate_help,
       {{"threshold", "metric", "format", "alpha", "min-effect", "counter", "calibration", "junit"},
        {"significant", "lenient-missing"}},
       {},
       {"storh-host gate BASE.json CURRENT.json [--threshold=10] [--metric=ENGINE.OP]..."}},
      {"ci",
       ci_command,
       ci_help,
       {{"confirm", "threshold", "metric", "alpha", "min-effect", "counter", "calibration",
         "history", "commit", "branch", "max-p", "min-segment"},
        {"update-baseline", "significant", "lenient-missing"}},
       {},
       {"storh-host ci [SUITE.toml] [--confirm=N] [--update-baseline] [--base=DIR]"}},
      {"ab",
       ab_command,
       ab_help,
       ab_flags(),
       {},
       {"storh-host ab SUITE.toml --base=DIR [--head=DIR]   paired A/B run of two builds"}},
      {"calibrate",
       calibrate_command,
       calibrate_help,
       ab_flags(),
       {},
       {"storh-host calibrate SUITE.toml       A/A pairs: each metric's noise on this machine"}},
  };
  return table;
}

const Command* find_command(std::string_view name) {
  const std::vector<Command>& table = commands();
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const Command& command) { return command.name == name; });
  return it == table.end() ? nullptr : &*it;
}

const CommandFlags& command_flags(std::string_view name) {
  static const CommandFlags none;
  const Command* command = find_command(name);
  return command == nullptr ? none : command->flags;
}

Expected<ParsedArgs> parse_command_args(std::string_view name,
                                        const std::vector<std::string>& args) {
  const CommandFlags& flags = command_flags(name);
  return parse_args(args, flags.valued, flags.switches);
}

std::string help_text(const std::string& command) {
  const Command* found = find_command(command);
  return found == nullptr ? program_help() : found->help();
}

}  // namespace storh::cli
