// Key encodings and line formats of the secondary indexes (engine-spec.md 4.7.2-4.7.4):
// the spec's examples are exact.
#include <catch2/catch.hpp>

#include "common/hashes.h"
#include "doc/index_files.h"
#include "doc/index_keys.h"

using storh::engines::Json;
namespace doc = storh::engines::doc;

TEST_CASE("index keys: field names are lower-case hex", "[index_keys]") {
  CHECK(doc::hex_bytes("kind") == "6b696e64");
  CHECK(doc::hex_bytes("bucket") == "6275636b6574");
  CHECK(doc::hex_bytes("") == "");
}

TEST_CASE("index keys: value_key follows storh's table", "[index_keys]") {
  CHECK(doc::value_key(Json(-3)) == "i-m3");
  CHECK(doc::value_key(Json(42)) == "i-42");
  CHECK(doc::value_key(Json(std::uint64_t{7})) == "i-7");
  CHECK(doc::value_key(Json("page")) == "s-70616765");
  CHECK(doc::value_key(Json(true)) == "b-1");
  CHECK(doc::value_key(Json(false)) == "b-0");
  CHECK(doc::value_key(Json(0.1)) == "f-0d10000000000000001");
  CHECK(doc::value_key(Json(1.0)) == "f-1");
  CHECK(doc::value_key(Json(-2.5)) == "f-m2d5");
  CHECK(doc::value_key(Json(1e20)) == "f-1Ep20");
  CHECK(doc::value_key(Json(nullptr)) == "n");
  const std::string at_limit(96, 'x');
  CHECK(doc::value_key(Json(at_limit)) == "s-" + doc::hex_bytes(at_limit));
  const std::string longer(97, 'x');
  CHECK(doc::value_key(Json(longer)) == "s-" + storh::engines::xxh128_hex(longer));
  CHECK(doc::value_key(Json::array({1, "a"})) ==
        "z-" + storh::engines::xxh128_hex("a:2:{i:0;i:1;i:1;s:1:\"a\";}"));
}

TEST_CASE("index keys: range_key sorts like the values it encodes", "[index_keys]") {
  CHECK(doc::range_key(Json(1700000000000)) == "n-00001700000000000d000000");
  CHECK(doc::range_key(Json(0)) == "n-00000000000000000d000000");
  CHECK(doc::range_key(Json(1.5)) == "n-00000000000000001d500000");
  CHECK(doc::range_key(Json(-1.5)) == "n-m0000000000000001d500000");
  CHECK(doc::range_key(Json("ab")) == "s-6162");
  CHECK(doc::range_key(Json(false)) == "b-0");
  CHECK(doc::range_key(Json(true)) == "b-1");
  CHECK(doc::range_key(Json(nullptr)) == "z-n");
  CHECK(doc::range_key(Json(5)) < doc::range_key(Json(17)));
  CHECK(doc::range_key(Json("a")) < doc::range_key(Json("ab")));
  CHECK(doc::is_ordered(Json(3)));
  CHECK(doc::is_ordered(Json("x")));
  CHECK(doc::is_ordered(Json(true)));
  CHECK_FALSE(doc::is_ordered(Json(-3)));
  CHECK_FALSE(doc::is_ordered(Json(1.5)));
  CHECK_FALSE(doc::is_ordered(Json(nullptr)));
}

TEST_CASE("index keys: compound keys hash both value keys", "[index_keys]") {
  // Bucket 4 with kind page (engine-spec.md 4.7.3).
  CHECK(doc::compound_key(Json(4), Json("page")) == "c-76963804b829bbaea3bb13d2551ee889");
}

TEST_CASE("index files: bucket lines keep storh's key order", "[index_keys]") {
  const std::string id = "018bcfe5-6800-7000-8000-2d5dba6274da";
  const std::string line = doc::encode_bucket("kind", "s-70616765", Json("page"), {id});
  CHECK(line ==
        "{\"field\":\"kind\",\"key\":\"s-70616765\",\"count\":1,\"value\":\"page\",\"ids\":[\"" +
            id + "\"]}\n");
  const auto bucket = doc::parse_bucket(line);
  REQUIRE(bucket);
  CHECK(bucket->ids == std::vector<std::string>{id});
  CHECK(doc::encode_bucket("bucket\tkind", "c-1", nullptr, {})
            .rfind("{\"field\":\"bucket\\tkind\",\"key\":\"c-1\",\"count\":0,\"value\":null,", 0) ==
        0);
}

TEST_CASE("index files: a benchmark range line is 128 bytes", "[index_keys]") {
  const std::string id = "018bcfe5-6800-7000-8000-2d5dba6274da";
  const Json value = 1700000000000;
  const std::string line = doc::encode_range_line(doc::range_key(value), value, {id}, {});
  CHECK(line ==
        "{\"key\":\"n-00001700000000000d000000\",\"value\":1700000000000,\"count\":1,"
        "\"ids\":[\"" +
            id + "\"],\"remove\":[]}\n");
  CHECK(line.size() == 128);
  doc::RangeLine parsed;
  REQUIRE(doc::parse_range_line(std::string_view(line).substr(0, line.size() - 1), parsed));
  CHECK(parsed.key == "n-00001700000000000d000000");
  CHECK(parsed.value() == value);
  CHECK(parsed.count == 1);
  REQUIRE(parsed.ids.size() == 1);
  CHECK(parsed.ids[0] == id);
  const std::string removal = doc::encode_range_line("s-61", Json("a"), {}, {id});
  CHECK(removal.find("\"count\":-1,\"ids\":[],\"remove\":[\"" + id + "\"]") != std::string::npos);
  CHECK(doc::encode_checkpoints({{"n-1", 0}, {"n-2", 32768}}) ==
        "{\"stride\":256,\"checkpoints\":[{\"key\":\"n-1\",\"offset\":0},{\"key\":\"n-2\","
        "\"offset\":32768}]}\n");
}
