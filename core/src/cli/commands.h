// cli/commands.h: one function per command; each parses its own arguments.
#pragma once

#include <ostream>
#include <string>
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

// The help text of a command, or of the program for "".
std::string help_text(const std::string& command);

}  // namespace storh::cli
