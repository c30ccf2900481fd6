// Tests of common/query/query_condition.h: every operator of engine-spec.md 3.2.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "common/query/query_condition.h"

using storh::engines::Json;
using storh::engines::operator_name;
using storh::engines::parse_operator;
using storh::engines::QueryCondition;
using storh::engines::QueryOperator;

namespace {

const std::string sample_id = "018bcfe5-6800-76fb-95af-d92c554e7dcd";

const Json& sample() {
  static const Json data = Json::parse(
      R"({"a": 1, "f": 1.5, "s": "hello", "n": null, "t": true, "list": [1, 2], "id": "not-the-id"})");
  return data;
}

bool holds(const char* field, const char* op, Json value = nullptr, Json second = nullptr) {
  return QueryCondition(field, op, std::move(value), std::move(second))
      .matches_data(sample_id, sample());
}

}  // namespace

TEST_CASE("condition: eq needs a present, strictly identical value", "[filter][condition]") {
  CHECK(holds("a", "eq", 1));
  CHECK_FALSE(holds("a", "eq", 1.0));
  CHECK_FALSE(holds("a", "eq", "1"));
  CHECK_FALSE(holds("t", "eq", 1));
  CHECK(holds("n", "eq", nullptr));         // present null matches null
  CHECK_FALSE(holds("zz", "eq", nullptr));  // missing never matches
  CHECK(holds("list", "eq", Json::array({1, 2})));
  CHECK_FALSE(holds("list", "eq", Json::array({1.0, 2})));
}

TEST_CASE("condition: neq holds for missing fields and any other value", "[filter][condition]") {
  CHECK(holds("zz", "neq", 1));
  CHECK(holds("zz", "neq", nullptr));
  CHECK_FALSE(holds("a", "neq", 1));
  CHECK(holds("a", "neq", 1.0));
  CHECK_FALSE(holds("n", "neq", nullptr));
}

TEST_CASE("condition: in needs a list holding the value, notIn its negation",
          "[filter][condition]") {
  CHECK(holds("a", "in", Json::array({3, 1})));
  CHECK_FALSE(holds("a", "in", Json::array({1.0, "1"})));
  CHECK_FALSE(holds("a", "in", 1));  // not a list
  CHECK(holds("n", "in", Json::array({nullptr})));
  CHECK_FALSE(holds("zz", "in", Json::array({nullptr})));
  CHECK(holds("list", "in", Json::array({Json::array({1, 2})})));

  CHECK(holds("zz", "notIn", Json::array({1})));
  CHECK(holds("zz", "notIn", 5));       // missing wins even with a non-list
  CHECK_FALSE(holds("a", "notIn", 1));  // present with a non-list value
  CHECK(holds("a", "notIn", Json::array({2, 1.0})));
  CHECK_FALSE(holds("a", "notIn", Json::array({1})));
  CHECK(holds("a", "notIn", Json::array()));
}

TEST_CASE("condition: gt gte lt lte use compare()", "[filter][condition]") {
  CHECK(holds("a", "gt", 0));
  CHECK_FALSE(holds("a", "gt", 1));
  CHECK(holds("a", "gte", 1));
  CHECK(holds("a", "gte", 1.0));
  CHECK(holds("a", "lt", 1.5));
  CHECK(holds("f", "lte", 1.5));
  CHECK(holds("s", "gt", "hell"));
  CHECK(holds("s", "lt", "help"));
  CHECK(holds("s", "lt", 5));  // any string sorts before any number
  CHECK(holds("a", "gt", "9"));
  CHECK(holds("n", "gt", false));  // null sorts after false
  CHECK_FALSE(holds("zz", "gt", 0));
  CHECK_FALSE(holds("zz", "lte", 0));
}

TEST_CASE("condition: between is inclusive at both ends", "[filter][condition]") {
  CHECK(holds("a", "between", 1, 2));
  CHECK(holds("a", "between", 0, 1));
  CHECK(holds("f", "between", 1, 1.5));
  CHECK_FALSE(holds("a", "between", 2, 3));
  CHECK_FALSE(holds("a", "between", 2, 0));
  CHECK(holds("s", "between", "a", "z"));
  CHECK_FALSE(holds("zz", "between", nullptr, nullptr));
}

TEST_CASE("condition: exists and missing look only at the key", "[filter][condition]") {
  CHECK(holds("n", "exists"));
  CHECK_FALSE(holds("n", "missing"));
  CHECK(holds("zz", "missing"));
  CHECK_FALSE(holds("zz", "exists"));
}

TEST_CASE("condition: prefix needs strings on both sides", "[filter][condition]") {
  CHECK(holds("s", "prefix", "he"));
  CHECK(holds("s", "prefix", ""));
  CHECK(holds("s", "prefix", "hello"));
  CHECK_FALSE(holds("s", "prefix", "hello!"));
  CHECK_FALSE(holds("s", "prefix", "He"));
  CHECK_FALSE(holds("a", "prefix", "1"));  // actual is a number
  CHECK_FALSE(holds("s", "prefix", 1));    // value is a number
  CHECK_FALSE(holds("zz", "prefix", ""));
}

TEST_CASE("condition: field id is the record id, always present", "[filter][condition]") {
  CHECK(holds("id", "eq", sample_id));
  CHECK_FALSE(holds("id", "eq", "not-the-id"));  // data["id"] is not consulted
  CHECK(holds("id", "exists"));
  CHECK_FALSE(holds("id", "missing"));
  CHECK(holds("id", "prefix", "018bcfe5-"));
  CHECK(holds("id", "gt", "018bcfe5-6800-7000-8000-000000000000"));
  CHECK(holds("id", "in", Json::array({"x", sample_id})));
  CHECK(holds("id", "notIn", Json::array({"x"})));
  CHECK(holds("id", "lt", 5));  // a string sorts before a number
  const QueryCondition by_id("id", QueryOperator::eq, sample_id);
  CHECK(by_id.targets_id());
  CHECK(by_id.matches_data(sample_id, Json::array()));
}

TEST_CASE("condition: list data has fields 0, 1, ...", "[filter][condition]") {
  const Json list = Json::array({"x", nullptr});
  CHECK(QueryCondition("0", "eq", "x").matches_data(sample_id, list));
  CHECK(QueryCondition("1", "exists").matches_data(sample_id, list));
  CHECK(QueryCondition("2", "missing").matches_data(sample_id, list));
  CHECK(QueryCondition("00", "missing").matches_data(sample_id, list));
}

TEST_CASE("condition: an unsupported operator is an error naming the valid ones",
          "[filter][condition]") {
  CHECK_THROWS_AS(QueryCondition("a", "like", "x"), std::invalid_argument);
  CHECK_THROWS_WITH(QueryCondition("a", "like", "x"),
                    Catch::Contains("Unsupported query operator \"like\"") &&
                        Catch::Contains("notIn") && Catch::Contains("prefix"));
  CHECK_THROWS_AS(QueryCondition("a", "EQ", 1), std::invalid_argument);  // case-sensitive
  CHECK_THROWS_AS(QueryCondition("a", "not_in", 1), std::invalid_argument);
}

TEST_CASE("condition: a blank field is an error", "[filter][condition]") {
  CHECK_THROWS_AS(QueryCondition("", "eq", 1), std::invalid_argument);
  CHECK_THROWS_AS(QueryCondition(" \t", "exists"), std::invalid_argument);
  CHECK_NOTHROW(QueryCondition(" a ", "exists"));
}

TEST_CASE("condition: operator names round-trip", "[filter][condition]") {
  for (const char* name : {"eq", "neq", "in", "notIn", "gt", "gte", "lt", "lte", "between",
                           "exists", "missing", "prefix"}) {
    const auto op = parse_operator(name);
    REQUIRE(op.has_value());
    CHECK(operator_name(*op) == name);
  }
  CHECK_FALSE(parse_operator("nin").has_value());
  CHECK(operator_name(QueryOperator::not_in) == "notIn");
}

TEST_CASE("condition: matches_value treats nullptr as missing", "[filter][condition]") {
  const QueryCondition not_one("a", QueryOperator::neq, 1);
  CHECK(not_one.matches_value(nullptr));
  const Json one = 1;
  CHECK_FALSE(not_one.matches_value(&one));
  CHECK(not_one.matches_value(std::string_view("1")));
}
