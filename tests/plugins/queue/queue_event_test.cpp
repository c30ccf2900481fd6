// The queue.log event lines (engine-spec.md section 6.1), byte for byte, and the decoder's
// acceptance rules. The expected lines were computed with an independent xxh32.
#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../random_json.h"
#include "common/bench/bench_row.h"
#include "common/framing.h"
#include "common/hashes.h"
#include "queue/queue_event.h"
#include "queue_test_support.h"

namespace q = storh::engines::queue;
using queue_test::kId;
using storh::engines::Json;

namespace {

q::DecodeStatus decode(const std::string& line, q::QueueEvent& event, std::string& error) {
  return q::decode_event_line(line, 42, event, error);
}

q::DecodeStatus decode_json(const std::string& json, std::string* error_out = nullptr) {
  q::QueueEvent event;
  std::string error;
  const q::DecodeStatus status = decode(storh::engines::frame(json), event, error);
  if (error_out != nullptr) *error_out = error;
  return status;
}

const Json row0 = Json::parse(
    R"({"kind":"page","status":"draft","bucket":0,"slug":"item-0","publishedAt":1700000000000})");

}  // namespace

TEST_CASE("queue event: every event line is written byte for byte", "[queue][event]") {
  std::string out;
  std::string scratch;
  q::append_enqueue_line(out, scratch, kId, q::normalised_payload(row0), 1700000000);
  CHECK(out ==
        "174\t8c7ead67\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"payload\":{\"kind\":\"page\",\"status\":\"draft\",\"bucket\":0,\"slug\":\"item-0\","
        "\"publishedAt\":1700000000000},\"ts\":1700000000}\n");
  CHECK(out.size() == 188);

  out.clear();
  q::append_id_line(out, q::EventOp::claim, kId, 1700000001);
  CHECK(out ==
        "74\t4dc73276\t{\"op\":\"claim\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"ts\":1700000001}\n");
  CHECK(out.size() == 87);

  out.clear();
  q::append_complete_line(out, kId, true, 1700000002);
  CHECK(out ==
        "89\tf1e7e847\t{\"op\":\"complete\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"done\":true,\"ts\":1700000002}\n");
  CHECK(out.size() == 102);

  out.clear();
  q::append_complete_line(out, kId, false, 1700000003);
  CHECK(out ==
        "90\te9935e27\t{\"op\":\"complete\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"done\":false,\"ts\":1700000003}\n");

  out.clear();
  q::append_id_line(out, q::EventOp::requeue, kId, 1700000004);
  CHECK(out ==
        "76\tefd1a4ab\t{\"op\":\"requeue\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"ts\":1700000004}\n");

  out.clear();
  q::append_id_line(out, q::EventOp::purge, kId, 1700000005);
  CHECK(out ==
        "74\td46e1a80\t{\"op\":\"purge\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"ts\":1700000005}\n");
}

TEST_CASE("queue event: a batch's IdLines write the same bytes as one line at a time",
          "[queue][event]") {
  const std::string other_id = "018bcfe5-6800-76fb-95af-d92c554e7dce";
  for (const q::EventOp op : {q::EventOp::claim, q::EventOp::requeue, q::EventOp::purge}) {
    for (const std::int64_t ts : {std::int64_t{0}, std::int64_t{-5}, std::int64_t{1700000009}}) {
      const q::IdLines lines(op, ts);
      std::string batch;
      std::string one_by_one;
      for (const std::string& id : {std::string(kId), other_id}) {
        lines.append(batch, id);
        std::string json = "{\"op\":\"" + std::string(q::op_name(op)) + "\",\"id\":\"" + id +
                           "\",\"ts\":" + std::to_string(ts) + "}";
        one_by_one += storh::engines::frame(json);
      }
      CHECK(batch == one_by_one);
    }
  }
  for (const bool done : {true, false}) {
    const q::IdLines lines(q::EventOp::complete, 7, done);
    std::string out;
    lines.append(out, other_id);
    CHECK(out ==
          storh::engines::frame("{\"op\":\"complete\",\"id\":\"" + other_id +
                                (done ? "\",\"done\":true" : "\",\"done\":false") + ",\"ts\":7}"));
  }
  // Not a UUID's length: the line's length is counted for it, and the decoder then
  // rejects the id (the engine never writes one).
  std::string odd;
  q::IdLines(q::EventOp::claim, 1).append(odd, "short-id");
  CHECK(odd == storh::engines::frame(R"({"op":"claim","id":"short-id","ts":1})"));
  q::QueueEvent event;
  std::string error;
  CHECK(decode(odd, event, error) == q::DecodeStatus::invalid_event);
  CHECK_THROWS_AS(q::IdLines(q::EventOp::enqueue, 1), std::invalid_argument);
}

TEST_CASE("queue event: payloads use canonical JSON, empty is [], / and UTF-8 stay raw",
          "[queue][event]") {
  std::string out;
  std::string scratch;
  q::append_enqueue_line(out, scratch, kId, q::normalised_payload(Json::object()), 1700000006);
  CHECK(out ==
        "89\ta4a8fcc8\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"payload\":[],\"ts\":1700000006}\n");

  out.clear();
  Json payload = Json::object();
  payload["path"] = "a/b";
  payload["name"] = "\xc3\xa9\xe2\x80\xa8";  // é and U+2028
  q::append_enqueue_line(out, scratch, kId, q::normalised_payload(payload), 1700000007);
  CHECK(out ==
        "119\t55d19ed0\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6800-76fb-95af-d92c554e7dcd\","
        "\"payload\":{\"path\":\"a/b\",\"name\":\"\xc3\xa9\\u2028\"},\"ts\":1700000007}\n");
}

TEST_CASE("queue event: payload normalisation drops integer-like keys, non-objects become []",
          "[queue][event]") {
  CHECK(q::normalised_payload(Json::parse(R"({"0":"a","b":1,"-3":2,"07":3})")) ==
        R"({"b":1,"07":3})");
  CHECK(q::normalised_payload(Json::parse(R"({"1":"only"})")) == "[]");
  CHECK(q::normalised_payload(Json::parse(R"([1,2,3])")) == "[]");
  CHECK(q::normalised_payload(Json("text")) == "[]");
  CHECK(q::normalised_payload(Json(nullptr)) == "[]");

  CHECK(q::is_integer_like_key("0"));
  CHECK(q::is_integer_like_key("-7"));
  CHECK(q::is_integer_like_key("9223372036854775807"));
  CHECK_FALSE(q::is_integer_like_key("9223372036854775808"));
  CHECK_FALSE(q::is_integer_like_key("007"));
  CHECK_FALSE(q::is_integer_like_key("-0"));
  CHECK_FALSE(q::is_integer_like_key("+1"));
  CHECK_FALSE(q::is_integer_like_key("1.0"));
  CHECK_FALSE(q::is_integer_like_key(" 1"));
  CHECK_FALSE(q::is_integer_like_key(""));
}

// enqueue_many encodes each payload value straight into its line (encode_enqueue_line);
// enqueue and older callers frame the normalised text. Both must write the bytes the
// queue wrote before the direct path existed.
TEST_CASE("queue event: an enqueue line encoded from the payload value is the old bytes",
          "[queue][event]") {
  const auto line_of_text = [](const Json& payload, std::int64_t ts) {
    return storh::engines::frame(std::string("{\"op\":\"enqueue\",\"id\":\"") + kId +
                                 "\",\"payload\":" + q::normalised_payload(payload) +
                                 ",\"ts\":" + std::to_string(ts) + "}");
  };
  Json tricky = Json::object();
  tricky["0"] = "dropped";
  tricky["nested"] = Json::parse(R"({"1":[1,-2,{"x":[]}],"e":{},"f":1.5e-7,"g":-0.0})");
  tricky["quote\"\\"] = "ctl\x01\x1f\x7f\n\t/";
  tricky["\xc3\xa9\xf0\x9f\x98\x80"] = "\xe2\x80\xa8\xe2\x80\xa9\xe2\x82\xac";
  tricky["-7"] = 1;
  tricky["big"] = Json::parse("[18446744073709551615,-9223372036854775808,1e20,0.1]");
  const std::vector<std::pair<Json, std::string>> cases = {
      {tricky, R"({"nested":{"1":[1,-2,{"x":[]}],"e":[],"f":1.5e-7,"g":-0.0},"quote\"\\":)"
               R"("ctl\u0001\u001f)"
               "\x7f"
               R"(\n\t/",)"
               "\"\xc3\xa9\xf0\x9f\x98\x80\":\"\\u2028\\u2029\xe2\x82\xac\","
               R"("big":[18446744073709551615,-9223372036854775808,1.0e+20,0.1]})"},
      {storh::engines::bench_row(3),
       R"({"kind":"post","status":"draft","bucket":3,"slug":"item-3","publishedAt":1700000000003})"},
      {Json::parse(R"({"1":"only integer-like keys"})"), "[]"},
      {Json::parse("[1,2]"), "[]"},
      {Json("text"), "[]"},
      {Json::object(), "[]"},  // an 89-byte JSON: the frame's length has two digits
      {Json{{"long", std::string(2000, 'x') + "\"" + std::string(7, 'y')}},
       "{\"long\":\"" + std::string(2000, 'x') + "\\\"" + std::string(7, 'y') + "\"}"},
  };
  for (const auto& [payload, expected_text] : cases) {
    INFO(expected_text.substr(0, 80));
    std::string out = "earlier lines\n";
    const std::string_view text = q::encode_enqueue_line(out, kId, payload, 1700000008);
    CHECK(text == expected_text);
    CHECK(q::normalised_payload(payload) == expected_text);
    CHECK(out == "earlier lines\n" + line_of_text(payload, 1700000008));
    std::string from_text;
    q::append_enqueue_line(from_text, kId, expected_text, 1700000008);
    CHECK(out == "earlier lines\n" + from_text);
  }
}

// 3,000 seeded random payloads (tests/plugins/random_json.h): the digests of their
// normalised texts and enqueue lines were computed with the queue of main 96d41ff, before
// TextOut and encode_enqueue_line.
TEST_CASE("queue event: random payloads encode to the bytes of the encoder before",
          "[queue][event]") {
  random_json::Generator generator(20261205);
  std::string texts;
  std::string lines;
  std::string lines_from_text;
  for (int i = 0; i < 3000; ++i) {
    const Json payload = i % 5 == 4 ? generator.value(4) : generator.object(4);
    const std::string text = q::normalised_payload(payload);
    texts += text;
    texts += '\n';
    CHECK(q::encode_enqueue_line(lines, kId, payload, 1700000000 + i) == text);
    q::append_enqueue_line(lines_from_text, kId, text, 1700000000 + i);
  }
  CHECK(texts.size() == 304150);
  CHECK(storh::engines::xxh32_hex(texts) == "5bdf699f");
  CHECK(lines.size() == 603162);
  CHECK(storh::engines::xxh32_hex(lines) == "cb675d0a");
  CHECK(lines_from_text == lines);
}

TEST_CASE("queue event: decoding round-trips every op, canonical or not", "[queue][event]") {
  std::string out;
  q::append_complete_line(out, kId, true, 1700000002);
  q::QueueEvent event;
  std::string error;
  REQUIRE(decode(out, event, error) == q::DecodeStatus::ok);
  CHECK(event.op == q::EventOp::complete);
  CHECK(event.id == kId);
  CHECK(event.done);
  CHECK(event.ts == 1700000002);

  // Other key order, spacing, no ts (taken as "now"), a non-boolean done.
  const std::string json =
      std::string(R"({ "ts": "x", "done": 1, "id": ")") + kId + R"(", "op": "complete" })";
  REQUIRE(decode(storh::engines::frame(json), event, error) == q::DecodeStatus::ok);
  CHECK(event.op == q::EventOp::complete);
  CHECK_FALSE(event.done);
  CHECK(event.ts == 42);

  const std::string enqueue =
      std::string(R"({"payload":{"b":1,"0":"x"},"op":"enqueue","id":")") + kId + R"(","ts":7})";
  REQUIRE(decode(storh::engines::frame(enqueue), event, error) == q::DecodeStatus::ok);
  CHECK(event.op == q::EventOp::enqueue);
  CHECK(event.payload == R"({"b":1})");
  CHECK(event.id == kId);
  CHECK(event.ts == 7);

  const std::string missing_payload = std::string(R"({"op":"enqueue","id":")") + kId + R"("})";
  REQUIRE(decode(storh::engines::frame(missing_payload), event, error) == q::DecodeStatus::ok);
  CHECK(event.payload == "[]");

  // A CRLF line decodes like its LF twin.
  std::string crlf = out;
  crlf.insert(crlf.size() - 1, "\r");
  CHECK(decode(crlf, event, error) == q::DecodeStatus::ok);
}

TEST_CASE("queue event: bad lines are rejected with PHP's messages", "[queue][event]") {
  q::QueueEvent event;
  std::string error;
  std::string line;
  q::append_id_line(line, q::EventOp::claim, kId, 1);

  CHECK(decode(line.substr(0, line.size() - 1), event, error) == q::DecodeStatus::torn);
  CHECK(error == "Torn log queue line.");
  CHECK(decode("{\"op\":\"enqueue\"", event, error) == q::DecodeStatus::torn);
  CHECK(decode("broken\n", event, error) == q::DecodeStatus::malformed);
  CHECK(error == "Malformed log queue line.");
  std::string flipped = line;
  flipped[flipped.size() - 3] = '9';
  CHECK(decode(flipped, event, error) == q::DecodeStatus::corrupt);
  CHECK(error == "Corrupt log queue line.");

  std::string message;
  CHECK(decode_json("{nope", &message) == q::DecodeStatus::malformed);
  CHECK(decode_json("[1,2]", &message) == q::DecodeStatus::not_object);
  CHECK(message == "Log queue event must be an object.");
  CHECK(decode_json("\"text\"") == q::DecodeStatus::not_object);
  CHECK(decode_json(std::string(R"({"op":"claim","id":")") + kId + R"(","0":1})") ==
        q::DecodeStatus::not_object);
  CHECK(decode_json("[]", &message) == q::DecodeStatus::invalid_event);
  CHECK(message == "Invalid log queue event.");
  CHECK(decode_json(R"({"op":"claim","id":"not-a-uuid"})") == q::DecodeStatus::invalid_event);
  CHECK(decode_json(std::string(R"({"op":"","id":")") + kId + R"("})") ==
        q::DecodeStatus::invalid_event);
  CHECK(decode_json(std::string(R"({"op":"explode","id":")") + kId + R"("})", &message) ==
        q::DecodeStatus::unsupported);
  CHECK(message == "Unsupported log queue event: explode");
}
