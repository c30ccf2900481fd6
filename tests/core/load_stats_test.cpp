// Load runs' statistics: latency histograms merged over clients against exact
// percentiles, the "no percentile from too few samples" rule, and per-cell summaries.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "load/outcome.h"
#include "load/summary.h"

using storh::load::LatencyRecord;
using storh::load::LoadOutcome;

namespace {

// Nearest rank, as the histogram defines a percentile: the ceil(q * n)-th smallest.
double exact_percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

}  // namespace

TEST_CASE("load: client histograms merged give percentiles within 0.4% of exact ones",
          "[load][stats]") {
  std::mt19937_64 random(20261130);
  std::lognormal_distribution<double> latency(std::log(800e-6), 0.6);  // ~0.8 ms, long tail
  constexpr int kClients = 8;
  std::vector<LatencyRecord> clients(kClients);
  std::vector<double> all;
  for (int i = 0; i < 40'000; ++i) {
    // Round to whole nanoseconds as the histogram does, so "exact" means the same data.
    const double value = std::round(latency(random) * 1e9) / 1e9;
    clients[static_cast<std::size_t>(i % kClients)].record(value);
    all.push_back(value);
  }
  LatencyRecord merged;
  for (const LatencyRecord& client : clients) merged.merge(client);
  REQUIRE(merged.histogram.count() == all.size());

  for (double q : {0.5, 0.95, 0.99, 0.999}) {
    const double exact = exact_percentile(all, q);
    INFO("q=" << q << " exact " << exact << " histogram " << merged.histogram.percentile(q));
    CHECK(std::fabs(merged.histogram.percentile(q) - exact) <= exact * 0.004);
  }
  CHECK(merged.histogram.max() == *std::max_element(all.begin(), all.end()));

  double mean = 0;
  for (double v : all) mean += v;
  mean /= static_cast<double>(all.size());
  double squares = 0;
  for (double v : all) squares += (v - mean) * (v - mean);
  const double stddev = std::sqrt(squares / static_cast<double>(all.size() - 1));
  CHECK(merged.stddev() == Approx(stddev).epsilon(1e-6));
  CHECK(merged.histogram.mean() == Approx(mean).epsilon(1e-9));
}

TEST_CASE("load: a percentile is reported only when enough transactions support it",
          "[load][stats]") {
  LatencyRecord record;
  for (int i = 1; i <= 50; ++i) record.record(i * 1e-3);
  const auto latency = storh::load::load_latency(record);
  REQUIRE(latency.has_value());
  CHECK(latency->count == 50);
  CHECK(latency->p50.has_value());         // needs 2
  CHECK(latency->p95.has_value());         // needs 20
  CHECK_FALSE(latency->p99.has_value());   // needs 100
  CHECK_FALSE(latency->p999.has_value());  // needs 1000
  CHECK(latency->max == Approx(0.050));
  CHECK(latency->min == Approx(0.001));

  CHECK_FALSE(storh::load::load_latency(LatencyRecord{}).has_value());
}

TEST_CASE("load: a cell's summary averages tps over repeats and sums what was intended",
          "[load][stats]") {
  storh::load::LoadConfig config;
  config.clients = 2;
  config.transactions = 50;
  std::vector<LoadOutcome> repeats(2);
  repeats[0].clients = 2;
  repeats[0].intended = 100;
  repeats[0].processed = 100;
  repeats[0].setup_seconds = 1;
  repeats[0].run_seconds = 1;
  repeats[1] = repeats[0];
  repeats[1].processed = 98;
  repeats[1].failed = 2;
  repeats[1].run_seconds = 0.5;
  for (int i = 0; i < 10; ++i) repeats[0].latency.record(0.002);

  const storh::result::LoadResult load = storh::load::summarize_load(config, repeats);
  CHECK(load.clients == 2);
  CHECK(load.mode == "threads");
  CHECK(load.transactions_per_client == 50);
  CHECK_FALSE(load.duration_seconds.has_value());
  CHECK(load.processed == 198);
  CHECK(load.intended == 200);
  CHECK(load.failed == 2);
  REQUIRE(load.repeats.size() == 2);
  CHECK(load.repeats[1].tps_excluding_setup == Approx(196));
  CHECK(load.repeats[1].tps_including_setup == Approx(98 / 1.5));
  CHECK(load.tps_excluding_setup == Approx((100 + 196) / 2.0));
  CHECK(load.tps_including_setup == Approx((50 + 98 / 1.5) / 2.0));
  REQUIRE(load.latency.has_value());
  CHECK(load.latency->count == 10);
  CHECK(load.latency->stddev == Approx(0).margin(1e-12));
}

TEST_CASE("load: a duration run without a rate has no intended count", "[load][stats]") {
  storh::load::LoadConfig config;
  config.duration_seconds = 1;
  std::vector<LoadOutcome> repeats(1);
  repeats[0].processed = 10;
  repeats[0].run_seconds = 1;
  const auto load = storh::load::summarize_load(config, repeats);
  CHECK_FALSE(load.intended.has_value());
  CHECK(load.duration_seconds == 1.0);
}

TEST_CASE("load: outcomes travel as JSON unchanged", "[load][stats]") {
  LoadOutcome outcome;
  outcome.clients = 3;
  outcome.intended = 30;
  outcome.processed = 29;
  outcome.failed = 1;
  outcome.warmup = 6;
  outcome.first_error = "client 2: wrong answer";
  outcome.setup_seconds = 0.25;
  outcome.run_seconds = 1.5;
  outcome.latency.record(0.001);
  outcome.latency.record(0.003);
  const auto back = storh::load::load_outcome_from_json(storh::load::to_json(outcome));
  REQUIRE(back.ok());
  CHECK(back->clients == 3);
  CHECK(back->intended == 30);
  CHECK(back->processed == 29);
  CHECK(back->failed == 1);
  CHECK(back->warmup == 6);
  CHECK(back->first_error == "client 2: wrong answer");
  CHECK(back->latency.histogram == outcome.latency.histogram);
  CHECK(back->latency.stddev() == Approx(outcome.latency.stddev()));
  CHECK_FALSE(storh::load::load_outcome_from_json(nlohmann::json::object()).ok());
}
