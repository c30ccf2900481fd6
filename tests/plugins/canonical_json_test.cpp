// Tests of common/canonical_json.h (engine-spec.md 1.2, 1.3) and common/bench/bench_row.h (11.0).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/canonical_json.h"
#include "common/hashes.h"
#include "random_json.h"

using storh::engines::bench_row;
using storh::engines::encode_compact;
using storh::engines::encode_pretty;
using storh::engines::Json;

TEST_CASE("canonical json: floats keep a fraction and switch to exponents at 1e17 and 1e-5",
          "[json]") {
  CHECK(encode_compact(Json(1.0)) == "1.0");
  CHECK(encode_compact(Json(-0.0)) == "-0.0");
  CHECK(encode_compact(Json(0.0)) == "0.0");
  CHECK(encode_compact(Json(1.5)) == "1.5");
  CHECK(encode_compact(Json(-123.456)) == "-123.456");
  CHECK(encode_compact(Json(0.1)) == "0.1");
  CHECK(encode_compact(Json(0.0001)) == "0.0001");
  CHECK(encode_compact(Json(0.00001)) == "1.0e-5");
  CHECK(encode_compact(Json(1.5e-7)) == "1.5e-7");
  CHECK(encode_compact(Json(1e15)) == "1000000000000000.0");
  CHECK(encode_compact(Json(1e16)) == "10000000000000000.0");
  CHECK(encode_compact(Json(1.2345678901234568e+17)) == "1.2345678901234568e+17");
  CHECK(encode_compact(Json(1e20)) == "1.0e+20");
  CHECK(encode_compact(Json(-2.5e-300)) == "-2.5e-300");
  CHECK(encode_compact(Json(123456789012.5)) == "123456789012.5");
}

TEST_CASE("canonical json: integers are plain decimals", "[json]") {
  CHECK(encode_compact(Json(0)) == "0");
  CHECK(encode_compact(Json(-42)) == "-42");
  CHECK(encode_compact(Json(std::numeric_limits<std::int64_t>::min())) == "-9223372036854775808");
  CHECK(encode_compact(Json::parse("18446744073709551615")) == "18446744073709551615");
}

TEST_CASE("canonical json: strings escape only what storh escapes", "[json]") {
  CHECK(encode_compact(Json("a/b")) == "\"a/b\"");
  CHECK(encode_compact(Json("caf\xc3\xa9 \xe2\x82\xac")) == "\"caf\xc3\xa9 \xe2\x82\xac\"");
  CHECK(encode_compact(Json("\xe2\x80\xa8|\xe2\x80\xa9")) == "\"\\u2028|\\u2029\"");
  CHECK(encode_compact(Json("q\"b\\")) == "\"q\\\"b\\\\\"");
  CHECK(encode_compact(Json("\n\t\r\b\f")) == "\"\\n\\t\\r\\b\\f\"");
  CHECK(encode_compact(Json(std::string("\x01\x1f\x7f", 3))) == "\"\\u0001\\u001f\x7f\"");
}

// Plain text is copied eight bytes at a time: a character that needs care must be found
// at every position of a word and of the tail, in strings of any length.
TEST_CASE("canonical json: escapes are found at every position of long strings", "[json]") {
  const std::vector<std::pair<std::string, std::string>> specials = {
      {"\"", "\\\""},
      {"\\", "\\\\"},
      {"\n", "\\n"},
      {std::string(1, '\0'), "\\u0000"},
      {"\x1f", "\\u001f"},
      {"\x7f", "\x7f"},
      {" ", " "},
      {"/", "/"},
      {"\xc3\xa9", "\xc3\xa9"},
      {"\xe2\x80\xa8", "\\u2028"},
      {"\xe2\x82\xac", "\xe2\x82\xac"}};
  for (const auto& [raw, escaped] : specials) {
    for (std::size_t before = 0; before <= 17; ++before) {
      for (std::size_t after : {0u, 1u, 7u, 8u, 9u}) {
        const std::string text = std::string(before, 'a') + raw + std::string(after, 'b');
        INFO("before " << before << ", after " << after << ", special " << escaped);
        CHECK(encode_compact(Json(text)) ==
              "\"" + std::string(before, 'a') + escaped + std::string(after, 'b') + "\"");
      }
    }
  }
}

TEST_CASE("canonical json: keys keep insertion order and empty containers are []", "[json]") {
  Json object = Json::object();
  object["z"] = 1;
  object["a"] = Json::array({true, false, nullptr});
  object["m"] = Json::object();
  CHECK(encode_compact(object) == R"({"z":1,"a":[true,false,null],"m":[]})");
  CHECK(encode_compact(Json::array()) == "[]");
  CHECK(encode_compact(Json::object()) == "[]");
}

TEST_CASE("canonical json: the pretty form indents by four spaces", "[json]") {
  Json object = Json::object();
  object["value"] = Json::array({1, Json::object({{"k", "v"}}), Json::array()});
  CHECK(encode_pretty(object) ==
        "{\n"
        "    \"value\": [\n"
        "        1,\n"
        "        {\n"
        "            \"k\": \"v\"\n"
        "        },\n"
        "        []\n"
        "    ]\n"
        "}");
  CHECK(encode_pretty(Json("x")) == "\"x\"");
}

// 3,000 seeded random values (random_json.h): the digests of their encodings were
// computed with the encoder of main 96d41ff, which appended to std::string piece by
// piece, before TextOut.
TEST_CASE("canonical json: random values encode to the bytes of the encoder before", "[json]") {
  random_json::Generator generator(20261205);
  std::string compact;
  std::string pretty;
  for (int i = 0; i < 3000; ++i) {
    const Json value = i % 5 == 4 ? generator.value(4) : generator.object(4);
    storh::engines::append_compact(compact, value);
    compact += '\n';
    storh::engines::append_pretty(pretty, value);
    pretty += '\n';
  }
  CHECK(compact.size() == 333355);
  CHECK(storh::engines::xxh32_hex(compact) == "1c3f0139");
  CHECK(pretty.size() == 539873);
  CHECK(storh::engines::xxh32_hex(pretty) == "ddd9d7f3");
}

TEST_CASE("canonical json: appending keeps what the string held, large text grows it", "[json]") {
  std::string out = "prefix:";
  const std::string long_text = std::string(100000, 'a') + "\"" + std::string(3, 'b');
  storh::engines::append_json_string(out, long_text);
  CHECK(out == "prefix:\"" + std::string(100000, 'a') + "\\\"bbb\"");
  CHECK(out.size() == 7 + 100000 + 7);
  storh::engines::append_compact(out, Json::array({1, "x"}));
  CHECK(out.substr(out.size() - 11) == "bbb\"[1,\"x\"]");
  std::string escapes;
  storh::engines::append_json_string(escapes, std::string(5000, '\x01'));
  CHECK(escapes.size() == 2 + 5000 * 6);
  CHECK(escapes.substr(0, 13) == "\"\\u0001\\u0001");
}

TEST_CASE("canonical json: NaN and infinity cannot be encoded", "[json]") {
  CHECK_THROWS_AS(encode_compact(Json(std::nan(""))), std::invalid_argument);
  CHECK_THROWS_AS(encode_pretty(Json::array({std::numeric_limits<double>::infinity()})),
                  std::invalid_argument);
}

TEST_CASE("bench row: fields and key order of engine-spec.md 11.0", "[bench]") {
  CHECK(
      encode_compact(bench_row(0)) ==
      R"({"kind":"page","status":"draft","bucket":0,"slug":"item-0","publishedAt":1700000000000})");
  CHECK(
      encode_compact(bench_row(7)) ==
      R"({"kind":"post","status":"published","bucket":7,"slug":"item-7","publishedAt":1700000000007})");
  CHECK(bench_row(123)["bucket"] == 3);
  CHECK(bench_row(123)["bucket"].is_number_integer());
}
