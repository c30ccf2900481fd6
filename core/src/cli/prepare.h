// cli/prepare.h: from command-line arguments to a checked suite and its plan; the
// part `run` and `validate` share.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "plan/plan.h"
#include "plugin/describe.h"
#include "result/result.h"
#include "suite/suite.h"

namespace storh::cli {

struct Prepared {
  suite::Suite suite;
  std::map<std::string, plugin::Description> descriptions;  // engines that loaded
  // Engines of the suite whose plugin could not be loaded or described, with why.
  std::vector<std::pair<std::string, std::string>> load_errors;
  plan::Plan plan;  // over the engines that loaded
  std::string format = "text";
};

// Parses arguments, reads the suite, applies overrides, describes the plugins and
// checks the suite. Prints errors to io.err and returns nullopt on bad input.
std::optional<Prepared> prepare(const std::vector<std::string>& args, const CommandIo& io);

}  // namespace storh::cli
