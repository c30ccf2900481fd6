// util/text.h: trimming and the one number reader every flag and the worker use.
#include <cstdint>
#include <limits>
#include <optional>

#include <catch2/catch.hpp>

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
