#include "load/summary.h"

#include <algorithm>
#include <cmath>

#include "result/json.h"
#include "stats/stats.h"

namespace storh::load {

std::optional<result::Latency> load_latency(const LatencyRecord& latency) {
  std::optional<result::Latency> summary = stats::latency_summary(latency.histogram);
  if (summary) summary->stddev = latency.stddev();
  return summary;
}

namespace {

// A repeat's lag, late and skipped counts, into the repeat and the cell's totals. The
// cell's lag mean weighs each repeat by its ok transactions, its max is the largest.
void add_lateness(const LoadOutcome& o, result::LoadRepeat& repeat, result::LoadResult& cell,
                  double& lag_weight) {
  repeat.late = o.late;
  repeat.skipped = o.skipped;
  cell.late += o.late;
  cell.skipped += o.skipped;
  if (!o.lag) return;
  repeat.lag = o.lag;
  const auto weight = static_cast<double>(o.processed);
  result::LoadLag lag = cell.lag.value_or(result::LoadLag{});
  if (lag_weight + weight > 0) {
    lag.mean = (lag.mean * lag_weight + o.lag->mean * weight) / (lag_weight + weight);
  }
  lag.max = std::max(lag.max, o.lag->max);
  lag_weight += weight;
  cell.lag = lag;
}

}  // namespace

result::LoadResult summarize_load(const LoadConfig& config,
                                  const std::vector<LoadOutcome>& repeats) {
  result::LoadResult r;
  r.clients = config.clients;
  r.mode = client_mode_name(config.mode);
  r.transactions_per_client = config.transactions;
  r.duration_seconds = config.duration_seconds;
  r.target_rate = config.rate;
  r.latency_limit = config.latency_limit;
  double lag_weight = 0;  // ok transactions behind the lag figures merged so far
  LatencyRecord latency;
  std::vector<double> tps;
  double including = 0;
  bool all_intended = !repeats.empty();
  std::uint64_t intended = 0;
  TryCounts tries;
  for (const LoadOutcome& o : repeats) {
    tries.merge(o.tries);
    result::LoadRepeat repeat;
    repeat.processed = o.processed;
    repeat.intended = o.intended;
    repeat.failed = o.failed;
    repeat.setup_seconds = o.setup_seconds;
    repeat.run_seconds = o.run_seconds;
    repeat.tps_including_setup = o.tps_including_setup();
    repeat.tps_excluding_setup = o.tps_excluding_setup();
    add_lateness(o, repeat, r, lag_weight);
    repeat.intervals = o.intervals;
    tps.push_back(repeat.tps_excluding_setup);
    including += repeat.tps_including_setup;
    r.repeats.push_back(std::move(repeat));
    r.processed += o.processed;
    r.failed += o.failed;
    if (o.intended) {
      intended += *o.intended;
    } else {
      all_intended = false;
    }
    latency.merge(o.latency);
    result::merge_statements(r.statements, o.statements);
  }
  if (all_intended) r.intended = intended;
  if (!repeats.empty()) {
    const result::Summary summary = stats::summarize(tps);
    r.tps_excluding_setup = summary.mean;
    r.tps_stddev = summary.stddev;
    r.tps_including_setup = including / static_cast<double>(repeats.size());
  }
  r.latency = load_latency(latency);
  r.retried = tries.retried;
  r.retries = tries.retries;
  r.serialization_failures = tries.serialization_failures;
  r.deadlock_failures = tries.deadlock_failures;
  if (tries.reconnects > 0) {
    r.connection_mean =
        static_cast<double>(tries.connect_ns) / 1e9 / static_cast<double>(tries.reconnects);
  }
  return r;
}

}  // namespace storh::load
