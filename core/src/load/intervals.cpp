#include "load/intervals.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "stats/stats.h"

namespace storh::load {
namespace {

using Histogram = stats::LatencyHistogram;

// Adds `other`'s sparse buckets into `into`, both ascending by index.
void merge_buckets(std::vector<std::pair<std::uint32_t, std::uint64_t>>& into,
                   const std::vector<std::pair<std::uint32_t, std::uint64_t>>& other) {
  if (other.empty()) return;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> merged;
  merged.reserve(into.size() + other.size());
  auto a = into.begin();
  auto b = other.begin();
  while (a != into.end() || b != other.end()) {
    if (b == other.end() || (a != into.end() && a->first < b->first)) {
      merged.push_back(*a++);
    } else if (a == into.end() || b->first < a->first) {
      merged.push_back(*b++);
    } else {
      merged.emplace_back(a->first, a->second + b->second);
      ++a, ++b;
    }
  }
  into = std::move(merged);
}

// Six significant digits: the columns are read as figures, and shorter numbers keep
// the result file small.
double rounded(double value) {
  if (value == 0 || !std::isfinite(value)) return 0;
  const double scale = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(value))));
  return std::round(value * scale) / scale;
}

}  // namespace

void IntervalBucket::merge(const IntervalBucket& o) {
  if (o.transactions > 0) {
    latency_min_ns =
        transactions == 0 ? o.latency_min_ns : std::min(latency_min_ns, o.latency_min_ns);
    latency_max_ns = std::max(latency_max_ns, o.latency_max_ns);
  }
  transactions += o.transactions;
  failed += o.failed;
  retries += o.retries;
  skipped += o.skipped;
  late += o.late;
  latency_sum_ns += o.latency_sum_ns;
  latency_sum_squares += o.latency_sum_squares;
  lag_count += o.lag_count;
  lag_sum_ns += o.lag_sum_ns;
  lag_max_ns = std::max(lag_max_ns, o.lag_max_ns);
  merge_buckets(latency, o.latency);
}

double IntervalBucket::latency_percentile(double q) const {
  if (transactions == 0) return 0;
  const auto min = static_cast<double>(latency_min_ns);
  const auto max = static_cast<double>(latency_max_ns);
  if (!(q > 0)) return min / 1e9;
  if (q >= 1) return max / 1e9;
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(transactions)));
  rank = std::clamp<std::uint64_t>(rank, 1, transactions);
  std::uint64_t seen = 0;
  for (const auto& [index, count] : latency) {
    seen += count;
    if (seen >= rank) return std::clamp(Histogram::bucket_value(index), min, max) / 1e9;
  }
  return max / 1e9;
}

IntervalSeries::IntervalSeries(std::int64_t width_ns)
    : width_ns_(std::max<std::int64_t>(1, width_ns)) {}

void IntervalSeries::record(std::int64_t end_ns, const TransactionMark& mark) {
  end_ns = std::max<std::int64_t>(0, end_ns);
  std::int64_t index = end_ns / width_ns_;
  if (index != open_index_) {
    finish();
    while (index >= static_cast<std::int64_t>(kMaxIntervals)) {
      coarsen();
      index = end_ns / width_ns_;
    }
    open_index_ = index;
  }
  IntervalBucket& b = open_;
  b.retries += mark.retries;
  if (mark.skipped) {
    ++b.skipped;
    return;
  }
  if (!mark.ok) {
    ++b.failed;
    return;
  }
  const auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, mark.latency_ns));
  b.latency_min_ns = b.transactions == 0 ? ns : std::min(b.latency_min_ns, ns);
  b.latency_max_ns = std::max(b.latency_max_ns, ns);
  ++b.transactions;
  b.latency_sum_ns += ns;
  const double seconds = static_cast<double>(ns) / 1e9;
  b.latency_sum_squares += seconds * seconds;
  if (mark.late) ++b.late;
  if (mark.lag_ns >= 0) {
    ++b.lag_count;
    b.lag_sum_ns += static_cast<std::uint64_t>(mark.lag_ns);
    b.lag_max_ns = std::max(b.lag_max_ns, static_cast<std::uint64_t>(mark.lag_ns));
  }
  if (dense_.empty()) dense_.assign(Histogram::kBucketCount, 0);
  const auto bucket = static_cast<std::uint32_t>(Histogram::bucket_index(ns));
  if (dense_[bucket]++ == 0) touched_.push_back(bucket);
}

void IntervalSeries::finish() {
  if (open_index_ < 0) return;
  std::sort(touched_.begin(), touched_.end());
  open_.latency.clear();
  for (const std::uint32_t bucket : touched_) {
    open_.latency.emplace_back(bucket, dense_[bucket]);
    dense_[bucket] = 0;
  }
  touched_.clear();
  const auto at = static_cast<std::size_t>(open_index_);
  if (closed_.size() <= at) closed_.resize(at + 1);
  closed_[at].merge(open_);  // the slot may hold part of it already, after a coarsening
  open_ = IntervalBucket{};
  open_index_ = -1;
}

void IntervalSeries::coarsen() {
  std::vector<IntervalBucket> wider((closed_.size() + 1) / 2);
  for (std::size_t i = 0; i < closed_.size(); ++i) wider[i / 2].merge(closed_[i]);
  closed_ = std::move(wider);
  width_ns_ *= 2;
}

void IntervalSeries::merge(IntervalSeries other) {
  finish();
  other.finish();
  if (other.closed_.empty()) return;  // a client that ran nothing says nothing of widths
  if (closed_.empty()) {
    *this = std::move(other);
    return;
  }
  // Widths are the same asked width times powers of two: coarsen the narrower. Series
  // of unrelated widths would never meet; the bound keeps that a wrong series, not a
  // hang.
  for (int step = 0; step < 64 && width_ns_ != other.width_ns_; ++step) {
    if (width_ns_ < other.width_ns_) {
      coarsen();
    } else {
      other.coarsen();
    }
  }
  if (closed_.size() < other.closed_.size()) closed_.resize(other.closed_.size());
  for (std::size_t i = 0; i < other.closed_.size(); ++i) closed_[i].merge(other.closed_[i]);
}

nlohmann::json IntervalSeries::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const IntervalBucket& b : closed_) {
    nlohmann::json latency = nlohmann::json::array();
    for (const auto& [index, count] : b.latency) {
      latency.push_back(index);
      latency.push_back(count);
    }
    list.push_back({b.transactions, b.failed, b.retries, b.skipped, b.late, b.latency_sum_ns,
                    b.latency_sum_squares, b.latency_min_ns, b.latency_max_ns, b.lag_count,
                    b.lag_sum_ns, b.lag_max_ns, std::move(latency)});
  }
  return {{"width_ns", width_ns_}, {"intervals", std::move(list)}};
}

IntervalSeries IntervalSeries::read(const JsonNode& node) {
  const JsonNode width = node.at("width_ns");
  if (width.integer() <= 0) width.refuse("must be > 0");
  IntervalSeries series(width.integer());
  const std::vector<JsonNode> rows = node.at("intervals").items();
  if (rows.size() > kMaxIntervals) node.at("intervals").refuse("too many intervals");
  for (const JsonNode& row : rows) {
    const std::vector<JsonNode> v = row.items();
    if (v.size() != 13) row.refuse(fmt::format("expected 13 values, got {}", v.size()));
    IntervalBucket b;
    b.transactions = v[0].count();
    b.failed = v[1].count();
    b.retries = v[2].count();
    b.skipped = v[3].count();
    b.late = v[4].count();
    b.latency_sum_ns = v[5].count();
    b.latency_sum_squares = v[6].number();
    b.latency_min_ns = v[7].count();
    b.latency_max_ns = v[8].count();
    b.lag_count = v[9].count();
    b.lag_sum_ns = v[10].count();
    b.lag_max_ns = v[11].count();
    const std::vector<JsonNode> latency = v[12].items();
    if (latency.size() % 2 != 0) v[12].refuse("expected pairs of a bucket and its count");
    std::uint64_t total = 0;
    for (std::size_t i = 0; i + 1 < latency.size(); i += 2) {
      const std::uint64_t index = latency[i].count();
      if (index >= Histogram::kBucketCount ||
          (!b.latency.empty() && index <= b.latency.back().first)) {
        latency[i].refuse(fmt::format("bucket {} out of order or range", index));
      }
      b.latency.emplace_back(static_cast<std::uint32_t>(index), latency[i + 1].count());
      total += b.latency.back().second;
    }
    if (total != b.transactions) v[12].refuse("latency buckets do not add up to transactions");
    series.closed_.push_back(std::move(b));
  }
  return series;
}

result::LoadIntervals IntervalSeries::columns(bool with_lag) const {
  result::LoadIntervals c;
  c.seconds = static_cast<double>(width_ns_) / 1e9;
  for (const IntervalBucket& b : closed_) {
    c.transactions.push_back(b.transactions);
    c.failed.push_back(b.failed);
    c.retries.push_back(b.retries);
    c.skipped.push_back(b.skipped);
    c.late.push_back(b.late);
    const auto n = static_cast<double>(b.transactions);
    const double mean = b.transactions > 0 ? static_cast<double>(b.latency_sum_ns) / n / 1e9 : 0;
    double stddev = 0;
    if (b.transactions > 1) {
      const double variance = (b.latency_sum_squares - n * mean * mean) / (n - 1);
      stddev = variance > 0 ? std::sqrt(variance) : 0;
    }
    c.latency_mean.push_back(rounded(mean));
    c.latency_stddev.push_back(rounded(stddev));
    c.latency_p50.push_back(rounded(b.latency_percentile(0.5)));
    c.latency_p90.push_back(rounded(b.latency_percentile(0.9)));
    c.latency_p99.push_back(rounded(b.latency_percentile(0.99)));
    c.latency_max.push_back(rounded(static_cast<double>(b.latency_max_ns) / 1e9));
    if (with_lag) {
      const double lag = b.lag_count > 0 ? static_cast<double>(b.lag_sum_ns) /
                                               static_cast<double>(b.lag_count) / 1e9
                                         : 0;
      c.lag_mean.push_back(rounded(lag));
      c.lag_max.push_back(rounded(static_cast<double>(b.lag_max_ns) / 1e9));
    }
  }
  return c;
}

}  // namespace storh::load
