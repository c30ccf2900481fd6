// load/config.h: how one load cell runs (clients, how much work, pacing), as the plan
// hands it to a worker and the result file records it. docs/load.md is the reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/expected.h"

namespace storh::load {

// Whether clients are threads of the worker or processes forked from it. Processes
// are for engines whose promise is about processes (a queue shared by workers).
enum class ClientMode { threads, processes };

const char* client_mode_name(ClientMode mode);  // "threads", "processes"

// What makes a load cell a YCSB cell (docs/ycsb.md): the core workload's letter and
// the suite's properties over its preset, as YCSB names and text ("recordcount",
// "1000"), in suite order. The amounts come from the properties, so such a config
// has neither `transactions` nor `duration_seconds`.
struct YcsbSpec {
  char workload = 'a';
  std::vector<std::pair<std::string, std::string>> properties;

  friend bool operator==(const YcsbSpec&, const YcsbSpec&) = default;
};

struct LoadConfig {
  std::uint32_t clients = 1;  // >= 1
  // Exactly one of the two bounds is set: transactions per client, or a duration
  // (seconds) after which every client stops starting transactions.
  std::optional<std::uint64_t> transactions;
  std::optional<double> duration_seconds;
  // Target rate, transactions per second of all clients together. Set: open loop,
  // each client starts transactions on a fixed schedule (rate / clients per client,
  // clients staggered) and latency is measured from the intended start, so a slow
  // engine's queueing shows. Unset: closed loop, as fast as possible.
  std::optional<double> rate;
  // Untimed transactions per client before the timed start (counted in neither tps
  // nor latency), and/or an untimed warm-up time per client.
  std::uint64_t warmup_transactions = 0;
  double warmup_seconds = 0;
  ClientMode mode = ClientMode::threads;
  // A progress event every this many seconds of the timed phase; 0: none.
  double progress_seconds = 5;
  std::optional<YcsbSpec> ycsb;  // set: a YCSB cell
  // The width of the interval series (load/intervals.h), seconds, > 0.
  double interval_seconds = 1;
  // A transaction slower than this (seconds, from its scheduled start with a rate) is
  // counted late; with a rate, one already this late when due is skipped, not run
  // (pgbench's --latency-limit). Unset: none.
  std::optional<double> latency_limit;

  // The qualifiers of the cell's metric keys: "clients=4", "transactions=100" or
  // "duration=10s" (a YCSB cell: "clients=4" alone).
  std::vector<std::string> qualifiers() const;
  // "100" or "10s": the column label of the clients x transactions matrices.
  std::string amount_text() const;

  friend bool operator==(const LoadConfig&, const LoadConfig&) = default;
};

// One point of a bench ([[load.bench]], docs/load.md): a client count and the
// transactions each client runs. Written "10/100" in suites and reports.
struct Point {
  std::uint32_t clients = 1;       // 1..4096
  std::uint64_t transactions = 1;  // >= 1, per client

  std::string text() const;  // "10/100"
  friend bool operator==(const Point&, const Point&) = default;
};

nlohmann::ordered_json to_json(const LoadConfig& config);
// Reads to_json's form; the error names the bad key.
Expected<LoadConfig> config_from_json(const nlohmann::json& json);

// A duration as qualifiers and tables show it: "10s", "0.5s", "2m" is "120s".
std::string duration_text(double seconds);

}  // namespace storh::load
