// A suite made from flags alone: `storh-host run --engine=doc --dataset=10k` works
// without a file, as hyperfine works without a config. The defaults are documented in
// parse.h and README.md.
#include <fmt/format.h>

#include "suite/suite_internal.h"

namespace storh::suite {

std::optional<Suite> suite_from_flags(const Overrides& overrides, std::vector<SuiteError>& errors) {
  Suite suite;
  suite.repeat = 3;  // a median and a spread, at three worker starts per cell
  suite.timeout_seconds = 600;
  suite.datasets.push_back({1000, SourcePos{"--dataset"}});
  if (detail::has_load_overrides(overrides)) {
    suite.load = LoadSetting{};
    suite.load->pos = SourcePos{"--transactions"};
  }
  if (!apply_overrides(suite, overrides, errors)) return std::nullopt;
  if (suite.engines.empty()) {
    errors.push_back(SuiteError{SourcePos{"--engine"},
                                "a run without a suite file needs --engine=NAME[,NAME...]"});
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const EngineSetting& engine : suite.engines) names.push_back(engine.name);
  suite.name = fmt::format("{}", fmt::join(names, "-"));
  if (suite.output.empty()) suite.output = fmt::format("build/bench-{}.json", suite.name);
  return suite;
}

}  // namespace storh::suite
