// cli/help.h: the help text of each command (cli/command_table.cpp gives each to its
// command), and of the program.
#pragma once

#include <string>

namespace storh::cli {

std::string run_help();
std::string validate_help();
std::string list_help();
std::string report_help();
std::string compare_help();
std::string gate_help();
std::string ci_help();
std::string ab_help();
std::string calibrate_help();
std::string merge_help();
std::string history_help();
// The program's: every command in one line, and the exit codes.
std::string program_help();

}  // namespace storh::cli
