// Helpers shared by the suite tests. Suite texts are written as raw strings that
// start with a newline, so line 1 is the first line after R"(.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "suite/parse.h"

namespace storh::suite::testing {

inline constexpr const char* kOrigin = "suites/x.toml";

inline std::string_view without_leading_newline(std::string_view text) {
  if (!text.empty() && text.front() == '\n') text.remove_prefix(1);
  return text;
}

inline std::string all_errors(const std::vector<SuiteError>& errors) {
  std::string text;
  for (const SuiteError& error : errors) text += error.str() + "\n";
  return text;
}

// Parses `text` as suites/x.toml and requires success.
inline Suite parse_ok(std::string_view text) {
  std::vector<SuiteError> errors;
  std::optional<Suite> suite = parse_suite(without_leading_newline(text), kOrigin, errors);
  INFO(all_errors(errors));
  REQUIRE(suite.has_value());
  REQUIRE(errors.empty());
  return *suite;
}

// Requires some error in `errors` to read "<origin>:<line_col>: ..." and contain
// `fragment`; an empty line_col means "<origin>: ...".
inline void error_should_be_reported(const std::vector<SuiteError>& errors,
                                     const std::string& origin, const std::string& line_col,
                                     const std::string& fragment) {
  const std::string prefix = line_col.empty() ? origin + ": " : origin + ":" + line_col + ": ";
  INFO("expected an error starting with \"" << prefix << "\" containing \"" << fragment << "\"");
  INFO("got:\n" << all_errors(errors));
  bool found = false;
  for (const SuiteError& error : errors) {
    const std::string text = error.str();
    if (text.rfind(prefix, 0) == 0 && text.find(fragment) != std::string::npos) found = true;
  }
  CHECK(found);
}

// Parsing `text` must fail with an error at `line_col` that contains `fragment`.
inline void suite_should_fail(std::string_view text, const std::string& line_col,
                              const std::string& fragment) {
  std::vector<SuiteError> errors;
  const std::optional<Suite> suite = parse_suite(without_leading_newline(text), kOrigin, errors);
  INFO("suite:\n" << without_leading_newline(text));
  CHECK_FALSE(suite.has_value());
  error_should_be_reported(errors, kOrigin, line_col, fragment);
}

}  // namespace storh::suite::testing
