// stats/stats.h: the statistics behind a metric: a summary of repeat samples and a
// latency histogram for per-item timings (measure_each).
//
// Everything here is a plain value type with no global state. Not thread-safe: a
// worker records into one histogram per operation from one thread, then sends it to
// the host as JSON, where histograms of the repeats are merged.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "result/result.h"
#include "util/expected.h"

namespace storh::stats {

// Summary of samples (seconds): runs, median (mean of the two middle values for an
// even count), min, max, mean and sample standard deviation (n-1; 0 for one value).
// Empty input gives runs = 0 and all zeros. Values must be finite.
// Also the median absolute deviation (mad), robust to one outlier repeat.
result::Summary summarize(std::vector<double> values);

// The median of values sorted ascending: the middle one, or the mean of the two middle
// ones for an even count; 0 for none. Every median in storh-host is this one.
double median_of_sorted(std::span<const double> sorted);
// The median of values in any order (a sorted copy); 0 for none.
double median_of(std::vector<double> values);

// A coefficient of variation above this makes a metric's median untrustworthy for a
// gate at a 10% threshold (stats/spread.h judges it against the run's own noise).
inline constexpr double kMaxTrustedVariation = 0.10;
// Fewest samples per side for a two-sided Mann-Whitney test to reach p < 0.05
// (compare/mann_whitney.h): 2 / C(8, 4) = 0.029.
inline constexpr std::size_t kMinSamplesForSignificance = 4;

// A log-linear histogram of durations, HdrHistogram-style. Values are kept in whole
// nanoseconds: exactly below 256 ns, and above that in 128 sub-buckets per power of
// two, so a bucket spans at most 1/128 of its value and the representative value
// (the bucket's centre) is within 0.4% of any value recorded in it. The range is
// 0 ns to kMaxTrackableNs (about 73 minutes); longer values are counted in the top
// bucket, while count, min, max and the mean stay exact for every value.
class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr std::uint64_t kSubBucketCount = std::uint64_t{1} << kSubBucketBits;
  static constexpr int kMaxExponent = 41;  // highest power of two tracked: 2^41 ns
  static constexpr std::uint64_t kMaxTrackableNs = (std::uint64_t{1} << (kMaxExponent + 1)) - 1;
  static constexpr std::size_t kBucketCount = (kMaxExponent - kSubBucketBits + 2) * kSubBucketCount;

  LatencyHistogram();

  // Records one duration. Negative or NaN seconds count as 0; seconds are rounded to
  // the nearest nanosecond.
  void record(double seconds);
  void record_ns(std::uint64_t ns);

  // Adds every value recorded in `other`; the result equals recording both streams
  // into one histogram.
  void merge(const LatencyHistogram& other);

  std::uint64_t count() const noexcept { return count_; }
  // In seconds; 0 when empty. min, max and mean are exact (to the nanosecond).
  double min() const noexcept;
  double max() const noexcept;
  double mean() const noexcept;

  // The value (seconds) at quantile q: the representative value of the bucket holding
  // the ceil(q * count)-th smallest sample, clamped to [min, max]. q is clamped to
  // [0, 1]; q = 0 gives min and q = 1 gives max. 0 when empty.
  double percentile(double q) const noexcept;

  // Compact form for sending from a worker to the host; only non-empty buckets:
  // {"count":n,"sum_ns":s,"min_ns":a,"max_ns":b,"sub_buckets":128,
  //  "buckets":[[index,count],...]} with indices ascending.
  nlohmann::json to_json() const;

  // Reads to_json()'s form. Never throws on bad input: the error says what is wrong
  // and where ("latency histogram: buckets[2]: index out of range (0..4607)").
  // Checks types, ranges, ascending unique indices, that bucket counts add up to
  // count, and that min, max and sum agree with the buckets.
  static Expected<LatencyHistogram> from_json(const nlohmann::json& json);

  // Bucket arithmetic, exposed for tests: the index of a value, and the lowest and
  // representative values (ns) of a bucket.
  static std::size_t bucket_index(std::uint64_t ns) noexcept;
  static std::uint64_t bucket_lowest(std::size_t index) noexcept;
  static double bucket_value(std::size_t index) noexcept;

  friend bool operator==(const LatencyHistogram&, const LatencyHistogram&) = default;

 private:
  std::vector<std::uint64_t> counts_;  // kBucketCount entries
  std::uint64_t count_ = 0;
  std::uint64_t sum_ns_ = 0;
  std::uint64_t min_ns_ = 0;  // meaningful only when count_ > 0
  std::uint64_t max_ns_ = 0;
};

// The rule for which percentiles a sample count supports: pXX is reported only when,
// in expectation, at least one sample lies above it, i.e. count * (1 - q) >= 1. With
// fewer samples the "percentile" is just the maximum and says nothing about the tail.
// So p50 needs >= 2 samples, p90 >= 10, p99 >= 100 and p99.9 >= 1000.
std::uint64_t min_count_for_percentile(double q) noexcept;

// histogram.percentile(q) when the histogram holds enough samples for it
// (min_count_for_percentile), else nullopt.
std::optional<double> supported_percentile(const LatencyHistogram& histogram, double q);

// The latency summary of a metric or a load cell: nullopt for an empty histogram;
// count, mean, min and max always; p50, p90, p95, p99 and p999 each only when
// min_count_for_percentile allows; stddev 0 (the histogram cannot give it exactly).
std::optional<result::Latency> latency_summary(const LatencyHistogram& histogram);

}  // namespace storh::stats
