#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using storh::stats::LatencyHistogram;

namespace {

// The exact value at quantile q with the histogram's rank rule (ceil(q * n)-th smallest).
double exact_percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  rank = std::clamp<std::size_t>(rank, 1, values.size());
  return values[rank - 1];
}

void percentiles_should_be_within_one_percent(const std::vector<double>& seconds) {
  LatencyHistogram histogram;
  for (double value : seconds) histogram.record(value);
  for (double q : {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999}) {
    const double exact = exact_percentile(seconds, q);
    INFO("q = " << q << ", exact = " << exact);
    CHECK(histogram.percentile(q) == Approx(exact).epsilon(0.01));
  }
}

// from_json must reject `json` with an error mentioning `expected`.
void histogram_json_should_fail(const std::string& json_text, const std::string& expected) {
  INFO(json_text);
  const auto histogram = LatencyHistogram::from_json(nlohmann::json::parse(json_text));
  REQUIRE_FALSE(histogram.ok());
  CHECK_THAT(histogram.error(), Catch::Matchers::Contains(expected));
}

}  // namespace

TEST_CASE("summarize: odd count takes the middle value", "[stats]") {
  const auto summary = storh::stats::summarize({3.0, 1.0, 2.0});
  CHECK(summary.runs == 3);
  CHECK(summary.median == 2.0);
  CHECK(summary.min == 1.0);
  CHECK(summary.max == 3.0);
  CHECK(summary.mean == Approx(2.0));
  CHECK(summary.stddev == Approx(1.0));
}

TEST_CASE("summarize: even count takes the mean of the two middle values", "[stats]") {
  const auto summary = storh::stats::summarize({4.0, 1.0, 3.0, 2.0});
  CHECK(summary.runs == 4);
  CHECK(summary.median == Approx(2.5));
  CHECK(summary.mean == Approx(2.5));
  CHECK(summary.stddev == Approx(std::sqrt(5.0 / 3.0)));  // n - 1 in the denominator
}

TEST_CASE("summarize: one value has zero stddev", "[stats]") {
  const auto summary = storh::stats::summarize({0.25});
  CHECK(summary.runs == 1);
  CHECK(summary.median == 0.25);
  CHECK(summary.min == 0.25);
  CHECK(summary.max == 0.25);
  CHECK(summary.mean == 0.25);
  CHECK(summary.stddev == 0.0);
}

TEST_CASE("summarize: empty input gives zero runs and zeros", "[stats]") {
  const auto summary = storh::stats::summarize({});
  CHECK(summary.runs == 0);
  CHECK(summary.median == 0.0);
  CHECK(summary.min == 0.0);
  CHECK(summary.max == 0.0);
  CHECK(summary.mean == 0.0);
  CHECK(summary.stddev == 0.0);
}

TEST_CASE("histogram: bucket arithmetic is consistent and bounded", "[stats][histogram]") {
  CHECK(LatencyHistogram::bucket_index(0) == 0);
  CHECK(LatencyHistogram::bucket_index(255) == 255);  // exact below 256 ns
  for (std::uint64_t ns : {256ULL, 1000ULL, 123456ULL, 999999999ULL, 3600000000000ULL}) {
    const std::size_t index = LatencyHistogram::bucket_index(ns);
    INFO("ns = " << ns);
    CHECK(LatencyHistogram::bucket_lowest(index) <= ns);
    CHECK(ns < LatencyHistogram::bucket_lowest(index + 1));
    CHECK(std::abs(LatencyHistogram::bucket_value(index) - static_cast<double>(ns)) <=
          static_cast<double>(ns) / 256);
  }
  CHECK(LatencyHistogram::bucket_index(LatencyHistogram::kMaxTrackableNs) ==
        LatencyHistogram::kBucketCount - 1);
  CHECK(LatencyHistogram::bucket_index(~0ULL) == LatencyHistogram::kBucketCount - 1);
}

TEST_CASE("histogram: count, min, max and mean are exact", "[stats][histogram]") {
  LatencyHistogram histogram;
  CHECK(histogram.count() == 0);
  CHECK(histogram.min() == 0.0);
  CHECK(histogram.percentile(0.5) == 0.0);
  histogram.record_ns(1001);
  histogram.record_ns(2003);
  histogram.record(3e-6);
  CHECK(histogram.count() == 3);
  CHECK(histogram.min() == Approx(1001e-9));
  CHECK(histogram.max() == Approx(3000e-9));
  CHECK(histogram.mean() == Approx(2001.3333333e-9));
  CHECK(histogram.percentile(0) == histogram.min());
  CHECK(histogram.percentile(1) == histogram.max());
}

TEST_CASE("histogram: values beyond the range keep an exact max", "[stats][histogram]") {
  LatencyHistogram histogram;
  histogram.record(2 * 3600.0);  // two hours, past kMaxTrackableNs
  histogram.record(-1.0);        // counts as 0
  CHECK(histogram.count() == 2);
  CHECK(histogram.max() == Approx(7200.0));
  CHECK(histogram.min() == 0.0);
  CHECK(histogram.percentile(0.99) <= histogram.max());
}

TEST_CASE("histogram: percentiles are within 1% of exact on known distributions",
          "[stats][histogram]") {
  SECTION("uniform from 1 us to 10 ms") {
    std::vector<double> values;
    for (int i = 1; i <= 10000; ++i) values.push_back(i * 1e-6);
    percentiles_should_be_within_one_percent(values);
  }
  SECTION("log-normal around 50 us with a long tail") {
    std::mt19937_64 random(42);
    std::lognormal_distribution<double> distribution(std::log(50e-6), 1.0);
    std::vector<double> values;
    for (int i = 0; i < 20000; ++i) values.push_back(distribution(random));
    percentiles_should_be_within_one_percent(values);
  }
  SECTION("bimodal: cache hits at 200 ns, misses at 300 us") {
    std::vector<double> values;
    for (int i = 0; i < 9000; ++i) values.push_back(200e-9 + (i % 7) * 1e-9);
    for (int i = 0; i < 1000; ++i) values.push_back(300e-6 + i * 1e-7);
    percentiles_should_be_within_one_percent(values);
  }
}

TEST_CASE("histogram: merge equals recording all values into one", "[stats][histogram]") {
  LatencyHistogram first, second, all;
  for (std::uint64_t i = 1; i < 5000; ++i) {
    const std::uint64_t ns = i * i * 37 % 10000019;
    (i % 3 == 0 ? first : second).record_ns(ns);
    all.record_ns(ns);
  }
  LatencyHistogram merged;
  merged.merge(first);
  merged.merge(second);
  merged.merge(LatencyHistogram{});  // merging an empty histogram changes nothing
  CHECK(merged == all);
  CHECK(merged.percentile(0.9) == all.percentile(0.9));
}

TEST_CASE("histogram: JSON round-trip keeps every value", "[stats][histogram]") {
  LatencyHistogram histogram;
  for (std::uint64_t ns : {5ULL, 5ULL, 900ULL, 123456ULL, 77777777ULL}) histogram.record_ns(ns);
  const nlohmann::json json = histogram.to_json();
  CHECK(json["count"] == 5);
  CHECK(json["buckets"].size() == 4);  // only non-empty buckets
  CHECK(json["buckets"][0] == nlohmann::json::array({5, 2}));

  const auto back = LatencyHistogram::from_json(nlohmann::json::parse(json.dump()));
  REQUIRE(back.ok());
  CHECK(back.value() == histogram);

  const auto empty = LatencyHistogram::from_json(LatencyHistogram{}.to_json());
  REQUIRE(empty.ok());
  CHECK(empty->count() == 0);
}

TEST_CASE("histogram: malformed JSON is rejected with a reason", "[stats][histogram]") {
  const std::string tail = R"("sub_buckets":128,"buckets":[[10,1],[200,1]]})";
  const std::string good = R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,)" + tail;
  REQUIRE(LatencyHistogram::from_json(nlohmann::json::parse(good)).ok());

  histogram_json_should_fail("[1,2]", "expected an object, got array");
  histogram_json_should_fail(R"({"sum_ns":1})", "missing \"count\"");
  histogram_json_should_fail(R"({"count":-2,"sum_ns":210,"min_ns":10,"max_ns":200,)" + tail,
                             "\"count\": expected a non-negative integer");
  histogram_json_should_fail(R"({"count":2.5,"sum_ns":210,"min_ns":10,"max_ns":200,)" + tail,
                             "\"count\": expected a non-negative integer");
  histogram_json_should_fail(R"({"count":3,"sum_ns":210,"min_ns":10,"max_ns":200,)" + tail,
                             "bucket counts add up to 2, \"count\" is 3");
  histogram_json_should_fail(
      R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,"sub_buckets":64,"buckets":[]})",
      "\"sub_buckets\" is 64");
  histogram_json_should_fail(
      R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,"sub_buckets":128,"buckets":{}})",
      "\"buckets\": expected an array");
  histogram_json_should_fail(
      R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,"sub_buckets":128,
          "buckets":[[10,1],[99999,1]]})",
      "buckets[1]: index out of range");
  histogram_json_should_fail(
      R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,"sub_buckets":128,
          "buckets":[[200,1],[10,1]]})",
      "buckets[1]: index 10 does not ascend");
  histogram_json_should_fail(
      R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,"sub_buckets":128,
          "buckets":[[10,2],[200,0]]})",
      "buckets[1]: expected a count >= 1");
  histogram_json_should_fail(
      R"({"count":2,"sum_ns":210,"min_ns":10,"max_ns":200,"sub_buckets":128,
          "buckets":[[10,1,3],[200,1]]})",
      "buckets[0]: expected [index, count]");
  histogram_json_should_fail(R"({"count":2,"sum_ns":210,"min_ns":11,"max_ns":200,)" + tail,
                             "do not fall in the first/last bucket");
  histogram_json_should_fail(R"({"count":2,"sum_ns":9999,"min_ns":10,"max_ns":200,)" + tail,
                             "\"sum_ns\" is inconsistent");
  histogram_json_should_fail(
      R"({"count":0,"sum_ns":5,"min_ns":0,"max_ns":0,"sub_buckets":128,"buckets":[]})",
      "empty histogram");
}

TEST_CASE("latency summary: percentiles appear only when the sample count supports them",
          "[stats][histogram]") {
  CHECK(storh::stats::min_count_for_percentile(0.5) == 2);
  CHECK(storh::stats::min_count_for_percentile(0.9) == 10);
  CHECK(storh::stats::min_count_for_percentile(0.99) == 100);
  CHECK(storh::stats::min_count_for_percentile(0.999) == 1000);

  CHECK_FALSE(storh::stats::latency_summary(LatencyHistogram{}).has_value());

  auto summary_of = [](std::uint64_t count) {
    LatencyHistogram histogram;
    for (std::uint64_t i = 1; i <= count; ++i) histogram.record_ns(i * 1000);
    return storh::stats::latency_summary(histogram).value();
  };
  const auto one = summary_of(1);
  CHECK(one.count == 1);
  CHECK(one.min == Approx(1e-6));
  CHECK(one.max == Approx(1e-6));
  CHECK(one.mean == Approx(1e-6));
  CHECK_FALSE(one.p50.has_value());

  CHECK(summary_of(2).p50.has_value());
  CHECK_FALSE(summary_of(9).p90.has_value());
  CHECK(summary_of(10).p90.has_value());
  CHECK_FALSE(summary_of(99).p99.has_value());
  CHECK(summary_of(100).p99.has_value());
  CHECK_FALSE(summary_of(999).p999.has_value());

  const auto thousand = summary_of(1000);
  REQUIRE(thousand.p999.has_value());
  CHECK(*thousand.p50 == Approx(500e-6).epsilon(0.01));
  CHECK(*thousand.p999 == Approx(999e-6).epsilon(0.01));
}
