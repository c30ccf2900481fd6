// Sizes, durations and the canonical text of parameter values.
#include <limits>

#include <catch2/catch.hpp>

#include "suite/parse.h"

using namespace storh::suite;
using storh::ParamValue;

TEST_CASE("units: sizes use binary multiples for every suffix spelling", "[suite][units]") {
  CHECK(parse_size("0") == 0U);
  CHECK(parse_size("1048576") == 1048576U);
  CHECK(parse_size("10B") == 10U);
  CHECK(parse_size("100K") == 100U << 10);
  CHECK(parse_size("100k") == 100U << 10);
  CHECK(parse_size("512M") == 512ULL << 20);
  CHECK(parse_size("512MiB") == 512ULL << 20);
  CHECK(parse_size("512MB") == 512ULL << 20);  // MB is MiB, as PHP's memory_limit read it
  CHECK(parse_size("512m") == 512ULL << 20);
  CHECK(parse_size("1G") == 1ULL << 30);
  CHECK(parse_size("2GiB") == 2ULL << 30);
  CHECK(parse_size("1T") == 1ULL << 40);
  CHECK(parse_size("1TiB") == 1ULL << 40);
  CHECK(parse_size("18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
  CHECK(parse_size("16777215T") == 16777215ULL << 40);
}

TEST_CASE("units: bad sizes are rejected", "[suite][units]") {
  for (const char* bad : {"", "-1", "+1", "1.5G", "M", "12X", " 1", "1 M", "1M ", "0x10", "1MM",
                          "1KiBs", "18446744073709551616", "16777216T", "17179869184G"}) {
    INFO("\"" << bad << "\"");
    CHECK_FALSE(parse_size(bad).has_value());
  }
}

TEST_CASE("units: durations in ms, s, m, h or plain seconds", "[suite][units]") {
  CHECK(parse_duration("90") == Approx(90));
  CHECK(parse_duration("0") == Approx(0));
  CHECK(parse_duration("30s") == Approx(30));
  CHECK(parse_duration("2.5s") == Approx(2.5));
  CHECK(parse_duration("0.25") == Approx(0.25));
  CHECK(parse_duration("20us") == Approx(20e-6));
  CHECK(parse_duration("500ns") == Approx(500e-9));
  CHECK(parse_duration("10m") == Approx(600));
  CHECK(parse_duration("1h") == Approx(3600));
  CHECK(parse_duration("1.5h") == Approx(5400));
  CHECK(parse_duration("1500ms") == Approx(1.5));
  CHECK(parse_duration("1ms") == Approx(0.001));
}

TEST_CASE("units: bad durations are rejected", "[suite][units]") {
  for (const char* bad : {"", "-1", "-1s", "+1s", "1.", ".5", "1..5", "10M", "1d", "1e3", "inf",
                          "nan", "s", "10 s", " 10s", "1,5s", "10min", "1h30m"}) {
    INFO("\"" << bad << "\"");
    CHECK_FALSE(parse_duration(bad).has_value());
  }
}

TEST_CASE("units: parameter values print so their type survives", "[suite][units]") {
  CHECK(param_value_text(ParamValue(std::int64_t{42})) == "42");
  CHECK(param_value_text(ParamValue(std::int64_t{-7})) == "-7");
  CHECK(param_value_text(ParamValue(1.5)) == "1.5");
  CHECK(param_value_text(ParamValue(0.1)) == "0.1");
  CHECK(param_value_text(ParamValue(2.0)) == "2.0");  // not "2": that would read as an integer
  CHECK(param_value_text(ParamValue(-3.0)) == "-3.0");
  CHECK(param_value_text(ParamValue(1e20)) == "1e+20");
  CHECK(param_value_text(ParamValue(true)) == "true");
  CHECK(param_value_text(ParamValue(false)) == "false");
  CHECK(param_value_text(ParamValue(std::string("hash"))) == "hash");
  CHECK(param_value_text(ParamValue(std::string())) == "");
}
