#include "stats/stats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace storh::stats {
namespace {

constexpr double kNsPerSecond = 1e9;
constexpr std::uint64_t kUint64Max = std::numeric_limits<std::uint64_t>::max();

// Sums saturate rather than wrap: a wrapped sum would give a plausible wrong mean.
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > kUint64Max - b ? kUint64Max : a + b;
}

// A non-negative JSON integer, or nullopt (floats, negatives and other types).
std::optional<std::uint64_t> unsigned_of(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  }
  return std::nullopt;
}

}  // namespace

double median_of_sorted(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return median_of_sorted(values);
}

result::Summary summarize(std::vector<double> values) {
  result::Summary summary;
  if (values.empty()) return summary;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  summary.runs = n;
  summary.min = values.front();
  summary.max = values.back();
  summary.median = median_of_sorted(values);
  summary.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double squares = 0;
    for (double value : values) squares += (value - summary.mean) * (value - summary.mean);
    summary.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  std::vector<double> deviations;
  deviations.reserve(n);
  for (double value : values) deviations.push_back(std::fabs(value - summary.median));
  std::sort(deviations.begin(), deviations.end());
  summary.mad = median_of_sorted(deviations);
  return summary;
}

LatencyHistogram::LatencyHistogram() : counts_(kBucketCount, 0) {}

std::size_t LatencyHistogram::bucket_index(std::uint64_t ns) noexcept {
  if (ns > kMaxTrackableNs) ns = kMaxTrackableNs;
  if (ns < kSubBucketCount) return static_cast<std::size_t>(ns);
  // Exponent e >= kSubBucketBits; the bucket width in [2^e, 2^(e+1)) is 2^(e-bits).
  const int exponent = static_cast<int>(std::bit_width(ns)) - 1;
  const int shift = exponent - kSubBucketBits;
  const auto sub_bucket = static_cast<std::size_t>((ns >> shift) & (kSubBucketCount - 1));
  return static_cast<std::size_t>(shift + 1) * kSubBucketCount + sub_bucket;
}

std::uint64_t LatencyHistogram::bucket_lowest(std::size_t index) noexcept {
  if (index < kSubBucketCount) return index;
  const std::size_t shift = index / kSubBucketCount - 1;
  return (kSubBucketCount + index % kSubBucketCount) << shift;
}

double LatencyHistogram::bucket_value(std::size_t index) noexcept {
  const std::size_t shift = index < kSubBucketCount ? 0 : index / kSubBucketCount - 1;
  const std::uint64_t width = std::uint64_t{1} << shift;
  // The centre of the whole nanoseconds the bucket holds.
  return static_cast<double>(bucket_lowest(index)) + static_cast<double>(width - 1) / 2;
}

void LatencyHistogram::record(double seconds) {
  double ns = std::round(seconds * kNsPerSecond);
  if (!(ns > 0)) ns = 0;  // negative and NaN
  // 2^63 ns is ~292 years; anything beyond is an error value, kept finite.
  constexpr double kCap = 9.2e18;
  record_ns(ns >= kCap ? static_cast<std::uint64_t>(kCap) : static_cast<std::uint64_t>(ns));
}

void LatencyHistogram::record_ns(std::uint64_t ns) {
  ++counts_[bucket_index(ns)];
  min_ns_ = count_ == 0 ? ns : std::min(min_ns_, ns);
  max_ns_ = count_ == 0 ? ns : std::max(max_ns_, ns);
  ++count_;
  sum_ns_ = saturating_add(sum_ns_, ns);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  min_ns_ = count_ == 0 ? other.min_ns_ : std::min(min_ns_, other.min_ns_);
  max_ns_ = count_ == 0 ? other.max_ns_ : std::max(max_ns_, other.max_ns_);
  count_ += other.count_;
  sum_ns_ = saturating_add(sum_ns_, other.sum_ns_);
}

double LatencyHistogram::min() const noexcept {
  return count_ == 0 ? 0 : static_cast<double>(min_ns_) / kNsPerSecond;
}

double LatencyHistogram::max() const noexcept {
  return count_ == 0 ? 0 : static_cast<double>(max_ns_) / kNsPerSecond;
}

double LatencyHistogram::mean() const noexcept {
  if (count_ == 0) return 0;
  return static_cast<double>(sum_ns_) / static_cast<double>(count_) / kNsPerSecond;
}

double LatencyHistogram::percentile(double q) const noexcept {
  if (count_ == 0) return 0;
  if (!(q > 0)) return min();
  if (q >= 1) return max();
  // The rank of the sample at q, 1-based, as HdrHistogram defines it.
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const double value =
          std::clamp(bucket_value(i), static_cast<double>(min_ns_), static_cast<double>(max_ns_));
      return value / kNsPerSecond;
    }
  }
  return max();  // unreachable while the counts add up to count_
}

nlohmann::json LatencyHistogram::to_json() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t i = 0; i < kBucketCount; ++i) {
    if (counts_[i] != 0) buckets.push_back(nlohmann::json::array({i, counts_[i]}));
  }
  return nlohmann::json{{"count", count_},
                        {"sum_ns", sum_ns_},
                        {"min_ns", count_ == 0 ? 0 : min_ns_},
                        {"max_ns", count_ == 0 ? 0 : max_ns_},
                        {"sub_buckets", kSubBucketCount},
                        {"buckets", std::move(buckets)}};
}

Expected<LatencyHistogram> LatencyHistogram::from_json(const nlohmann::json& json) {
  auto fail = [](const std::string& message) -> Expected<LatencyHistogram> {
    return Error{"latency histogram: " + message};
  };
  if (!json.is_object()) return fail(fmt::format("expected an object, got {}", json.type_name()));

  constexpr std::array<const char*, 5> kFields = {"count", "sum_ns", "min_ns", "max_ns",
                                                  "sub_buckets"};
  std::array<std::uint64_t, 5> values{};
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    const auto it = json.find(kFields[i]);
    if (it == json.end()) return fail(fmt::format("missing \"{}\"", kFields[i]));
    const auto value = unsigned_of(*it);
    if (!value) return fail(fmt::format("\"{}\": expected a non-negative integer", kFields[i]));
    values[i] = *value;
  }
  const auto [count, sum_ns, min_ns, max_ns, sub_buckets] = values;
  if (sub_buckets != kSubBucketCount) {
    return fail(
        fmt::format("\"sub_buckets\" is {}, this host uses {}", sub_buckets, kSubBucketCount));
  }
  const auto buckets = json.find("buckets");
  if (buckets == json.end() || !buckets->is_array()) return fail("\"buckets\": expected an array");

  LatencyHistogram histogram;
  std::uint64_t total = 0;
  std::optional<std::size_t> first, last;
  for (std::size_t i = 0; i < buckets->size(); ++i) {
    const nlohmann::json& entry = (*buckets)[i];
    if (!entry.is_array() || entry.size() != 2) {
      return fail(fmt::format("buckets[{}]: expected [index, count]", i));
    }
    const auto index = unsigned_of(entry[0]);
    const auto bucket_count = unsigned_of(entry[1]);
    if (!index || *index >= kBucketCount) {
      return fail(fmt::format("buckets[{}]: index out of range (0..{})", i, kBucketCount - 1));
    }
    if (last && *index <= *last) {
      return fail(fmt::format("buckets[{}]: index {} does not ascend", i, *index));
    }
    if (!bucket_count || *bucket_count == 0) {
      return fail(fmt::format("buckets[{}]: expected a count >= 1", i));
    }
    if (total > kUint64Max - *bucket_count) return fail("bucket counts overflow");
    total += *bucket_count;
    histogram.counts_[*index] = *bucket_count;
    if (!first) first = *index;
    last = *index;
  }
  if (total != count) {
    return fail(fmt::format("bucket counts add up to {}, \"count\" is {}", total, count));
  }
  if (count > 0) {
    if (min_ns > max_ns) return fail("\"min_ns\" is greater than \"max_ns\"");
    if (bucket_index(min_ns) != *first || bucket_index(max_ns) != *last) {
      return fail("\"min_ns\"/\"max_ns\" do not fall in the first/last bucket");
    }
    // The mean must lie in [min, max]; compared without multiplying, which could overflow.
    const std::uint64_t mean_floor = sum_ns / count;
    const std::uint64_t mean_ceil = mean_floor + (sum_ns % count != 0 ? 1 : 0);
    if (mean_floor < min_ns || (mean_ceil > max_ns && sum_ns != kUint64Max)) {
      return fail("\"sum_ns\" is inconsistent with min_ns, max_ns and count");
    }
  } else if (sum_ns != 0 || min_ns != 0 || max_ns != 0) {
    return fail("an empty histogram must have zero sum_ns, min_ns and max_ns");
  }
  histogram.count_ = count;
  histogram.sum_ns_ = sum_ns;
  histogram.min_ns_ = min_ns;
  histogram.max_ns_ = max_ns;
  return histogram;
}

std::uint64_t min_count_for_percentile(double q) noexcept {
  if (!(q < 1)) return kUint64Max;
  if (!(q > 0)) return 1;
  // The epsilon absorbs 1/(1 - 0.9) = 9.999999999999998.
  return static_cast<std::uint64_t>(std::ceil(1 / (1 - q) - 1e-9));
}

std::optional<double> supported_percentile(const LatencyHistogram& histogram, double q) {
  if (histogram.count() < min_count_for_percentile(q)) return std::nullopt;
  return histogram.percentile(q);
}

std::optional<result::Latency> latency_summary(const LatencyHistogram& histogram) {
  if (histogram.count() == 0) return std::nullopt;
  result::Latency latency;
  latency.count = histogram.count();
  latency.mean = histogram.mean();
  latency.min = histogram.min();
  latency.max = histogram.max();
  latency.p50 = supported_percentile(histogram, 0.5);
  latency.p90 = supported_percentile(histogram, 0.9);
  latency.p95 = supported_percentile(histogram, 0.95);
  latency.p99 = supported_percentile(histogram, 0.99);
  latency.p999 = supported_percentile(histogram, 0.999);
  return latency;
}

}  // namespace storh::stats
