// Load runs over time, end to end through the binary with the slow_tx fixture: the
// interval series sums to the cell's totals, and latency_limit counts late and skipped
// transactions. Only counts that are certain are checked, never timing figures.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::metric;
using storh::test::ScratchDir;

namespace {

// Runs a suite of `load` ([load] body) on slow_tx's sleep with `params`; the result.
nlohmann::json run_sleep(const ScratchDir& dir, const std::string& load, const std::string& params,
                         storh::test::CliResult& run) {
  const auto suite = dir / "time.toml";
  storh::test::write_text(
      suite, "name = \"time\"\ntimeout = \"60s\"\nrepeat = 2\n[load]\nprogress = 0\n" + load +
                 "\n[engines.slow_tx]\noperations = [\"sleep\"]\nparams = " + params + "\n");
  const auto output = dir / "time.json";
  // --no-fail-fast: a cell whose transactions fail still runs (and records) every repeat.
  run = cli({suite.string(), storh::test::fixture_path_flag, "--output=" + output.string(),
             "--work-dir=" + (dir / "work").string(), "--no-fail-fast"});
  if (!std::filesystem::exists(output)) return nullptr;
  return nlohmann::json::parse(storh::test::read_text(output));
}

std::uint64_t sum(const nlohmann::json& column) {
  std::uint64_t total = 0;
  for (const auto& value : column) total += value.get<std::uint64_t>();
  return total;
}

}  // namespace

TEST_CASE("load time: each repeat's interval series sums to its transactions and failures",
          "[load][cli][intervals]") {
  // 4 clients, every 7th call of a client fails and ends it: each client runs 6 ok
  // transactions and 1 failed one, whatever the machine's speed.
  for (const std::string mode : {"threads", "processes"}) {
    ScratchDir dir;
    storh::test::CliResult run;
    const auto result = run_sleep(
        dir, "clients = 4\ntransactions = 20\ninterval = \"2ms\"\nmode = \"" + mode + "\"",
        "{ delay_us = 1000, fail_every = 7 }", run);
    INFO(mode << "\n" << run.out << run.err);
    REQUIRE(result != nullptr);
    const auto& load = metric(result, "slow_tx.sleep[clients=4,transactions=20]")["load"];
    REQUIRE(load["repeats"].size() == 2);
    for (const auto& repeat : load["repeats"]) {
      const auto& series = repeat["intervals"];
      CHECK(series["seconds"].get<double>() >= 0.002);
      CHECK(sum(series["transactions"]) == repeat["processed"].get<std::uint64_t>());
      CHECK(sum(series["failed"]) == repeat["failed"].get<std::uint64_t>());
      CHECK(repeat["processed"] == 24);
      CHECK(repeat["failed"] == 4);
      CHECK(sum(series["retries"]) == 0);
      CHECK(series["latency_p99"].size() == series["transactions"].size());
    }
  }
}

TEST_CASE("load time: the text report prints a short cell's series as pgbench -P lines",
          "[load][cli][intervals]") {
  ScratchDir dir;
  storh::test::CliResult run;
  const auto result =
      run_sleep(dir, "transactions = 5\ninterval = \"1s\"", "{ delay_us = 100 }", run);
  REQUIRE(result != nullptr);
  INFO(run.out);
  CHECK(run.out.find("over time: sleep[clients=1,transactions=5]") != std::string::npos);
  CHECK(run.out.find(", 0 failed\n") != std::string::npos);
  CHECK(run.out.find("    progress: ") != std::string::npos);
}

TEST_CASE("load time: every transaction slower than latency_limit is late",
          "[load][cli][intervals]") {
  // Each transaction sleeps 5 ms; the limit is 1 ms: all are late.
  ScratchDir dir;
  storh::test::CliResult run;
  const auto result = run_sleep(dir, "clients = 2\ntransactions = 10\nlatency_limit = \"1ms\"",
                                "{ delay_us = 5000 }", run);
  INFO(run.out << run.err);
  REQUIRE(result != nullptr);
  const auto& load = metric(result, "slow_tx.sleep[clients=2,transactions=10]")["load"];
  CHECK(load["latency_limit"] == 0.001);
  CHECK(load["late"] == 40);
  CHECK(load["processed"] == 40);
  CHECK(!load.contains("skipped"));  // no rate: nothing is skipped
  CHECK(!load.contains("lag"));
  for (const auto& repeat : load["repeats"]) CHECK(sum(repeat["intervals"]["late"]) == 20);
}

TEST_CASE("load time: with a rate, transactions already late when due are skipped",
          "[load][cli][intervals]") {
  // 1 client at 1000 tps (a 1 ms mean gap) on 5 ms transactions with a 1 ms limit:
  // each slot is run or skipped, and every one that ran is late (its latency counts
  // from its scheduled start and is at least 5 ms). Some are skipped: the client falls
  // 4 ms behind per transaction run.
  ScratchDir dir;
  storh::test::CliResult run;
  const auto result = run_sleep(dir, "transactions = 40\nrate = 1000\nlatency_limit = \"1ms\"",
                                "{ delay_us = 5000 }", run);
  INFO(run.out << run.err);
  REQUIRE(result != nullptr);
  const auto& load = metric(result, "slow_tx.sleep[clients=1,transactions=40]")["load"];
  for (const auto& repeat : load["repeats"]) {
    const auto processed = repeat["processed"].get<std::uint64_t>();
    const auto skipped = repeat.value("skipped", std::uint64_t{0});
    CHECK(processed + skipped == 40);
    CHECK(skipped > 0);
    CHECK(repeat["late"] == processed);
    CHECK(repeat.contains("lag"));
    CHECK(sum(repeat["intervals"]["skipped"]) == skipped);
    CHECK(sum(repeat["intervals"]["transactions"]) == processed);
    CHECK(repeat["intervals"].contains("lag_mean"));
  }
  CHECK(run.out.find(" skipped") != std::string::npos);
}
