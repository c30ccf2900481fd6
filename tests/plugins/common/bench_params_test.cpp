// The adapters' parameter declarations (common/bench/params.h): one declaration makes
// the ParamSpec, the ParamRange and the reading, and the reading applies the default.
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "common/bench/durability.h"
#include "common/bench/params.h"
#include "fake_run_context.h"

namespace {

namespace bench = storh::engines::bench;
using storh::ParamValue;

constexpr bench::IntParam kThreads{"threads", 4, 1, 64, "threads per step"};
constexpr bench::IntParam kSegment{"segment", 1024, 256, bench::kNoMaximum, "bytes"};
constexpr bench::NumberParam kRatio{"ratio", 0.5, 0.0, bench::kUnbounded, "a fraction"};
constexpr std::array<std::string_view, 3> kModes{"fast", "safe", "paranoid"};
constexpr bench::TextParam kMode{"mode", "safe", kModes, "how careful"};
constexpr bench::TextParam kPath{"path", "", {}, "any text"};
constexpr bench::BoolParam kWal{"wal", true, "the log"};

// What `reader` throws, or "" when it returns.
template <typename F>
std::string thrown(F&& reader) {
  try {
    reader();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("bench params: a declaration makes the spec describe() lists", "[bench][params]") {
  const storh::ParamSpec threads = bench::spec(kThreads);
  CHECK(threads.name == "threads");
  CHECK(threads.type == storh::ParamType::integer);
  CHECK(threads.default_value == ParamValue(std::int64_t{4}));
  CHECK(threads.allowed.empty());
  CHECK(threads.description == "threads per step");

  const storh::ParamSpec mode = bench::spec(kMode);
  CHECK(mode.type == storh::ParamType::string);
  CHECK(mode.default_value == ParamValue(std::string("safe")));
  CHECK(mode.allowed ==
        std::vector<ParamValue>{std::string("fast"), std::string("safe"), std::string("paranoid")});
  CHECK(bench::spec(kPath).allowed.empty());
  CHECK(bench::spec(kWal).default_value == ParamValue(true));
  CHECK(bench::spec(kRatio).type == storh::ParamType::number);

  const storh::ParamSpec durability = bench::spec(bench::durability_param("what a sync is"));
  CHECK(durability.name == "durability");
  CHECK(durability.default_value == ParamValue(std::string("durable")));
  CHECK(durability.allowed == std::vector<ParamValue>{std::string("durable"), std::string("none")});
}

TEST_CASE("bench params: a missing bound is an infinite one in the range", "[bench][params]") {
  const storh::ParamRange threads = bench::range(kThreads);
  CHECK(threads.name == "threads");
  CHECK(threads.minimum == 1);
  CHECK(threads.maximum == 64);
  const storh::ParamRange segment = bench::range(kSegment);
  CHECK(segment.minimum == 256);
  CHECK(std::isinf(segment.maximum));
  const storh::ParamRange ratio = bench::range(kRatio);
  CHECK(ratio.minimum == 0);
  CHECK(std::isinf(ratio.maximum));
}

TEST_CASE("bench params: an absent value reads as the declared default", "[bench][params]") {
  const storh_test::FakeRunContext ctx(10);
  CHECK(bench::integer(ctx, kThreads) == 4);
  CHECK(bench::number_value(ctx, kRatio) == 0.5);
  CHECK(bench::text(ctx, kMode) == "safe");
  CHECK(bench::choice(ctx, kMode) == 1);
  CHECK(bench::text(ctx, kPath).empty());
  CHECK(bench::boolean(ctx, kWal));
}

TEST_CASE("bench params: run() and preflight's values read the same", "[bench][params]") {
  storh_test::FakeRunContext ctx(10);
  ctx.set_param("threads", std::int64_t{8})
      .set_param("mode", std::string("paranoid"))
      .set_param("wal", false);
  const std::vector<std::pair<std::string, ParamValue>> values = {
      {"mode", std::string("paranoid")}, {"threads", std::int64_t{8}}, {"wal", false}};
  for (const bench::Lookup& param : {bench::Lookup(ctx), bench::Lookup(values)}) {
    CHECK(bench::integer(param, kThreads) == 8);
    CHECK(bench::choice(param, kMode) == 2);
    CHECK_FALSE(bench::boolean(param, kWal));
  }
}

TEST_CASE("bench params: a value out of bounds or choices names what is valid", "[bench][params]") {
  const std::vector<std::pair<std::string, ParamValue>> values = {{"mode", std::string("reckless")},
                                                                  {"threads", std::int64_t{0}}};
  CHECK(thrown([&] { bench::integer(values, kThreads); }) == "threads = 0 is out of range [1, 64]");
  CHECK(thrown([&] { bench::choice(values, kMode); }) ==
        "mode \"reckless\" (valid: fast, safe, paranoid)");
  // text() leaves the check to the engine's own parser; integer_value() to the adapter.
  CHECK(bench::text(values, kMode) == "reckless");
  CHECK(bench::integer_value(values, kThreads) == 0);
  CHECK_FALSE(bench::in_range(kThreads, 0));
  CHECK(bench::in_range(kSegment, std::int64_t{1} << 40));
  CHECK_FALSE(bench::in_range(kRatio, std::nan("")));
}

TEST_CASE("bench params: check_params reports the first reader that refuses", "[bench][params]") {
  const std::vector<std::pair<std::string, ParamValue>> values = {{"threads", std::int64_t{99}}};
  const storh::Status status = bench::check_params(
      values, [](const bench::Lookup& param) { return bench::choice(param, kMode); },
      [](const bench::Lookup& param) { return bench::integer(param, kThreads); });
  REQUIRE_FALSE(status.ok());
  CHECK(status.message() == "parameters: threads = 99 is out of range [1, 64]");
}
