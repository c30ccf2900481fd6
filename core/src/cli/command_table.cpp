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

}  // namespace

const std::vector<Command>& commands() {
  // The order is the one the unknown-command error lists them in.
  static const std::vector<Command> table = {
      {"run", run_command, run_help, {{"shard"}, {}}},
      {"validate", validate_command, validate_help, {{"shard"}, {}}},
      {"list", list_command, list_help, {{"plugin-path", "format"}, {}}},
      {"report", report_command, report_help, {{"format", "output", "o"}, {}}},
      {"compare", compare_command, compare_help, {{"format", "alpha", "output", "o"}, {}}},
      {"gate",
       gate_command,
       gate_help,
       {{"threshold", "metric", "format", "alpha", "min-effect", "counter", "calibration", "junit"},
        {"significant", "lenient-missing"}}},
      {"ci",
       ci_command,
       ci_help,
       {{"confirm", "threshold", "metric", "alpha", "min-effect", "counter", "calibration",
         "history", "commit", "branch", "max-p", "min-segment"},
        {"update-baseline", "significant", "lenient-missing"}}},
      {"ab", ab_command, ab_help, ab_flags()},
      {"calibrate", calibrate_command, calibrate_help, ab_flags()},
      // history takes flags per subcommand, and checks them there.
      {"merge", merge_command, merge_help, {{"output", "o"}, {}}},
      {"history", history_command, history_help, {}},
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
