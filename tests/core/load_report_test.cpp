// A load run in the result file, the report's clients x transactions matrices
// (golden files tests/fixtures/golden/load-report.*; STORH_UPDATE_GOLDEN=1 rewrites
// them) and compare's view of load cells.
#include <algorithm>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "compare/comparable.h"
#include "compare_fixtures.h"
#include "report/report.h"
#include "result/json.h"

using storh::test::matches_golden;

namespace {

// One cell of doc.put_get: `tps` per repeat (excluding set-up), 0.1 s set-up.
storh::result::Metric load_metric(std::uint32_t clients, std::uint64_t transactions,
                                  const std::vector<double>& tps, double latency_ms) {
  storh::result::Metric m;
  m.key = fmt::format("doc.put_get[clients={},transactions={}]", clients, transactions);
  m.engine = "doc";
  m.operation = "put_get";
  m.dataset = 1000;
  m.unit = "transactions";
  storh::result::LoadResult load;
  load.clients = clients;
  load.transactions_per_client = transactions;
  const std::uint64_t processed = clients * transactions;
  double sum = 0, including = 0;
  for (double t : tps) {
    const double seconds = static_cast<double>(processed) / t;
    m.samples.push_back({seconds, processed});
    const double items = static_cast<double>(processed);
    storh::result::LoadRepeat r{processed, processed, 0, 0.1, seconds, items / (seconds + 0.1), t};
    load.repeats.push_back(r);
    load.processed += processed;
    sum += t;
    including += r.tps_including_setup;
  }
  load.intended = load.processed;
  load.tps_excluding_setup = sum / static_cast<double>(tps.size());
  load.tps_including_setup = including / static_cast<double>(tps.size());
  load.tps_stddev = 1.5;
  storh::result::Latency latency;
  latency.count = load.processed;
  latency.mean = latency_ms / 1e3;
  latency.stddev = latency_ms / 1e4;
  latency.min = latency_ms / 2e3;
  latency.max = latency_ms * 4 / 1e3;
  latency.p50 = latency_ms * 0.9 / 1e3;
  latency.p95 = latency_ms * 1.5 / 1e3;
  if (latency.count >= 100) latency.p99 = latency_ms * 2 / 1e3;
  if (latency.count >= 1000) latency.p999 = latency_ms * 3 / 1e3;
  load.latency = latency;
  m.load = load;
  // The summary is the samples' own (the reader refuses one that is not).
  const auto [fewest, most] =
      std::minmax_element(m.samples.begin(), m.samples.end(),
                          [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
  m.seconds.runs = tps.size();
  m.seconds.min = fewest->seconds;
  m.seconds.max = most->seconds;
  m.seconds.median = m.seconds.mean = m.samples.front().seconds;
  m.rate = load.tps_excluding_setup;
  return m;
}

storh::result::ResultFile load_result() {
  storh::result::ResultFile r;
  r.experiment.suite = "load-rw";
  r.experiment.datasets = {1000};
  r.experiment.repeat = 2;
  r.experiment.fingerprint = "0123456789abcdef";
  r.experiment.engines = {{"doc", "1.0.0", "storh_doc.so", {"put_get"}}};
  r.environment.cpu_model = "Test CPU";
  r.environment.cpu_count = 2;
  r.environment.build_type = "Release";
  r.metrics = {load_metric(10, 100, {1500, 1520}, 6.5), load_metric(10, 300, {1490, 1500}, 6.7),
               load_metric(30, 100, {1800, 1790}, 16.0), load_metric(30, 300, {1850, 1860}, 16.1)};
  // One cell fell short of its schedule and had failures.
  storh::result::LoadResult& short_cell = *r.metrics[3].load;
  short_cell.repeats[1].processed -= 7;
  short_cell.repeats[1].failed = 7;
  short_cell.processed -= 7;
  short_cell.failed = 7;
  std::sort(r.metrics.begin(), r.metrics.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  return r;
}

// A cell of a bench run: doc.<operation> with synchronous_commit on or off (the side).
storh::result::Metric bench_metric(const std::string& side, const std::string& operation,
                                   std::uint32_t clients, std::uint64_t transactions, double tps) {
  storh::result::Metric m = load_metric(clients, transactions, {tps, tps + 10}, 1000 / tps);
  m.operation = operation;
  m.key = fmt::format("doc.{}[synchronous_commit={},clients={},transactions={}]", operation, side,
                      clients, transactions);
  m.params = {{"synchronous_commit", side}};
  return m;
}

// Two benches over two sides: 10/100 is in both; 50/100 of the "off" side failed.
storh::result::ResultFile bench_result() {
  storh::result::ResultFile r = load_result();
  r.experiment.suite = "pgbench";
  r.experiment.engines = {{"doc", "1.0.0", "storh_doc.so", {"put_get", "get"}}};
  // The suite listed "on" first: the rows follow it, not the keys' order.
  r.experiment.params = {
      {"doc", {{"synchronous_commit", {std::string("on"), std::string("off")}}}}};
  r.experiment.load_benches = {
      {"1: read-write, clients 10..50", {"put_get"}, {{10, 100}, {50, 100}}},
      {"2: read only", {"get"}, {{10, 100}, {30, 300}}}};
  r.metrics.clear();
  for (const std::string side : {"on", "off"}) {
    const double factor = side == "on" ? 1 : 2;
    r.metrics.push_back(bench_metric(side, "put_get", 10, 100, 500 * factor));
    if (side == "on") r.metrics.push_back(bench_metric(side, "put_get", 50, 100, 900));
    r.metrics.push_back(bench_metric(side, "get", 10, 100, 4000 * factor));
    r.metrics.push_back(bench_metric(side, "get", 30, 300, 9000 * factor));
  }
  r.metrics.back().load->failed = 3;  // get 30/300 off: some transactions failed
  std::sort(r.metrics.begin(), r.metrics.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  return r;
}

}  // namespace

TEST_CASE("load report: clients x transactions matrices per metric, text and markdown",
          "[load][report][golden]") {
  const storh::result::ResultFile result = load_result();
  CHECK(matches_golden("load-report.txt",
                       storh::report::render_report(result, storh::report::ReportFormat::text)));
  CHECK(matches_golden("load-report.md", storh::report::render_report(
                                             result, storh::report::ReportFormat::markdown)));
}

TEST_CASE("load report: a result without load metrics has no matrices", "[load][report]") {
  storh::result::ResultFile result = load_result();
  for (auto& metric : result.metrics) metric.load.reset();
  const std::string text = storh::report::render_report(result, storh::report::ReportFormat::text);
  CHECK(text.find("clients x transactions") == std::string::npos);
}

TEST_CASE("load result: the load block reads back as written", "[load][result]") {
  const storh::result::ResultFile written = load_result();
  const auto read =
      storh::result::from_json(nlohmann::json(storh::result::to_json(written)), "load.json");
  REQUIRE(read.ok());
  REQUIRE(read->metrics.size() == 4);
  REQUIRE(read->metrics[3].load.has_value());
  const storh::result::LoadResult& load = *read->metrics[3].load;
  const storh::result::LoadResult& original = *written.metrics[3].load;
  CHECK(load.clients == original.clients);
  CHECK(load.transactions_per_client == original.transactions_per_client);
  CHECK(load.processed == original.processed);
  CHECK(load.intended == original.intended);
  CHECK(load.failed == original.failed);
  CHECK(load.tps_excluding_setup == original.tps_excluding_setup);
  REQUIRE(load.latency.has_value());
  CHECK(load.latency->p95 == original.latency->p95);
  CHECK(load.latency->p999 == original.latency->p999);
  REQUIRE(load.repeats.size() == 2);
  CHECK(load.repeats[1].failed == original.repeats[1].failed);
  // Written twice, the same bytes: the block keeps the file deterministic.
  CHECK(storh::result::to_json_text(read.value()) == storh::result::to_json_text(written));
}

TEST_CASE("load result: a bad value in the load block is an error naming its JSON path",
          "[load][result]") {
  nlohmann::json json(storh::result::to_json(load_result()));
  json["metrics"][3]["load"]["repeats"][1]["lag"] = {{"mean", "slow"}, {"max", 0.1}};
  const auto lag = storh::result::from_json(json, "load.json");
  REQUIRE_FALSE(lag.ok());
  CHECK(lag.error() ==
        "load.json: /metrics/3/load/repeats/1/lag/mean: expected a number, got string");
  json["metrics"][3]["load"]["repeats"][1].erase("lag");
  json["metrics"][3]["load"]["skipped"] = -1;
  const auto skipped = storh::result::from_json(json, "load.json");
  REQUIRE_FALSE(skipped.ok());
  CHECK(skipped.error() ==
        "load.json: /metrics/3/load/skipped: expected a whole number >= 0, got number");
}

TEST_CASE("load compare: a load cell is compared by its tps, more is better", "[load][compare]") {
  const storh::compare::ComparableFile file =
      storh::compare::comparable_from_result(load_result(), "a.json");
  const storh::compare::ComparableMetric* cell =
      file.find("doc.put_get[clients=10,transactions=100]");
  REQUIRE(cell != nullptr);
  CHECK(cell->direction == storh::result::MetricDirection::higher_is_better);
  CHECK(cell->unit == "tps");
  CHECK(cell->samples == std::vector<double>{1500, 1520});
  CHECK(cell->median == 1510);
  CHECK(cell->runs == 2);
}

TEST_CASE("load report: benches print sides x points tables instead of the matrices",
          "[load][report][bench][golden]") {
  const storh::result::ResultFile result = bench_result();
  const std::string text = storh::report::render_report(result, storh::report::ReportFormat::text);
  CHECK(matches_golden("load-bench-report.txt", text));
  CHECK(matches_golden("load-bench-report.md", storh::report::render_report(
                                                   result, storh::report::ReportFormat::markdown)));
  CHECK(text.find("clients x transactions per client") == std::string::npos);
  CHECK(text.find("  1: read-write, clients 10..50: put_get (repeats: 2)\n") != std::string::npos);
  CHECK(text.find("      side \\ clients/transactions  10/100  50/100\n"
                  "      synchronous_commit=on         505.0   905.0\n"
                  "      synchronous_commit=off       1005.0       -\n") != std::string::npos);
}

TEST_CASE("load report: one side without qualifiers is labelled with the engine's name",
          "[load][report][bench]") {
  storh::result::ResultFile result = load_result();
  result.experiment.load_benches = {{"only", {"put_get"}, {{10, 100}, {20, 100}}}};
  const std::string text = storh::report::render_report(result, storh::report::ReportFormat::text);
  CHECK(text.find("  only: put_get (repeats: 2)\n"
                  "    tps excluding set-up\n"
                  "      side \\ clients/transactions  10/100  20/100\n"
                  "      doc                          1510.0       -\n") != std::string::npos);
  // 30/300 failed some transactions but is no point of the bench: no failed grid.
  CHECK(text.find("    failed\n") == std::string::npos);
}

TEST_CASE("load result: benches are written only when the suite has them and read back",
          "[load][result][bench]") {
  const storh::result::ResultFile written = bench_result();
  const nlohmann::ordered_json json = storh::result::to_json(written);
  const auto& benches = json["experiment"]["load_benches"];
  REQUIRE(benches.size() == 2);
  CHECK(benches[0]["name"] == "1: read-write, clients 10..50");
  CHECK(benches[0]["operations"] == nlohmann::ordered_json::array({"put_get"}));
  CHECK(benches[0]["points"][1] ==
        nlohmann::ordered_json({{"clients", 50}, {"transactions", 100}}));
  const auto read = storh::result::from_json(nlohmann::json(json), "bench.json");
  REQUIRE(read.ok());
  CHECK(read->experiment.load_benches == written.experiment.load_benches);
  CHECK(storh::result::to_json_text(*read) == storh::result::to_json_text(written));

  // A file without benches has no key, and one written before them reads as none.
  const nlohmann::ordered_json plain = storh::result::to_json(load_result());
  CHECK_FALSE(plain["experiment"].contains("load_benches"));
  const auto old = storh::result::from_json(nlohmann::json(plain), "old.json");
  REQUIRE(old.ok());
  CHECK(old->experiment.load_benches.empty());

  // A bench point with 0 clients is refused with its path.
  nlohmann::json bad = json;
  bad["experiment"]["load_benches"][0]["points"][0]["clients"] = 0;
  const auto refused = storh::result::from_json(bad, "bad.json");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() ==
        "bad.json: /experiment/load_benches/0/points/0: clients 0 is not a client count (valid: "
        "1 to 4294967295)");
}

TEST_CASE("load report: benches show the schedule lag when a cell has a rate",
          "[load][report][bench]") {
  // Regression: the clients x transactions matrices had lag columns, the bench tables none.
  storh::result::ResultFile result = bench_result();
  CHECK(storh::report::render_report(result, storh::report::ReportFormat::text)
            .find("schedule lag") == std::string::npos);
  for (storh::result::Metric& m : result.metrics) {
    if (m.key != "doc.put_get[synchronous_commit=on,clients=10,transactions=100]") continue;
    m.load->target_rate = 400;
    m.load->lag = storh::result::LoadLag{0.000125, 0.0031};
    m.load->late = 4;
  }
  const std::string text = storh::report::render_report(result, storh::report::ReportFormat::text);
  INFO(text);
  CHECK(text.find("    schedule lag mean (ms)\n"
                  "      side \\ clients/transactions  10/100  50/100\n"
                  "      synchronous_commit=on         0.125       -\n"
                  "      synchronous_commit=off            -       -\n") != std::string::npos);
  CHECK(text.find("    schedule lag max (ms)\n") != std::string::npos);
  CHECK(text.find("      synchronous_commit=on         3.100       -\n") != std::string::npos);
  CHECK(text.find("    late (over latency_limit)\n") != std::string::npos);
  // The other bench has no cell with a rate: no lag grid under it.
  const std::size_t second = text.find("  2: read only: get");
  REQUIRE(second != std::string::npos);
  CHECK(text.find("schedule lag", second) == std::string::npos);
}

TEST_CASE("load report: csv-intervals has one row per interval of each repeat", "[load][report]") {
  // Regression: the interval series reached CSV users only through the JSON.
  storh::result::ResultFile result = load_result();
  storh::result::LoadRepeat& repeat = result.metrics[0].load->repeats[1];
  repeat.run_seconds = 1.25;
  storh::result::LoadIntervals series;
  series.seconds = 0.5;
  series.transactions = {600, 620, 150};
  series.failed = {0, 1, 0};
  series.retries = {0, 0, 2};
  series.late = {0, 3, 0};  // skipped: none, so the result has no column
  series.latency_mean = {0.0065, 0.0066, 0.0064};
  series.latency_stddev = {0.0007, 0.0008, 0.0006};
  series.latency_p50 = {0.006, 0.006, 0.006};
  series.latency_p90 = {0.008, 0.008, 0.008};
  series.latency_p99 = {0.012, 0.013, 0.011};
  series.latency_max = {0.02, 0.03, 0.015};
  repeat.intervals = series;
  const std::string csv =
      storh::report::render_report(result, *storh::report::parse_report_format("csv-intervals"));
  CHECK(csv ==
        "key,engine,operation,repeat,interval,start_seconds,end_seconds,transactions,tps,failed,"
        "retries,skipped,late,latency_mean_seconds,latency_stddev_seconds,latency_p50_seconds,"
        "latency_p90_seconds,latency_p99_seconds,latency_max_seconds,lag_mean_seconds,"
        "lag_max_seconds\n"
        "\"doc.put_get[clients=10,transactions=100]\",doc,put_get,1,0,0,0.5,600,1200,0,0,0,0,"
        "0.0065,0.0007,0.006,0.008,0.012,0.02,,\n"
        "\"doc.put_get[clients=10,transactions=100]\",doc,put_get,1,1,0.5,1,620,1240,1,0,0,3,"
        "0.0066,0.0008,0.006,0.008,0.013,0.03,,\n"
        "\"doc.put_get[clients=10,transactions=100]\",doc,put_get,1,2,1,1.25,150,600,0,2,0,0,"
        "0.0064,0.0006,0.006,0.008,0.011,0.015,,\n");
  // A result without series: the header alone, so a script reads every file alike.
  CHECK(storh::report::render_report(load_result(), storh::report::ReportFormat::csv_intervals) ==
        csv.substr(0, csv.find('\n') + 1));
}
