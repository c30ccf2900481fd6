// cli/ab_command.h: the A/B run shared by `ab`, `calibrate` and `ci --base=DIR`
// (cmd_ab.cpp), and the judging of a written A/B file (cmd_ab_file.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace storh::cli {

struct AbCommandSettings {
  std::string command;                       // for messages: "ab", "calibrate", "ci"
  std::optional<std::string> default_suite;  // when no suite file is given (ci)
  bool calibrating = false;                  // A/A: write a calibration, no verdict
  bool use_suite_metrics = false;            // gate only [gate] metrics (ci)
};

// Reads the A/B flags (the command table's `ab` entry: --base, --head, --base-set,
// --head-set, --pairs, --order, --threshold, --counter, ...), gives every other
// argument to prepare() once per side, runs ab/flow.h (the pairs, the A/B file, the
// verdict or the calibration) and prints how it ended.
int run_ab_command(const std::vector<std::string>& args, const CommandIo& io,
                   const AbCommandSettings& settings);

// `gate AB.json` and `compare AB.json`: when the arguments name exactly one file and
// it is an A/B file, judges its pairs (gate: exit 1 on a regression) and returns the
// exit code; nullopt when the arguments are not that (the command goes on as usual).
std::optional<int> judge_ab_file(const std::string& command, const std::vector<std::string>& args,
                                 const CommandIo& io);

}  // namespace storh::cli
