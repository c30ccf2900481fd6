#include "cli/cli.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/commands.h"
#include "util/shorten.h"
#include "worker/worker_main.h"

namespace storh::cli {
namespace {

bool wants_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& a) { return a == "--help" || a == "-h"; });
}

}  // namespace

bool draws_progress(bool stderr_is_terminal, const char* ci_variable) {
  if (!stderr_is_terminal) return false;
  if (ci_variable == nullptr) return true;
  const std::string_view ci = ci_variable;
  return ci.empty() || ci == "0" || ci == "false";
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const CliEnvironment& environment) {
  const CommandIo io{out, err, environment};
  if (args.empty()) {
    err << help_text("");
    return kExitBadInput;
  }
  const std::string& first = args.front();
  // Internal entry points of the worker processes; not for users.
  if (first == "__worker") return worker::worker_main(args);
  if (first == "__describe") return worker::describe_main(args);

  if (first == "--help" || first == "-h" || first == "help") {
    out << help_text(args.size() > 1 && first == "help" ? args[1] : "");
    return kExitOk;
  }
  if (first == "--version") {
    out << "storh-host " << STORH_VERSION << '\n';
    return kExitOk;
  }
  const Command* named = find_command(first);
  const bool is_command = named != nullptr;
  const Command& command = is_command ? *named : *find_command("run");
  const std::vector<std::string> rest(args.begin() + (is_command ? 1 : 0), args.end());
  if (wants_help(rest)) {
    out << command.help();
    return kExitOk;
  }
  if (!is_command && !first.ends_with(".toml") && !first.starts_with("-")) {
    std::vector<std::string_view> names;
    for (const Command& each : commands()) names.push_back(each.name);
    err << fmt::format(
        "storh-host: unknown command \"{}\" (commands: {}; or give a suite file "
        "ending in .toml)\n",
        shorten(first), fmt::join(names, ", "));
    return kExitBadInput;
  }
  return command.run(rest, io);
}

}  // namespace storh::cli
