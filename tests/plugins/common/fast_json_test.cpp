// fast_json: every text gives exactly what nlohmann's parser gives (value and number
// types, or rejection), whether the fast path takes it or hands it to nlohmann.
#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/canonical_json.h"
#include "common/fast_json.h"

using storh::engines::Json;
using storh::engines::parse_json;
using storh::engines::parse_json_fast;
using storh::engines::parse_json_or_throw;

namespace {

Json reference(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, false);
}

// Same value, and the same type at every level (unsigned vs signed integers included:
// == alone compares numbers across types).
bool identical(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    auto ib = b.begin();
    for (auto ia = a.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia.key() != ib.key() || !identical(*ia, *ib)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!identical(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b || (a.is_discarded() && b.is_discarded());
}

void check_like_nlohmann(const std::string& text) {
  INFO("text: " << text);
  const Json want = reference(text);
  const Json got = parse_json(text);
  CHECK(identical(got, want));
  Json fast;
  if (parse_json_fast(text, fast)) CHECK(identical(fast, want));
  if (want.is_discarded()) {
    CHECK_THROWS_AS(parse_json_or_throw(text), Json::parse_error);
  } else {
    CHECK(identical(parse_json_or_throw(text), want));
  }
}

}  // namespace

TEST_CASE("fast_json: record files and JSONL lines take the fast path", "[fast_json]") {
  for (std::uint64_t i : {0u, 1u, 99u, 12345u}) {
    std::string text = R"({"id":"018bcfe5-6800-7000-8000-000000000000","data":)";
    storh::engines::append_compact(text, storh::engines::bench_row(i));
    text += "}\n";
    Json fast;
    REQUIRE(parse_json_fast(text, fast));
    CHECK(identical(fast, reference(text)));
    CHECK(fast["data"]["publishedAt"].is_number_unsigned());
  }
}

TEST_CASE("fast_json: edge cases agree with nlohmann", "[fast_json]") {
  const std::vector<std::string> texts = {"{}",
                                          "[]",
                                          " { } ",
                                          "\t[ 1 , 2 ]\r\n",
                                          "0",
                                          "-0",
                                          "7",
                                          "-7",
                                          "18446744073709551615",
                                          "18446744073709551616",
                                          "-9223372036854775808",
                                          "-9223372036854775809",
                                          "9999999999999999999",
                                          "10000000000000000000",
                                          "-9999999999999999999",
                                          "9223372036854775807",
                                          "-9223372036854775807",
                                          "1.5",
                                          "1e3",
                                          "-1E-2",
                                          "01",
                                          "-",
                                          "--1",
                                          "1.",
                                          ".5",
                                          "true",
                                          "false",
                                          "null",
                                          "tru",
                                          "nul",
                                          "True",
                                          R"("a\"b\\c\/d\b\f\n\r\t")",
                                          R"("\u00e9")",
                                          R"("\ud83d\ude00")",
                                          R"("\x")",
                                          "\"caf\xc3\xa9\"",
                                          "\"\xe2\x82\xac\"",
                                          "\"\xf0\x9f\x98\x80\"",
                                          "\"\xc3\"",
                                          "\"\xc0\xaf\"",
                                          "\"\xed\xa0\x80\"",
                                          "\"\xf4\x90\x80\x80\"",
                                          "\"\xff\"",
                                          "\"a\x01\"",
                                          "\"unterminated",
                                          R"({"a":1,"a":2})",
                                          R"({"b":1,"a":2,"c":{"d":[1,{"e":null}]}})",
                                          R"({"a":1,})",
                                          "[1,]",
                                          R"({"a" 1})",
                                          R"({1:2})",
                                          "[1 2]",
                                          "{\"a\":1}x",
                                          "",
                                          "   ",
                                          "\xef\xbb\xbf{}",
                                          std::string(300, '[') + std::string(300, ']'),
                                          R"({"":""})",
                                          R"([[],{},[{}]])"};
  for (const std::string& text : texts) check_like_nlohmann(text);
}

// Plain string text is skipped eight bytes at a time: whatever ends or interrupts a run
// (quote, escape, control character, UTF-8, malformed UTF-8) must be seen at every
// position of a word and of the tail.
TEST_CASE("fast_json: string specials at every position agree with nlohmann", "[fast_json]") {
  const std::vector<std::string> specials = {"\\\"", "\\\\", "\\n",          "\\u0041", "\\x",
                                             "\x01", "\x1f", "\x7f",         " ",       "\xc3\xa9",
                                             "\xc3", "\xff", "\xe2\x82\xac", "\""};
  for (const std::string& special : specials) {
    for (std::size_t before = 0; before <= 17; ++before) {
      for (std::size_t after : {0u, 1u, 7u, 8u, 9u}) {
        check_like_nlohmann("\"" + std::string(before, 'a') + special + std::string(after, 'b') +
                            "\"");
      }
    }
  }
}

TEST_CASE("fast_json: random documents agree with nlohmann", "[fast_json][property]") {
  std::mt19937_64 rng(20261202);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::vector<std::string> atoms = {"0",
                                          "-1",
                                          "42",
                                          "9223372036854775807",
                                          "-9223372036854775808",
                                          "3.25",
                                          "1e9",
                                          "true",
                                          "false",
                                          "null",
                                          R"("")",
                                          R"("plain")",
                                          R"("esc\n\"")",
                                          R"("\u0041")",
                                          "\"\xc3\xa9t\xc3\xa9\"",
                                          R"("tab	in")"};
  std::function<std::string(int)> make = [&](int depth) -> std::string {
    const int kind = depth > 4 ? 0 : pick(3);
    if (kind == 0) return atoms[static_cast<std::size_t>(pick(static_cast<int>(atoms.size())))];
    const bool object = kind == 1;
    std::string out(1, object ? '{' : '[');
    const int n = pick(4);
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += pick(5) == 0 ? " , " : ",";
      if (object) out += "\"k" + std::to_string(pick(4)) + "\":";
      out += make(depth + 1);
    }
    out += object ? '}' : ']';
    return out;
  };
  for (int round = 0; round < 2000; ++round) {
    std::string text = make(0);
    // Sometimes break the text: cut it, or change one byte.
    if (pick(4) == 0 && !text.empty()) {
      const std::size_t at = static_cast<std::size_t>(pick(static_cast<int>(text.size())));
      if (pick(2) == 0) {
        text.resize(at);
      } else {
        text[at] = "{}[],:\"0a\\ "[pick(12)];
      }
    }
    check_like_nlohmann(text);
  }
}
