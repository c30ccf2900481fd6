// repeat = { min, max, until } in a suite and --repeat=MIN..MAX@PERCENT: the forms that
// parse, and the bad ones, each with where and the valid form.
#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;

namespace {

Suite with_flag(const std::string& text, std::vector<SuiteError>& errors) {
  Suite suite = parse_ok("repeat = 3\n[engines.doc]\n");
  Overrides overrides;
  overrides.repeat = text;
  apply_overrides(suite, overrides, errors);
  return suite;
}

void flag_should_fail(const std::string& text, const std::string& fragment) {
  std::vector<SuiteError> errors;
  with_flag(text, errors);
  INFO("--repeat=" << text);
  error_should_be_reported(errors, "--repeat", "", fragment);
  error_should_be_reported(errors, "--repeat", "", "5..30@2%");
}

}  // namespace

TEST_CASE("repeat until: the suite form sets min, max and until", "[suite][repeat]") {
  const Suite suite = parse_ok(R"(
repeat = { min = 5, max = 30, until = "2%" }
[engines.doc]
)");
  REQUIRE(suite.repeat_until);
  CHECK(suite.repeat_until->min == 5);
  CHECK(suite.repeat_until->max == 30);
  CHECK(suite.repeat_until->until == Approx(0.02));
  CHECK(suite.repeat == 5);
  CHECK(repeat_until_text(*suite.repeat_until) == "5..30 repeats per cell until \u00b12%");
  CHECK_FALSE(parse_ok("repeat = 4\n[engines.doc]\n").repeat_until);
}

TEST_CASE("repeat until: the flag form, and a plain count keeps today's meaning",
          "[suite][repeat]") {
  std::vector<SuiteError> errors;
  const Suite adaptive = with_flag("5..30@2.5%", errors);
  CHECK(errors.empty());
  REQUIRE(adaptive.repeat_until);
  CHECK(*adaptive.repeat_until == RepeatUntil{5, 30, 0.025});
  CHECK(adaptive.repeat == 5);

  Suite suite = parse_ok("repeat = { min = 5, max = 30, until = \"2%\" }\n[engines.doc]\n");
  Overrides overrides;
  overrides.repeat = "7";
  REQUIRE(apply_overrides(suite, overrides, errors));
  CHECK(suite.repeat == 7);
  CHECK_FALSE(suite.repeat_until);
}

TEST_CASE("repeat until: bad suite forms name the place and the valid form", "[suite][repeat]") {
  const std::string form = "repeat = { min = 5, max = 30, until = \"2%\" }";
  suite_should_fail("repeat = { min = 30, max = 5, until = \"2%\" }\n[engines.doc]", "1:10",
                    "\"repeat\": min 30 is more than max 5 (" + form + ")");
  suite_should_fail("repeat = { min = 5, max = 30, until = \"0%\" }\n[engines.doc]", "1:39",
                    "\"until\" must be a percentage above 0 and at most 100 such as \"2%\"");
  suite_should_fail("repeat = { min = 5, max = 30, until = \"2\" }\n[engines.doc]", "1:39",
                    "got string \"2\"");
  suite_should_fail("repeat = { min = 5, max = 30, until = 0.02 }\n[engines.doc]", "1:39",
                    "\"until\" must be a percentage");
  suite_should_fail("repeat = { min = 0, max = 30, until = \"2%\" }\n[engines.doc]", "1:18",
                    "\"min\" must be an integer from 1 to 1000000 (" + form + "), got integer 0");
  suite_should_fail("repeat = { min = 5, max = 2000000, until = \"2%\" }\n[engines.doc]", "1:27",
                    "\"max\" must be an integer from 1 to 1000000");
  suite_should_fail("repeat = { min = 5, max = 30 }\n[engines.doc]", "1:10",
                    "\"repeat\" needs min, max and until: " + form);
  suite_should_fail("repeat = { min = 5, max = 30, until = \"2%\", upto = 3 }\n[engines.doc]",
                    "1:45", "upto");
}

TEST_CASE("repeat until: bad flag forms say what was wrong and the valid form", "[suite][repeat]") {
  flag_should_fail("30..5@2%", "min 30 is more than max 5");
  flag_should_fail("5..30@0%", "got \"5..30@0%\"");
  flag_should_fail("5..30@2", "a percentage above 0 and at most 100");
  flag_should_fail("0..30@2%", "min and max must be whole numbers from 1 to 1000000");
  flag_should_fail("5..2000000@2%", "min and max from 1 to 1000000");
  flag_should_fail("5..30", "expected MIN..MAX@PERCENT");
  flag_should_fail("x", "expected a whole number >= 1, got \"x\"");
}
