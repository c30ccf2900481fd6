// `storh-host gate AB.json` and `storh-host compare AB.json`: judge a written A/B file
// again, with ab's judging flags (cli/ab_flags.h).
#include <fmt/format.h>

#include "ab/flow.h"
#include "cli/ab_command.h"
#include "cli/ab_flags.h"
#include "cli/output.h"
#include "util/files.h"
#include "util/json_input.h"

namespace storh::cli {

std::optional<int> judge_ab_file(const std::string& command, const std::vector<std::string>& args,
                                 const CommandIo& io) {
  // In this mode --output (or -o, as compare and gate take it) is the rendered verdict's
  // file: there is no run to write.
  const CommandFlags& ab_flags = command_flags("ab");
  std::vector<std::string> valued = ab_flags.valued;
  valued.push_back("o");
  const std::vector<std::string> rest = without_flags(args, valued, ab_flags.switches);
  std::vector<std::string> files;
  for (const std::string& arg : rest) {
    if (!arg.starts_with("-")) files.push_back(arg);
  }
  if (files.size() != 1) return std::nullopt;
  Expected<std::string> text = read_input_file(files[0]);
  if (!text) return std::nullopt;  // the command's own reading reports it
  Expected<nlohmann::json> json = parse_json_input<nlohmann::json>(*text, files[0]);
  if (!json || !ab::is_ab_json(*json)) return std::nullopt;
  Expected<ParsedArgs> flags = parse_args(args, valued, ab_flags.switches);
  if (rest.size() != 1 || !flags) {
    io.err << fmt::format("storh-host {}: unknown argument(s) for an A/B file: {}\n", command,
                          fmt::join(rest.begin() + 1, rest.end(), " "));
    return kExitBadInput;
  }
  const std::optional<std::string> output =
      flags->has("output") ? flags->last("output") : flags->last("o");
  if (const std::string problem = output_problem(command, output); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<ab::AbResult> result = ab::ab_from_json(*json, files[0]);
  if (!result) {
    io.err << fmt::format("storh-host {}: {}\n", command, result.error());
    return kExitBadInput;
  }
  const AbCommandSettings settings{command, std::nullopt, false, false};
  Expected<ResolvedAb> resolved = resolve_ab_flags(*flags, suite::Suite{}, settings);
  if (!resolved) {
    io.err << fmt::format("storh-host {}: {}\n", command, resolved.error());
    return kExitBadInput;
  }
  std::string calibration_warning;
  if (resolved->calibration) {
    const std::string& suite_file = result->head.experiment.suite_file;
    calibration_warning =
        ab::apply_calibration(*resolved->calibration, *result,
                              {suite_file.empty() ? "SUITE.toml" : suite_file}, resolved->gate);
  }
  Expected<ab::AbOutcome> outcome = ab::verdict_of(*result, resolved->gate, calibration_warning);
  if (!outcome) {
    io.err << fmt::format("storh-host {}: {}\n", command, outcome.error());
    return kExitBadInput;
  }
  const ab::AbReport report = render_verdict(*result, *outcome, *resolved);
  io.err << report.err;
  if (const int code = write_junit_if_asked(command, *resolved, *outcome, files[0], io);
      code != kExitOk) {
    return code;
  }
  if (output) {
    if (const int code = write_output(command, report.out, output, io); code != kExitOk)
      return code;
  } else {
    io.out << report.out;
  }
  if (command == "compare") return kExitOk;
  return outcome->passed() ? kExitOk : kExitRegression;
}

}  // namespace storh::cli
