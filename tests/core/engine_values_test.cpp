// result/engine_values.h: a parameter value keeps its type through JSON and back.
#include "result/engine_values.h"

#include <string>

#include <catch2/catch.hpp>

using namespace storh;

TEST_CASE("engine values: a parameter value keeps its type through JSON", "[result]") {
  for (const ParamValue& value : {ParamValue(std::int64_t{3}), ParamValue(0.5), ParamValue(1.0),
                                  ParamValue(true), ParamValue(std::string("hash"))}) {
    const auto read = result::param_value_from_json(result::param_value_json(value));
    REQUIRE(read.ok());
    CHECK(*read == value);
  }
  CHECK(result::param_value_json(ParamValue(1.0)).dump() == "1.0");  // still a number
}

TEST_CASE("engine values: only scalars are parameter values", "[result]") {
  for (const char* text : {"null", "[1]", R"({"a":1})"}) {
    const auto read = result::param_value_from_json(nlohmann::json::parse(text));
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().find(text) != std::string::npos);
  }
  CHECK(std::string(result::direction_name(result::MetricDirection::higher_is_better)) ==
        "higher_is_better");
}
