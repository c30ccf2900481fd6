// Worker events (worker/event.h): every kind survives encode and decode, the lines
// keep their wire form, and a bad line is refused with a reason.
#include "worker/event.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test_support.h"

using namespace storh::worker;
using storh::test::contains;

namespace {

void round_trips(const Event& event) {
  const std::string line = encode(event);
  INFO(line);
  CHECK(line.find('\n') == std::string::npos);
  const auto decoded = decode(line);
  REQUIRE(decoded.ok());
  CHECK(*decoded == event);
}

// decode(line) fails with a message that contains `reason`.
void decode_should_fail(const std::string& line, const std::string& reason) {
  INFO(line);
  const auto decoded = decode(line);
  REQUIRE_FALSE(decoded.ok());
  CHECK(contains(decoded.error(), reason));
}

}  // namespace

TEST_CASE("worker event: every kind survives encode and decode", "[worker][event]") {
  round_trips(LoadedEvent{});
  round_trips(BeginEvent{"put"});
  round_trips(SampleEvent{"put", 0.41, 1000});
  round_trips(SampleEvent{"get", 1.5e-7, 1, 4096, nlohmann::json{{"count", 3}, {"bins", {1, 2}}}});
  round_trips(FailEvent{"get", "get: record 17 read back 3 fields, expected 5"});
  round_trips(ProgressEvent{"loaded 500 of 1000"});
  round_trips(CountersEvent{"put", 1000, {{"write_calls", 1000}, {"fsync", 2}}});
  round_trips(CountersEvent{"put", 1000, {}, 3});
  round_trips(CountersEvent{"claim_concurrent", 8, {{"fsync", 0}}, std::nullopt, true});
  round_trips(LoadProgressEvent{"put_get", "progress: 5.0 s, 1200 tps"});
  round_trips(LoadEvent{"put_get", nlohmann::json{{"processed", 20}, {"failed", 0}}});
  round_trips(DoneEvent{});
  round_trips(DoneEvent{false, "put", "the engine said no"});
  round_trips(DoneEvent{false, "", "no selected transaction type exists"});
}

TEST_CASE("worker event: the lines keep their wire form", "[worker][event]") {
  CHECK(encode(LoadedEvent{}) == R"({"event":"loaded"})");
  CHECK(encode(SampleEvent{"put", 0.5, 10}) ==
        R"({"event":"sample","op":"put","seconds":0.5,"items":10})");
  CHECK(encode(SampleEvent{"put", 0.5, 10, 7}) ==
        R"({"event":"sample","op":"put","seconds":0.5,"items":10,"calls":7})");
  // Counters in Counter order, not sorted.
  CHECK(encode(CountersEvent{"put", 2, {{"write_calls", 2}, {"fsync", 1}}}) ==
        R"({"event":"counters","op":"put","items":2,"counters":{"write_calls":2,"fsync":1}})");
  CHECK(encode(CountersEvent{"put", 2, {}, 4}) ==
        R"({"event":"counters","op":"put","items":2,"dump":4})");
  // Child processes ended during the step: said only when so.
  CHECK(encode(CountersEvent{"put", 2, {}, 4, true}) ==
        R"({"event":"counters","op":"put","items":2,"dump":4,"children":true})");
  CHECK(encode(DoneEvent{}) == R"({"event":"done","ok":true})");
  CHECK(encode(DoneEvent{false, "put", "no"}) ==
        R"({"event":"done","ok":false,"op":"put","message":"no"})");
  // A plugin's message with invalid UTF-8 still makes a line.
  CHECK(contains(encode(ProgressEvent{"bad \xff byte"}), R"("event":"progress")"));
}

TEST_CASE("worker event: decode reads what older lines leave out", "[worker][event]") {
  const auto sample = decode(R"({"event":"sample","op":"put","seconds":1,"items":5,"calls":0})");
  REQUIRE(sample.ok());
  CHECK(std::get<SampleEvent>(*sample).calls == 1);  // 0 calls is read as one
  CHECK(std::get<SampleEvent>(*sample).latency.is_null());
  const auto done = decode(R"({"event":"done","ok":false})");
  REQUIRE(done.ok());
  CHECK(std::get<DoneEvent>(*done) == DoneEvent{false, "", ""});
  CHECK(decode(R"({"event":"begin","op":"put","extra":1})").ok());
}

TEST_CASE("worker event: a bad line is refused with the reason", "[worker][event]") {
  decode_should_fail("", "not a JSON object");
  decode_should_fail("{\"event\":\"begin\",\"op\":", "not a JSON object");
  decode_should_fail("[1,2]", "not a JSON object");
  decode_should_fail(R"({"op":"put"})", R"(missing "event")");
  decode_should_fail(R"({"event":7})", R"(missing "event")");
  decode_should_fail(R"({"event":"started"})", R"(unknown event "started" (known: loaded, begin)");
  decode_should_fail(R"({"event":"begin"})", R"(worker event "begin": missing "op")");
  decode_should_fail(R"({"event":"sample","op":"put","seconds":"fast","items":1})",
                     R"("seconds" must be a number, got string)");
  decode_should_fail(R"({"event":"sample","op":"put","seconds":1,"items":-1})",
                     R"("items" must be a whole number >= 0)");
  decode_should_fail(R"({"event":"done"})", R"(missing "ok")");
  decode_should_fail(R"({"event":"counters","op":"put","items":1,"counters":{"fsync":"x"}})",
                     R"("fsync" must be a whole number >= 0)");
  decode_should_fail(R"({"event":"load","op":"put_get"})", R"(missing "outcome")");
}
