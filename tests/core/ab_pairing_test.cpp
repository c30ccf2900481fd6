// The A/B pairing of runs and the A/B file: which samples pair, which plans can be
// paired, and what the file keeps and refuses.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ab/ab_runner.h"
#include "ab_test_util.h"
#include "test_support.h"

TEST_CASE("ab: pairs match runs by pair index, a run without the sample drops its pair only",
          "[ab]") {
  auto run_with = [](std::optional<double> seconds) {
    storh::run::CellRun run;
    if (seconds) run.samples.push_back({"put", *seconds, 10, nullptr});
    return run;
  };
  const std::vector<storh::run::CellRun> base = {run_with(1.0), run_with(2.0), run_with(3.0)};
  const std::vector<storh::run::CellRun> head = {run_with(1.5), run_with(std::nullopt),
                                                 run_with(3.5)};
  const storh::OperationSpec op{"put", "records", storh::Direction::lower_is_better, ""};
  const PairedMetric m =
      storh::ab::pair_samples("kv.put", op, base, head, {Side::base, Side::head, Side::base});
  REQUIRE(m.pairs.size() == 2);
  CHECK(m.pairs[0].index == 0);
  CHECK(m.pairs[0].base == 1.0);
  CHECK(m.pairs[0].head == 1.5);
  CHECK(m.pairs[1].index == 2);
  CHECK(m.pairs[1].base == 3.0);
  CHECK(m.pairs[1].first == Side::base);
}

TEST_CASE("ab: plans whose cells differ cannot be paired", "[ab]") {
  storh::plan::Plan base, head;
  base.cells.resize(1);
  head.cells.resize(1);
  base.cells[0].engine = head.cells[0].engine = "kv";
  base.cells[0].dataset = 1000;
  head.cells[0].dataset = 2000;
  CHECK(storh::test::contains(storh::ab::check_pairable(base, head), "cell 1 differs"));
  head.cells[0].dataset = 1000;
  CHECK(storh::ab::check_pairable(base, head).empty());
  head.cells.resize(2);
  CHECK(storh::test::contains(storh::ab::check_pairable(base, head), "base has 1 cell(s)"));
}

TEST_CASE("ab: the A/B file keeps both sides and the pairing", "[ab]") {
  AbResult r = result_with({metric("kv.put", 8, 1.1)});
  r.order = storh::ab::Order::random;
  r.seed = 42;
  r.base_setup = {{"build-base/plugins"}, {}};
  r.head_setup = {{"build/plugins"}, {"kv.mode=fast"}};
  r.base.experiment.suite = "s";
  r.head.experiment.suite = "s";
  const nlohmann::json written = storh::ab::to_json(r, 0.01);
  CHECK(storh::ab::is_ab_json(written));
  CHECK(written["ab"]["metrics"][0]["analysis"]["pairs"] == 8);
  const auto read = storh::ab::ab_from_json(written, "ab.json");
  REQUIRE(read);
  CHECK(read->order == storh::ab::Order::random);
  CHECK(read->seed == 42);
  CHECK(read->head_setup.sets == std::vector<std::string>{"kv.mode=fast"});
  REQUIRE(read->metrics.size() == 1);
  CHECK(read->metrics[0].pairs.size() == 8);
  CHECK(read->metrics[0].pairs[1].first == Side::head);
  CHECK(read->metrics[0].pairs[3].head == r.metrics[0].pairs[3].head);

  nlohmann::json broken = written;
  broken["ab"]["metrics"][0]["pairs"][2]["first"] = "both";
  const auto bad = storh::ab::ab_from_json(broken, "ab.json");
  REQUIRE_FALSE(bad);
  CHECK(storh::test::contains(bad.error(), "ab.json: /ab/metrics/0/pairs/2/first"));
  broken = written;
  broken["ab"].erase("base");
  CHECK_FALSE(storh::ab::ab_from_json(broken, "ab.json"));
}

TEST_CASE("ab: a mistyped or out-of-range value in an A/B file names its JSON path", "[ab]") {
  AbResult r = result_with({metric("kv.put", 4, 1.0)});
  const nlohmann::json written = storh::ab::to_json(r, 0.05);
  auto error_with = [&](const char* pointer, const nlohmann::json& value) {
    nlohmann::json broken = written;
    broken[nlohmann::json::json_pointer(pointer)] = value;
    const auto read = storh::ab::ab_from_json(broken, "ab.json");
    REQUIRE_FALSE(read);
    return read.error();
  };
  CHECK(error_with("/ab/metrics/0/pairs/1/index", "1") ==
        "ab.json: /ab/metrics/0/pairs/1/index: expected a whole number >= 0, got string");
  CHECK(error_with("/ab/pairs", 4294967296ULL) ==
        "ab.json: /ab/pairs: expected at most 4294967295, got 4294967296");
  CHECK(error_with("/ab/order", "zigzag") ==
        "ab.json: /ab/order: expected \"abba\" or \"random\", got \"zigzag\"");
  CHECK(error_with("/ab/head_setup/sets/0", 5) ==
        "ab.json: /ab/head_setup/sets/0: expected a string, got number");
  CHECK(error_with("/ab/metrics/0/direction", "sideways") ==
        "ab.json: /ab/metrics/0/direction: expected lower_is_better or higher_is_better");
}
