// load/intervals.h: a load phase over time. Each client records its timed transactions
// into buckets of a fixed width from the common start, by the time each one ended
// (pgbench's -P and --aggregate-interval count the same way); the coordinator merges
// the clients' series and turns the merged one into the result's columns.
//
// One IntervalSeries belongs to one client and is used by one thread: no locks, no
// atomics. A process client sends its series to the worker as JSON with its outcome.
// A series holds at most kMaxIntervals buckets: when a run outgrows them, adjacent
// pairs merge and the width doubles, so a long run stays bounded and the effective
// width is always the asked one times a power of two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "result/result.h"
#include "util/json_node.h"

namespace storh::load {

// One timed transaction as the interval series sees it.
struct TransactionMark {
  bool ok = true;
  bool skipped = false;         // never run: already later than latency_limit when due
  bool late = false;            // ok, but slower than latency_limit
  std::int64_t latency_ns = 0;  // ok ones: from the scheduled start with a rate
  std::uint32_t retries = 0;    // retries of this transaction (TransactionReport)
  std::int64_t lag_ns = -1;     // with a rate: start minus scheduled start; < 0: none
};

// One interval's figures, summable over clients and adjacent intervals. Latencies are
// kept as histogram buckets (stats::LatencyHistogram's bucket indices), sparse.
struct IntervalBucket {
  std::uint64_t transactions = 0;  // ok
  std::uint64_t failed = 0;
  std::uint64_t retries = 0;
  std::uint64_t skipped = 0;
  std::uint64_t late = 0;
  std::uint64_t latency_sum_ns = 0;
  double latency_sum_squares = 0;                        // seconds^2
  std::uint64_t latency_min_ns = 0, latency_max_ns = 0;  // meaningful when transactions > 0
  std::uint64_t lag_count = 0, lag_sum_ns = 0, lag_max_ns = 0;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> latency;  // (bucket, count), ascending

  void merge(const IntervalBucket& other);
  // The latency at quantile q in [0, 1] (seconds), as LatencyHistogram::percentile
  // computes it from the same buckets; 0 without transactions.
  double latency_percentile(double q) const;
};

class IntervalSeries {
 public:
  static constexpr std::size_t kMaxIntervals = 300;

  // `width_ns` > 0: the asked interval.
  explicit IntervalSeries(std::int64_t width_ns = 1'000'000'000);

  // A transaction that ended `end_ns` after the common start (clamped at 0). Ends are
  // non-decreasing, as one client's are.
  void record(std::int64_t end_ns, const TransactionMark& mark);
  // Closes the open interval; call before reading, merging or sending the series.
  void finish();
  // Adds a series of the same phase (same asked width); the wider width wins. An empty
  // series (a client that ran nothing) changes nothing, whatever its width.
  void merge(IntervalSeries other);

  std::int64_t width_ns() const { return width_ns_; }
  const std::vector<IntervalBucket>& intervals() const { return closed_; }

  nlohmann::json to_json() const;  // of a finished series
  // to_json's form read back; throws BadJsonValue naming the JSON path of a bad value.
  static IntervalSeries read(const JsonNode& node);

  // The result's columns (result::LoadIntervals); lag columns when `with_lag`.
  result::LoadIntervals columns(bool with_lag) const;

 private:
  void coarsen();  // merges adjacent pairs; the width doubles

  std::int64_t width_ns_;
  std::vector<IntervalBucket> closed_;
  // The open interval: its index, its figures, and its latencies in a dense array
  // (cheap to record into) with the list of buckets it touched (cheap to clear).
  std::int64_t open_index_ = -1;
  IntervalBucket open_;
  std::vector<std::uint32_t> dense_;
  std::vector<std::uint32_t> touched_;
};

}  // namespace storh::load
