// Tests of common/query/json_values.h: strict identity and compare() (engine-spec.md 3.1-3.3).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "common/query/json_values.h"

using storh::engines::compare;
using storh::engines::find_field;
using storh::engines::Json;
using storh::engines::strict_equal;

namespace {

int sign(int value) {
  return (value > 0) - (value < 0);
}

Json object(std::initializer_list<std::pair<const char*, Json>> fields) {
  Json result = Json::object();
  for (const auto& [key, value] : fields) result[key] = value;
  return result;
}

}  // namespace

TEST_CASE("strict identity: same type and same value", "[filter][values]") {
  CHECK(strict_equal(Json(1), Json(1)));
  CHECK(strict_equal(Json(1), Json::parse("1")));  // signed and unsigned storage alike
  CHECK_FALSE(strict_equal(Json(1), Json(1.0)));
  CHECK_FALSE(strict_equal(Json("1"), Json(1)));
  CHECK_FALSE(strict_equal(Json(true), Json(1)));
  CHECK_FALSE(strict_equal(Json(nullptr), Json(false)));
  CHECK_FALSE(strict_equal(Json(nullptr), Json("")));
  CHECK(strict_equal(Json(nullptr), Json(nullptr)));
  CHECK(strict_equal(Json(-0.0), Json(0.0)));
  CHECK_FALSE(strict_equal(Json(std::nan("")), Json(std::nan(""))));
  CHECK(strict_equal(Json(-1), Json(-1)));
  CHECK_FALSE(strict_equal(Json(-1), Json::parse("18446744073709551615")));
  CHECK(strict_equal(Json("a"), Json("a")));
  CHECK_FALSE(strict_equal(Json("a"), Json("A")));
}

TEST_CASE("strict identity: arrays and objects compare element by element in order",
          "[filter][values]") {
  CHECK(strict_equal(Json::array({1, "a"}), Json::array({1, "a"})));
  CHECK_FALSE(strict_equal(Json::array({1}), Json::array({1.0})));
  CHECK_FALSE(strict_equal(Json::array({1, 2}), Json::array({2, 1})));
  CHECK(strict_equal(object({{"a", 1}, {"b", 2}}), object({{"a", 1}, {"b", 2}})));
  CHECK_FALSE(strict_equal(object({{"a", 1}, {"b", 2}}), object({{"b", 2}, {"a", 1}})));
  CHECK(strict_equal(Json::array(), Json::object()));  // both are PHP's empty array
  CHECK_FALSE(strict_equal(Json::array({1}), object({{"0", 1}})));
}

TEST_CASE("compare: numbers numerically, strings byte-wise, false < true", "[filter][compare]") {
  CHECK(compare(Json(1), Json(2)) < 0);
  CHECK(compare(Json(2), Json(1.5)) > 0);
  CHECK(compare(Json(1), Json(1.0)) == 0);
  CHECK(compare(Json(-3), Json::parse("18446744073709551615")) < 0);
  CHECK(compare(Json(9007199254740993), Json(9007199254740992.0)) > 0);  // exact, not via double
  CHECK(compare(Json("a"), Json("b")) < 0);
  CHECK(compare(Json("B"), Json("a")) < 0);
  CHECK(compare(Json("a"), Json("aa")) < 0);
  CHECK(compare(Json("\xc3\xa9"), Json("z")) > 0);  // unsigned bytes
  CHECK(compare(Json("10"), Json("9")) < 0);        // never numeric for strings
  CHECK(compare(Json(false), Json(true)) < 0);
  CHECK(compare(Json(nullptr), Json(nullptr)) == 0);
}

TEST_CASE("compare: mixed types order string < number < array < false < null < true < object",
          "[filter][compare]") {
  const std::vector<Json> ascending = {Json("zzz"), Json(-5),      Json(1.5),  Json::array({1}),
                                       Json(false), Json(nullptr), Json(true), object({{"a", 1}})};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    INFO(ascending[i].dump() << " vs " << ascending[i + 1].dump());
    CHECK(compare(ascending[i], ascending[i + 1]) < 0);
  }
  CHECK(compare(Json("1"), Json(1)) < 0);
  CHECK(compare(Json(-5), Json("x")) > 0);
}

TEST_CASE("compare: arrays and objects are ordered by their pretty JSON", "[filter][compare]") {
  CHECK(compare(Json::array({1}), Json::array({2})) < 0);
  CHECK(compare(Json::array({1}), Json::array({1, 2})) < 0);  // "\n" sorts before ","
  CHECK(compare(Json::array(), Json::array({1})) > 0);        // "]" sorts after "\n"
  CHECK(compare(Json::array(), Json::object()) == 0);
  CHECK(compare(object({{"a", 9}}), object({{"b", 0}})) < 0);
  CHECK(compare(Json::array({"a/b"}), Json::array({"a\\b"})) < 0);  // '/' is raw, '\' escaped
}

TEST_CASE("compare: a total order, antisymmetric over mixed samples", "[filter][compare]") {
  const std::vector<Json> samples = {Json(nullptr),
                                     Json(true),
                                     Json(false),
                                     Json(0),
                                     Json(-1),
                                     Json(1.0),
                                     Json(-0.0),
                                     Json(2.5),
                                     Json(""),
                                     Json("a"),
                                     Json("1"),
                                     Json("é"),
                                     Json::array(),
                                     Json::array({1}),
                                     Json::array({1.0}),
                                     Json::object(),
                                     object({{"a", 1}}),
                                     object({{"a", nullptr}}),
                                     Json::array({"x", 2})};
  for (const Json& a : samples) {
    CHECK(compare(a, a) == 0);
    for (const Json& b : samples) {
      INFO(a.dump() << " vs " << b.dump());
      CHECK(sign(compare(a, b)) == -sign(compare(b, a)));
      for (const Json& c : samples) {
        if (compare(a, b) <= 0 && compare(b, c) <= 0) CHECK(compare(a, c) <= 0);
      }
    }
  }
}

TEST_CASE("compare: a string_view actual orders like the same string", "[filter][compare]") {
  for (const Json& other : {Json("abc"), Json("abd"), Json(5), Json::array({1}), Json(nullptr)}) {
    CHECK(sign(compare(std::string_view("abc"), other)) == sign(compare(Json("abc"), other)));
  }
}

TEST_CASE("find_field: present null is a value, list data has PHP index keys", "[filter][values]") {
  const Json data = object({{"a", 1}, {"n", nullptr}});
  REQUIRE(find_field(data, "a") != nullptr);
  CHECK(*find_field(data, "a") == 1);
  REQUIRE(find_field(data, "n") != nullptr);
  CHECK(find_field(data, "n")->is_null());
  CHECK(find_field(data, "missing") == nullptr);
  const Json list = Json::array({"x", "y"});
  REQUIRE(find_field(list, "1") != nullptr);
  CHECK(*find_field(list, "1") == "y");
  CHECK(find_field(list, "2") == nullptr);
  CHECK(find_field(list, "01") == nullptr);
  CHECK(find_field(list, "-1") == nullptr);
  CHECK(find_field(Json(5), "0") == nullptr);
}
