// The Jsonc reader and writers (engine-spec.md 1.3).
#include <catch2/catch.hpp>

#include "common/jsonc.h"

namespace engines = storh::engines;
using engines::Json;

TEST_CASE("jsonc: strict JSON objects parse directly", "[common]") {
  CHECK(engines::decode_object(R"(  {"a":1,"b":[1,2]}  )") == Json::parse(R"({"a":1,"b":[1,2]})"));
}

TEST_CASE("jsonc: comments and trailing commas are tolerated", "[common]") {
  const char* text = R"({
    // a line comment
    "url": "https://x//y", /* a block
    comment */ "list": [1, 2, 3,],
    "s": "not /* a comment */",
  })";
  const Json value = engines::decode_object(text);
  CHECK(value["url"] == "https://x//y");
  CHECK(value["list"] == Json::parse("[1,2,3]"));
  CHECK(value["s"] == "not /* a comment */");
}

TEST_CASE("jsonc: strippers keep line breaks and string contents", "[common]") {
  CHECK(engines::strip_comments("a// c\nb") == "a\nb");
  CHECK(engines::strip_comments("a/* x\ny */b") == "a    \n    b");
  CHECK(engines::strip_comments("a /* open") == "a ");
  CHECK(engines::strip_comments(R"("\"//" x)") == R"("\"//" x)");
  CHECK(engines::strip_trailing_commas("[1,\n]") == "[1\n]");
  CHECK(engines::strip_trailing_commas(R"(["a,]",])") == R"(["a,]"])");
}

TEST_CASE("jsonc: non-objects and broken text fail with a message", "[common]") {
  CHECK_THROWS_WITH(engines::decode_object("[1,2]"), Catch::Contains("must decode to an object"));
  CHECK_THROWS_AS(engines::decode_object("{\"a\":}"), engines::JsoncError);
  CHECK_THROWS_AS(engines::decode_object(""), engines::JsoncError);
}

TEST_CASE("jsonc: the two writers, and empty input as {}", "[common]") {
  const Json value = Json::parse(R"({"fields":[{"field":"kind","unique":false}]})");
  CHECK(engines::encode_compact_object(value) ==
        "{\"fields\":[{\"field\":\"kind\",\"unique\":false}]}\n");
  CHECK(engines::encode_object(value) ==
        "{\n    \"fields\": [\n        {\n            \"field\": \"kind\",\n            "
        "\"unique\": false\n        }\n    ]\n}\n");
  CHECK(engines::encode_object(Json::object()) == "{}\n");
  CHECK(engines::encode_compact_object(Json::array()) == "{}\n");
  // Round trip through both writers.
  CHECK(engines::decode_object(engines::encode_object(value)) == value);
  CHECK(engines::decode_object(engines::encode_compact_object(value)) == value);
}
