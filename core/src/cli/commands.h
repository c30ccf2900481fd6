// cli/commands.h: one function per command; each parses its own arguments.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.h"

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

// The help text of a command, or of the program for "".
std::string help_text(const std::string& command);

}  // namespace storh::cli
