// cli/prepare.h: from command-line arguments to a checked suite and its plan; the
// part `run` and `validate` share.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "plan/plan.h"
#include "plugin/describe.h"
#include "result/result.h"
#include "suite/parse.h"
#include "suite/suite.h"

namespace storh::plugin {
class Sessions;  // plugin/session.h
}  // namespace storh::plugin

namespace storh::cli {

struct Prepared {
  ParsedArgs args;  // every flag, including the caller's extra ones
  suite::Suite suite;
  std::map<std::string, plugin::Description> descriptions;  // engines that loaded
  // Engines of the suite whose plugin could not be loaded or described, with why.
  std::vector<std::pair<std::string, std::string>> load_errors;
  plan::Plan plan;  // over the engines that loaded
  std::string format = "text";
  // "storh-host", the command, then the arguments as given: the result's
  // experiment.command_line.
  std::vector<std::string> command_line;
  // Each engine's session child (plugin/session.h), which described it and checked
  // its cells, kept for the run: its workers are forked from it (RunnerOptions::spawn).
  std::shared_ptr<plugin::Sessions> sessions;
};

// The flags every command that runs a suite takes (run, validate, ci, ab, calibrate):
// those taking a value, and the switches.
std::vector<std::string> run_valued_flags();
std::vector<std::string> run_switches();

// Parses arguments, reads the suite, applies overrides, describes the plugins and
// checks the suite. Prints errors to io.err and returns nullopt on bad input.
// `extra_valued` and `extra_switches` are the calling command's own flags;
// `default_suite` is used when no suite file is given (ci).
struct PrepareOptions {
  std::vector<std::string> extra_valued;
  std::vector<std::string> extra_switches;
  std::optional<std::string> default_suite;
  std::string command = "run";  // as recorded in Prepared::command_line
};
// Each error on its own line, in the form every command's errors take:
// "storh-host: file:line:col: message" ("storh-host: --clients: message" for a flag).
void print_errors(const std::vector<suite::SuiteError>& errors, std::ostream& err);

// `dirs` and then each directory $STORH_PLUGIN_PATH names, located at
// "$STORH_PLUGIN_PATH": named by the user as a flag is, so checked as one.
std::vector<suite::Located<std::filesystem::path>> with_env_plugin_path(
    std::vector<suite::Located<std::filesystem::path>> dirs);

// Adds an error for each plugin directory that does not exist, at where it was named
// (suite file:line:column, --plugin-path or $STORH_PLUGIN_PATH): a path the user names
// must exist, or a typo would silently measure the plugins found elsewhere on the
// path. Returns true when all exist.
bool check_plugin_dirs(const std::vector<suite::Located<std::filesystem::path>>& dirs,
                       std::vector<suite::SuiteError>& errors);

std::optional<Prepared> prepare(const std::vector<std::string>& args, const CommandIo& io,
                                const PrepareOptions& options = {});

}  // namespace storh::cli
