// fuzz/suite_fuzz.cpp: the suite reader on arbitrary text, as `storh-host validate`
// runs it before any plugin is loaded: parse, resolve paths, apply (empty) overrides,
// check against the bundled engine names. Suite errors are data; any exception or
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "suite/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace suite = storh::suite;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<suite::SuiteError> errors;
  std::optional<suite::Suite> parsed = suite::parse_suite(text, "fuzz.toml", errors);
  for (const suite::SuiteError& error : errors) (void)error.str();
  if (!parsed) return 0;
  suite::resolve_paths(*parsed, "suites");
  errors.clear();
  if (!suite::apply_overrides(*parsed, suite::Overrides{}, errors)) return 0;
  const std::vector<std::string> known = {"cache",  "doc",   "filter", "log",
                                          "mirror", "queue", "uuid"};
  (void)suite::check_suite(*parsed, known, {}, errors);
  for (const suite::SuiteError& error : errors) (void)error.str();
  return 0;
}
