// Tests of common/uuid_v7.h against engine-spec.md section 2.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/uuid_v7.h"

namespace uuid_v7 = storh::engines::uuid_v7;

namespace {

constexpr std::int64_t kTs = 1700000000000;
using Entropy = std::array<unsigned char, uuid_v7::kEntropySize>;

// The id that follows E = `entropy` within millisecond kTs.
std::string next_after(const Entropy& entropy) {
  uuid_v7::set_state_for_tests(kTs, entropy);
  return uuid_v7::generate(kTs);
}

// engine-spec.md 2.3, literally.
bool matches_spec_regex(const std::string& text) {
  static const std::regex pattern(
      "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", std::regex::icase);
  return std::regex_match(text, pattern);
}

std::string to_upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

TEST_CASE("uuid: ids have the 8-4-4-4-12 layout, version 7 and variant 10", "[uuid]") {
  uuid_v7::reset_for_tests();
  for (int i = 0; i < 200; ++i) {
    const std::string id = uuid_v7::generate(kTs + i % 3);
    REQUIRE(id.size() == 36);
    CHECK(id[8] == '-');
    CHECK(id[13] == '-');
    CHECK(id[18] == '-');
    CHECK(id[23] == '-');
    CHECK(id[14] == '7');
    CHECK(std::string("89ab").find(id[19]) != std::string::npos);
    CHECK(id.find_first_of("ABCDEF") == std::string::npos);  // written in lower case
    CHECK(uuid_v7::is_valid(id));
  }
}

TEST_CASE("uuid: the first 48 bits are the timestamp in milliseconds", "[uuid]") {
  CHECK(uuid_v7::generate(kTs).substr(0, 13) == "018bcfe5-6800");
  CHECK(uuid_v7::generate(0).substr(0, 13) == "00000000-0000");
  CHECK(uuid_v7::generate(uuid_v7::kMaxTimestampMs).substr(0, 13) == "ffffffff-ffff");
  CHECK(uuid_v7::timestamp_ms(uuid_v7::generate(kTs + 42)) == kTs + 42);
}

TEST_CASE("uuid: ids within one millisecond increase by one", "[uuid]") {
  uuid_v7::reset_for_tests();
  std::string previous = uuid_v7::generate(kTs);
  for (int i = 0; i < 1000; ++i) {
    const std::string id = uuid_v7::generate(kTs);
    REQUIRE(previous < id);
    previous = id;
  }
  CHECK(next_after({0x0a, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99}) ==
        "018bcfe5-6800-7a11-a233-44556677889a");
}

TEST_CASE("uuid: the counter carries across bytes", "[uuid]") {
  CHECK(next_after({0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0xff}) == "018bcfe5-6800-7000-8000-000000001300");
  CHECK(next_after({0, 0, 0, 0, 0xab, 0xff, 0xff, 0xff, 0xff, 0xff}) ==
        "018bcfe5-6800-7000-8000-ac0000000000");
  CHECK(next_after({0, 0, 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) ==
        "018bcfe5-6800-7000-9300-000000000000");
  // All 80 bits wrap to zero.
  CHECK(next_after({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) ==
        "018bcfe5-6800-7000-8000-000000000000");
}

TEST_CASE("uuid: a carry into the discarded bits sorts lower, as in storh", "[uuid]") {
  // engine-spec.md 2.2 and quirk 13.2: E2 goes 3f -> 40, whose top bits the text drops.
  const Entropy before = {0x02, 0x34, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  const std::string previous = "018bcfe5-6800-7234-bfff-ffffffffffff";  // the id of `before`
  const std::string next = next_after(before);
  CHECK(next == "018bcfe5-6800-7234-8000-000000000000");
  CHECK(next < previous);
}

TEST_CASE("uuid: a clock going backwards starts a fresh sequence", "[uuid]") {
  uuid_v7::reset_for_tests();
  const std::string late = uuid_v7::generate(kTs);
  const std::string early = uuid_v7::generate(kTs - 1);
  CHECK(uuid_v7::timestamp_ms(early) == kTs - 1);
  CHECK(early < late);  // nothing is clamped
  const std::string early_next = uuid_v7::generate(kTs - 1);
  CHECK(early < early_next);
  const std::string back_again = uuid_v7::generate(kTs);
  CHECK(uuid_v7::timestamp_ms(back_again) == kTs);
  // A new sequence, not the old one continued: 74 random bits make a collision with
  // late + 1 impossible in practice.
  CHECK(back_again.substr(14) != late.substr(14));
}

TEST_CASE("uuid: each new millisecond and each reset draws fresh random bits", "[uuid]") {
  std::set<std::string> tails;
  for (int i = 0; i < 100; ++i) {
    uuid_v7::reset_for_tests();
    tails.insert(uuid_v7::generate(kTs).substr(14));
  }
  CHECK(tails.size() == 100);
  std::set<std::string> spread_tails;
  for (int i = 0; i < 100; ++i) spread_tails.insert(uuid_v7::generate(kTs + 1 + i).substr(14));
  CHECK(spread_tails.size() == 100);
}

TEST_CASE("uuid: a forked child does not repeat its parent's ids", "[uuid]") {
  // Regression guard: the child inherits E and the random pool; it must not reuse them.
  uuid_v7::reset_for_tests();
  (void)uuid_v7::generate(kTs);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const std::string id = uuid_v7::generate(kTs);
    const ssize_t written = ::write(fds[1], id.data(), id.size());
    ::_exit(written == static_cast<ssize_t>(id.size()) ? 0 : 1);
  }
  const std::string parent_id = uuid_v7::generate(kTs);
  char buffer[36];
  REQUIRE(::read(fds[0], buffer, sizeof buffer) == 36);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(fds[0]);
  ::close(fds[1]);
  CHECK(std::string(buffer, 36) != parent_id);
}

TEST_CASE("uuid: a forked child draws random bits its parent never sees", "[uuid]") {
  // Regression guard for the userspace CSPRNG: the child inherits its key and buffered
  // keystream, so a new millisecond in both processes must still give different bits.
  uuid_v7::reset_for_tests();
  (void)uuid_v7::generate(kTs);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const std::string id = uuid_v7::generate(kTs + 1);
    const ssize_t written = ::write(fds[1], id.data(), id.size());
    ::_exit(written == static_cast<ssize_t>(id.size()) ? 0 : 1);
  }
  const std::string parent_id = uuid_v7::generate(kTs + 1);
  char buffer[36];
  REQUIRE(::read(fds[0], buffer, sizeof buffer) == 36);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(fds[0]);
  ::close(fds[1]);
  CHECK(std::string(buffer, 36).substr(14) != parent_id.substr(14));
}

TEST_CASE("uuid: concurrent threads never produce the same id", "[uuid]") {
  uuid_v7::reset_for_tests();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::vector<std::string>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&made, t] {
      for (int i = 0; i < kPerThread; ++i) made[t].push_back(uuid_v7::generate(kTs + i % 2));
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> all;
  for (const auto& ids : made) all.insert(ids.begin(), ids.end());
  CHECK(all.size() == kThreads * kPerThread);
}

TEST_CASE("uuid: generate() uses the wall clock", "[uuid]") {
  const std::int64_t before = uuid_v7::now_ms();
  const std::int64_t stamped = uuid_v7::timestamp_ms(uuid_v7::generate());
  const std::int64_t after = uuid_v7::now_ms();
  CHECK(before <= stamped);
  CHECK(stamped <= after);
}

TEST_CASE("uuid: timestamps outside 48 bits are rejected", "[uuid]") {
  CHECK_THROWS_AS(uuid_v7::generate(-1), std::out_of_range);
  CHECK_THROWS_AS(uuid_v7::generate(uuid_v7::kMaxTimestampMs + 1), std::out_of_range);
  CHECK_THROWS_WITH(uuid_v7::generate(-1),
                    Catch::Contains("-1") && Catch::Contains("281474976710655"));
  CHECK_THROWS_AS(uuid_v7::min_for_timestamp_ms(-1), std::out_of_range);
  CHECK_THROWS_AS(uuid_v7::max_for_timestamp_ms(uuid_v7::kMaxTimestampMs + 1), std::out_of_range);
  CHECK_NOTHROW(uuid_v7::generate(0));
  CHECK_NOTHROW(uuid_v7::generate(uuid_v7::kMaxTimestampMs));
}

TEST_CASE("uuid: is_valid accepts either case and nothing else", "[uuid]") {
  const std::string id = "018bcfe5-6800-76fb-95af-d92c554e7dcd";
  CHECK(uuid_v7::is_valid(id));
  CHECK(uuid_v7::is_valid(to_upper(id)));
  CHECK(uuid_v7::is_valid("018BCFE5-6800-76Fb-B5aF-D92C554E7dCd"));
  for (const char variant : std::string("89abAB")) {
    std::string text = id;
    text[19] = variant;
    CHECK(uuid_v7::is_valid(text));
  }
  CHECK_FALSE(uuid_v7::is_valid(id + "\n"));
  CHECK_FALSE(uuid_v7::is_valid(" " + id));
  CHECK_FALSE(uuid_v7::is_valid(id.substr(0, 35)));
  CHECK_FALSE(uuid_v7::is_valid(""));
  CHECK_FALSE(uuid_v7::is_valid("018bcfe5-6800-46fb-95af-d92c554e7dcd"));  // version 4
  CHECK_FALSE(uuid_v7::is_valid("018bcfe5-6800-76fb-c5af-d92c554e7dcd"));  // variant 110
  CHECK_FALSE(uuid_v7::is_valid("018bcfe5-6800-76fb-75af-d92c554e7dcd"));  // variant 0
  CHECK_FALSE(uuid_v7::is_valid("018bcfe5-6800-76fb-95af-d92c554e7dcg"));  // non-hex
  CHECK_FALSE(uuid_v7::is_valid("018bcfe5_6800-76fb-95af-d92c554e7dcd"));  // no dash
  CHECK_FALSE(uuid_v7::is_valid("018bcfe56-800-76fb-95af-d92c554e7dcd"));  // dash moved
  CHECK_FALSE(uuid_v7::is_valid("018bcfe5-6800-76fb-95af-d92c554e7dc\xc3"));
  CHECK_FALSE(uuid_v7::is_valid(std::string_view("018bcfe5-6800-76fb-95af-d92c554e7dc\0", 36)));
}

TEST_CASE("uuid: is_valid agrees with the spec's regex for every one-byte change", "[uuid]") {
  for (const std::string& base : {std::string("018bcfe5-6800-76fb-95af-d92c554e7dcd"),
                                  std::string("ABCDEF01-2345-7789-BCDE-F0123456789A")}) {
    for (std::size_t position = 0; position < base.size(); ++position) {
      for (int byte = 0; byte < 256; ++byte) {
        std::string text = base;
        text[position] = static_cast<char>(byte);
        INFO("position " << position << " byte " << byte);
        REQUIRE(uuid_v7::is_valid(text) == matches_spec_regex(text));
      }
    }
  }
}

TEST_CASE("uuid: timestamp_ms reads ids of either case", "[uuid]") {
  CHECK(uuid_v7::timestamp_ms("018bcfe5-6800-76fb-95af-d92c554e7dcd") == kTs);
  CHECK(uuid_v7::timestamp_ms("018BCFE5-6800-76FB-95AF-D92C554E7DCD") == kTs);
  CHECK(uuid_v7::timestamp_ms("FFFFFFFF-FFFF-7000-8000-000000000000") == uuid_v7::kMaxTimestampMs);
  CHECK_THROWS_WITH(uuid_v7::timestamp_ms("018bcfe5-6800-46fb-95af-d92c554e7dcd"),
                    "Invalid UUIDv7 value.");
  CHECK_THROWS_AS(uuid_v7::assert_valid("nope"), std::invalid_argument);
}

TEST_CASE("uuid: min and max for a timestamp bound every id of that millisecond", "[uuid]") {
  const std::string lower = uuid_v7::min_for_timestamp_ms(kTs);
  const std::string upper = uuid_v7::max_for_timestamp_ms(kTs);
  CHECK(lower == "018bcfe5-6800-7000-8000-000000000000");
  CHECK(upper == "018bcfe5-6800-7fff-bfff-ffffffffffff");
  CHECK(uuid_v7::is_valid(lower));
  CHECK(uuid_v7::is_valid(upper));
  uuid_v7::reset_for_tests();
  for (int i = 0; i < 100; ++i) {
    const std::string id = uuid_v7::generate(kTs + i % 3 - 1);
    const bool same_ms = uuid_v7::timestamp_ms(id) == kTs;
    CHECK((lower <= id && id <= upper) == same_ms);
  }
  CHECK(uuid_v7::min_for_timestamp_ms(0) == "00000000-0000-7000-8000-000000000000");
  CHECK(uuid_v7::max_for_timestamp_ms(uuid_v7::kMaxTimestampMs) ==
        "ffffffff-ffff-7fff-bfff-ffffffffffff");
}
