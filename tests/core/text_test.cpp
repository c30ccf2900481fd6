// util/text.h: trimming and the one number reader every flag and the worker use.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "util/did_you_mean.h"
#include "util/text.h"

TEST_CASE("text: trim drops white space at both ends only", "[util][text]") {
  CHECK(storh::trim(" \t a b \r\n") == "a b");
  CHECK(storh::trim("   ").empty());
  CHECK(storh::trim("") == "");
}

TEST_CASE("text: a decimal is the whole text, finite, in any locale", "[util][text]") {
  CHECK(storh::parse_decimal("10") == 10.0);
  CHECK(storh::parse_decimal("2.5") == 2.5);
  CHECK(storh::parse_decimal("1e-3") == 0.001);
  CHECK(storh::parse_decimal("-1") == -1.0);
  for (const char* bad : {"", " 1", "1 ", "10x", "1,5", "inf", "nan", "1e999", "+1", "."}) {
    INFO(bad);
    CHECK_FALSE(storh::parse_decimal(bad).has_value());
  }
}

TEST_CASE("text: a whole number is digits only, within 64 bits", "[util][text]") {
  CHECK(storh::parse_whole("0") == std::uint64_t{0});
  CHECK(storh::parse_whole("18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
  for (const char* bad : {"", "-1", "+1", "1.5", "1e3", " 7", "7 ", "18446744073709551616"}) {
    INFO(bad);
    CHECK_FALSE(storh::parse_whole(bad).has_value());
  }
}

TEST_CASE("did you mean: lengths alone rule out a suggestion, so a huge word is cheap",
          "[util][text]") {
  // Regression: a 1 MB unknown key filled a 1 MB x 8 table per choice (4 s, 20 s under
  // ASan) for a suggestion it could never make.
  const std::vector<std::string> choices = {"datasets", "repeat", "timeout"};
  CHECK(storh::did_you_mean(std::string(1 << 20, 'x'), choices).empty());
  CHECK(storh::did_you_mean("repaet", choices) == "; did you mean \"repeat\"?");
  CHECK(storh::did_you_mean("datasetz", choices) == "; did you mean \"datasets\"?");
}
