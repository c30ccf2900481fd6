// The hash vectors of engine-spec.md 1.4 and the line framing of 5.2 / 6.1.
#include <catch2/catch.hpp>
#include <cctype>
#include <string>

#include "common/framing.h"
#include "common/hashes.h"
#include "common/hex.h"
#include "common/row_input.h"

namespace engines = storh::engines;

TEST_CASE("hashes: xxh32 and xxh128 match the spec's test vectors", "[common]") {
  CHECK(engines::xxh32_hex("abc") == "32d153ff");
  CHECK(engines::xxh128_hex("abc") == "06b05ab6733a618578af5f94892f3950");
  CHECK(engines::xxh32_hex("").size() == 8);
}

TEST_CASE("framing: a delete line is framed byte for byte as the spec's example", "[common]") {
  const std::string json = R"({"op":"delete","id":"018bcfe5-6800-787f-8822-125c8ee43b63"})";
  CHECK(engines::frame(json) == "59\t5a0444ec\t" + json + "\n");
  CHECK(engines::frame_size(json) == engines::frame(json).size());
}

TEST_CASE("framing: decode accepts a framed line and returns its JSON", "[common]") {
  const std::string line = engines::frame(R"({"a":1})");
  const auto decoded = engines::decode_frame(std::string_view(line).substr(0, line.size() - 1));
  REQUIRE(decoded.status == engines::FrameStatus::ok);
  CHECK(decoded.json == R"({"a":1})");
  // One trailing CR is tolerated, as storh's decoder drops it.
  const std::string with_cr = line.substr(0, line.size() - 1) + "\r";
  CHECK(engines::decode_frame(with_cr).status == engines::FrameStatus::ok);
}

TEST_CASE("framing: bad length, bad fields and a wrong checksum are told apart", "[common]") {
  using engines::FrameStatus;
  CHECK(engines::decode_frame("8\tf6d5d0e3\t{\"a\":1}").status == FrameStatus::malformed);
  CHECK(engines::decode_frame("x7\tf6d5d0e3\t{\"a\":1}").status == FrameStatus::malformed);
  CHECK(engines::decode_frame("7\tf6d5d0e\t{\"a\":1}").status == FrameStatus::malformed);
  CHECK(engines::decode_frame("7 f6d5d0e3 {\"a\":1}").status == FrameStatus::malformed);
  CHECK(engines::decode_frame("").status == FrameStatus::malformed);
  CHECK(engines::decode_frame("7\t00000000\t{\"a\":1}").status == FrameStatus::corrupt);
  // Every prefix of a valid line is rejected: a torn tail never decodes.
  const std::string line = engines::frame(R"({"op":"put","id":"x"})");
  for (std::size_t cut = 0; cut + 1 < line.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK(engines::decode_frame(std::string_view(line).substr(0, cut)).status != FrameStatus::ok);
  }
}

TEST_CASE("row input: envelope rules of section 1.1", "[common]") {
  using engines::Json;
  auto envelope = engines::split_row(Json::parse(R"({"id":"x","data":{"a":1}})"));
  CHECK(envelope.id == "x");
  CHECK(envelope.data == Json::parse(R"({"a":1})"));

  auto bare = engines::split_row(Json::parse(R"({"id":"x","a":1})"));
  CHECK(bare.id == "x");
  CHECK(bare.data == Json::parse(R"({"id":"x","a":1})"));  // the id stays inside

  auto numeric_id = engines::split_row(Json::parse(R"({"id":5,"data":"s"})"));
  CHECK_FALSE(numeric_id.id.has_value());
  CHECK(numeric_id.data == Json::parse(R"({"id":5,"data":"s"})"));  // scalar data: whole row

  auto payload = engines::split_row(Json::parse(R"({"payload":[1]})"), "payload");
  CHECK(payload.data == Json::parse("[1]"));
}

TEST_CASE("hex digits: either case, or lower case only where names must be", "[framing][hex]") {
  using storh::engines::hex_digit;
  using storh::engines::kNotHex;
  using storh::engines::lower_hex_digit;
  const std::string digits = "0123456789abcdef";
  for (unsigned v = 0; v < 16; ++v) {
    const char lower = digits[v];
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(lower)));
    CHECK(hex_digit(lower) == v);
    CHECK(hex_digit(upper) == v);
    CHECK(lower_hex_digit(lower) == v);
    CHECK(lower_hex_digit(upper) == (v < 10 ? v : kNotHex));
  }
  for (const char other : {'g', 'G', '/', ':', '@', '`', ' ', '\0', '\xff'}) {
    CHECK(hex_digit(other) == kNotHex);
    CHECK(lower_hex_digit(other) == kNotHex);
  }
}
