// cli/commands.h: one function per command; each parses its own arguments.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"
#include "cli/cli.h"
#include "gate/gate.h"
#include "util/expected.h"

namespace storh::cli {

struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  const CliEnvironment& environment;
};

int run_command(const std::vector<std::string>& args, const CommandIo& io);
int validate_command(const std::vector<std::string>& args, const CommandIo& io);
int list_command(const std::vector<std::string>& args, const CommandIo& io);
int report_command(const std::vector<std::string>& args, const CommandIo& io);
int compare_command(const std::vector<std::string>& args, const CommandIo& io);
int gate_command(const std::vector<std::string>& args, const CommandIo& io);
int ci_command(const std::vector<std::string>& args, const CommandIo& io);
int ab_command(const std::vector<std::string>& args, const CommandIo& io);
int calibrate_command(const std::vector<std::string>& args, const CommandIo& io);
int merge_command(const std::vector<std::string>& args, const CommandIo& io);
int history_command(const std::vector<std::string>& args, const CommandIo& io);

// The gate's flags (--threshold, --metric, --significant, --alpha, --min-effect,
// --lenient-missing) applied on top of `options`; shared by `gate` (from the
// defaults) and `ci` (from the suite's [gate] table).
Expected<gate::GateOptions> apply_gate_flags(const ParsedArgs& args, gate::GateOptions options);

// A command's own flags: given to parse_args, or to prepare() on top of the run flags.
struct CommandFlags {
  std::vector<std::string> valued;
  std::vector<std::string> switches;
};

// A command's subcommand (`history add`) and its flags.
struct Subcommand {
  std::string_view name;
  CommandFlags flags;
};

// One entry per command (cli/command_table.cpp): dispatch, help and the flag checks
// all read it, so a command is added in one place.
struct Command {
  std::string_view name;
  int (*run)(const std::vector<std::string>& args, const CommandIo& io);
  std::string (*help)();
  CommandFlags flags;
  std::vector<Subcommand> subcommands;  // in the order its errors list them
  std::vector<std::string_view> usage;  // its lines in the program's help
};

// Every command, in the order the program's help and the unknown-command error list
// them.
const std::vector<Command>& commands();
// The entry named `name`, or nullptr.
const Command* find_command(std::string_view name);
// The flags of the command named `name` (none for a name not in the table).
const CommandFlags& command_flags(std::string_view name);
// `args` parsed with the flags of the command named `name` (parse_args).
Expected<ParsedArgs> parse_command_args(std::string_view name,
                                        const std::vector<std::string>& args);

// The help text of a command, or of the program for a name not in the table ("").
std::string help_text(const std::string& command);

}  // namespace storh::cli
