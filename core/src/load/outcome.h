// load/outcome.h: what one client, and one load phase (all clients of one
// transaction type in one repeat), measured. A worker sends a LoadOutcome to the
// host as JSON; process clients send their ClientOutcome to the worker the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/intervals.h"
#include "result/result.h"
#include "stats/stats.h"
#include "util/expected.h"

namespace storh::load {

// Latencies of the successful timed transactions: the histogram for percentiles,
// plus the exact sum of squares (seconds^2) for the standard deviation.
struct LatencyRecord {
  stats::LatencyHistogram histogram;
  double sum_squares = 0;

  void record(double seconds);
  void merge(const LatencyRecord& other);
  // Sample standard deviation (n - 1), seconds; 0 below two values.
  double stddev() const;
};

// Conflicts a transaction met (storh/transactions.h, TransactionReport), counted as
// pgbench 15 counts them: `retried` transactions took more than one try, `retries`
// sums the tries after the first, and a transaction that failed after its tries with
// a serialization or deadlock error is one of the `*_failures` (not `failed`: its
// client went on and the cell does not fail).
struct TryCounts {
  std::uint64_t retried = 0;
  std::uint64_t retries = 0;
  std::uint64_t serialization_failures = 0;
  std::uint64_t deadlock_failures = 0;
  // Nanoseconds spent reconnecting inside timed transactions (pgbench -C).
  std::int64_t connect_ns = 0;
  std::uint64_t reconnects = 0;

  void merge(const TryCounts& other);
  bool empty() const;
};

// Adds `counts` to `json` as fields of its own, only those that are not zero.
void add_try_counts(nlohmann::json& json, const TryCounts& counts);

// One kind of operation within a transaction type that mixes several (YCSB's read,
// update, ...; load/client_loop.h, KindSplit): its own counts and latencies.
struct KindOutcome {
  std::uint64_t processed = 0;  // successful timed transactions of this kind
  std::uint64_t failed = 0;     // failed ones, timed or not
  LatencyRecord latency;
  TryCounts tries;  // of its timed transactions

  void merge(const KindOutcome& other);
};

struct ClientOutcome {
  std::string open_error;       // set when open_client failed: the client ran nothing
  double open_seconds = 0;      // time open_client took
  std::uint64_t processed = 0;  // successful timed transactions
  std::uint64_t failed = 0;     // failed transactions, warm-up included
  std::uint64_t warmup = 0;     // successful warm-up transactions
  std::uint64_t intended = 0;   // timed transactions the schedule asked for
  std::string first_error;
  std::int64_t end_ns = 0;  // steady clock when the last timed transaction ended
  LatencyRecord latency;
  std::vector<KindOutcome> kinds;  // by kind index; empty unless the phase splits kinds
  TryCounts tries;                 // of the timed transactions
  // Over time (load/intervals.h), finished; and lateness with a rate or a latency limit.
  IntervalSeries intervals;
  std::uint64_t lag_count = 0, lag_sum_ns = 0, lag_max_ns = 0;  // ok transactions, with a rate
  std::uint64_t late = 0;                                       // ok but slower than latency_limit
  std::uint64_t skipped = 0;  // not run: later than latency_limit when due
};

nlohmann::json to_json(const ClientOutcome& outcome);
Expected<ClientOutcome> client_outcome_from_json(const nlohmann::json& json);

// One load phase: every client of one transaction type, one repeat.
struct LoadOutcome {
  std::uint32_t clients = 0;
  // Intended timed transactions: clients x transactions; in a duration run with a
  // target rate, the schedule's starts before the end; without a rate, nullopt
  // (as many as fit).
  std::optional<std::uint64_t> intended;
  std::uint64_t processed = 0;
  std::uint64_t failed = 0;
  std::uint64_t warmup = 0;  // successful warm-up transactions
  std::string first_error;
  // Set-up: the slowest client's open_client (clients open in parallel).
  double setup_seconds = 0;
  // Timed phase: the common start to the last client's last transaction.
  double run_seconds = 0;
  LatencyRecord latency;
  // By kind index, merged over the clients; empty unless the phase splits kinds. Not
  // in to_json: a worker sends each kind as an outcome of its own (worker/ycsb_worker.h).
  std::vector<KindOutcome> kinds;
  TryCounts tries;  // of the timed transactions, summed over the clients
  // The clients' interval series merged (result::LoadIntervals); schedule lag with a
  // rate; late and skipped transactions (LoadConfig::latency_limit).
  std::optional<result::LoadIntervals> intervals;
  std::optional<result::LoadLag> lag;
  std::uint64_t late = 0;
  std::uint64_t skipped = 0;
  // Per script command, when the plugin measures them (Transactions::phase_statements):
  // the whole phase's, warm-up included; on the type's outcome only, not its parts'.
  std::vector<result::StatementLatency> statements;

  // processed / run_seconds, and processed / (setup_seconds + run_seconds).
  double tps_excluding_setup() const;
  double tps_including_setup() const;
};

// One kind's (or part's) share of a phase as an outcome of its own: its count over
// the whole phase's time is its throughput within the mix.
LoadOutcome kind_outcome(const LoadOutcome& mix, const KindOutcome& kind);

// "custom.zipfian_read": the operations (metrics) under which the parts of transaction
// type `type` are reported (Transactions::parts, ABI 1.7), in the order of `parts`.
std::vector<std::string> part_operations(const std::string& type,
                                         const std::vector<std::string>& parts);

nlohmann::json to_json(const LoadOutcome& outcome);
Expected<LoadOutcome> load_outcome_from_json(const nlohmann::json& json);

}  // namespace storh::load
