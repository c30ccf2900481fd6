// storh/transactions.h: transactions an engine offers for load runs, pgbench-style.
//
// A load run has many clients. Each client first sets up, untimed (opens the store:
// its "connection"), then all clients start together and the host calls
// Client::run_transaction in a loop, timing every call. The host reports
// transactions per second with and without the set-up, and the latency
// distribution merged over the clients (docs/load.md).
//
// Optional and additive (plugin ABI 1.1): a plugin without transactions still runs
// scenarios exactly as before. To offer them, define a Transactions class and add one
// line to any translation unit of the plugin, for example a separate doc_load.cpp
// next to the adapter doc_plugin.cpp:
//
//   STORH_TRANSACTIONS(storh_example::MyTransactions)
//
// which exports the factory storh_create_transactions. The host looks it up only in
// plugins whose manifest says ABI minor >= 1.
//
// One repeat of a load cell, in a fresh worker process:
//   1. the host makes one Transactions object and calls prepare(ctx) (untimed: load
//      the dataset of ctx.dataset_size() records, the "scale");
//   2. for each selected transaction type: every client calls open_client on its own
//      thread, or in its own process forked from the worker (the suite says which),
//      untimed; all clients then start together and run transactions until their
//      count or the duration is reached; clients are destroyed, untimed;
//   3. finish(ctx, ...) once, untimed: a last check of the store (e.g. every job
//      enqueued was completed exactly once). An error fails the cell.
//
// Lifetime and threading: the Transactions object lives for the whole repeat and is
// used from the worker's main thread, except open_client, which is called from every
// client thread at once and so must be thread-safe. A Client is used by one thread
// only. With process clients each process works on its own copy of the Transactions
// object made by fork(): state changed in one client is not seen by another or by
// finish(), so share state through the store, as real processes would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/dll/alias.hpp>

#include "storh/engine.h"

namespace storh {

// One kind of transaction, e.g. "put_get" or "enqueue_claim_complete". Its metric is
// "<engine>.<name>[clients=C,transactions=T]"; a suite selects transactions through
// the engine's `operations` list.
struct TransactionSpec {
  std::string name;         // snake_case, unique within the engine
  std::string description;  // one line: what one transaction does
  // True when the transaction never changes the store (a read-only suite selects
  // these). Informational: the host does not enforce it.
  bool read_only = false;
};

// Why a transaction failed (ABI 1.7, TransactionReport). `serialization` (SQLSTATE
// 40001) and `deadlock` (40P01) are conflicts a real application retries: a transaction
// that still fails with one after its tries is counted by kind and its client goes on,
// as pgbench 15 does. `other` (and `none` with an error) is a failure that ends the
// client and fails the cell, as before.
enum class FailureKind : std::uint8_t { none, serialization, deadlock, other };

// What one transaction did beyond ok or failed (ABI 1.7, Client::run_reported). The host
// makes a fresh one for every call and fills the inputs; the client sets the outputs.
struct TransactionReport {
  // In: the steady-clock nanosecond (std::chrono::steady_clock) after which the run is
  // over, or 0 for a run bounded by a count. A client that retries without a limit of
  // tries stops retrying after it, as pgbench stops at the end of -T.
  std::int64_t deadline_ns = 0;
  // Out: which part of the transaction type ran, an index into Transactions::parts();
  // 0 when the type has no parts.
  std::size_t part = 0;
  // Out: tries after the first (retries of conflicts), whatever the outcome.
  std::uint32_t retries = 0;
  // Out: why the transaction failed, when run_reported returned an error.
  FailureKind failure = FailureKind::none;
  // Out: nanoseconds of the call spent opening (and closing) a connection rather than
  // running the transaction, as pgbench -C does: left out of the transaction's latency
  // (not under a target rate, whose latency counts from the intended start) but not
  // out of the run's time, so tps includes reconnections.
  std::int64_t connect_ns = 0;
  // In: true for a warm-up call (the load's `warmup`, untimed and in none of the cell's
  // figures). A client that measures its transactions itself (phase_statements) leaves
  // these calls out, so its figures cover the same transactions as the cell's.
  bool warmup = false;
};

// Who a client is. Plain data made by the host.
struct ClientInfo {
  std::uint32_t index = 0;   // 0 .. count - 1, unique within the cell
  std::uint32_t count = 1;   // clients in the cell
  bool own_process = false;  // true: this client runs in a process of its own
};

// One client: what a pgbench connection is to PostgreSQL.
class Client {
 public:
  virtual ~Client() = default;

  // Runs one transaction of type `type` (an index into Transactions::describe()).
  // `sequence` counts this client's calls from 0 (warm-up calls included), so a
  // client can make unique keys from (ClientInfo::index, sequence). Returns an
  // error for a failed or wrong transaction: the host counts it as failed, keeps its
  // message (the first one) and ends that client, as pgbench aborts a client on an
  // error; the other clients go on, and a cell with failed transactions fails.
  // Must not throw (use storh::guarded).
  virtual Status run_transaction(std::size_t type, std::uint64_t sequence) noexcept = 0;

  // ABI 1.7: run_transaction, also saying in `report` what the transaction did. The
  // host calls this instead of run_transaction on plugins whose manifest says ABI minor
  // >= 7 (kTransactionReportAbiMinor). An error with report.failure serialization or
  // deadlock is counted under that kind and the client goes on; any other error ends
  // the client as above. Default: run_transaction, reporting nothing more.
  virtual Status run_reported(std::size_t type, std::uint64_t sequence,
                              TransactionReport& report) noexcept {
    static_cast<void>(report);
    return run_transaction(type, sequence);
  }
};

// An engine's own count of the work of one load phase (ABI 1.7), e.g. the server's
// WAL bytes. The host divides `total` by every transaction the phase ran (warm-up
// and failed ones included) and records it per transaction (docs/counters.md).
struct EngineCounter {
  std::string name;      // "<engine>.<counter>", snake_case: "pg.wal_bytes"
  std::string unit;      // plural noun: "bytes", "blocks", "commits"
  double total = 0;      // over the whole phase
  bool repeats = false;  // exact for the same workload and seed: gate it with 0 tolerance
};

// One command of a script over one load phase (ABI 1.7, Transactions::phase_statements):
// what pgbench -r prints per command. Plain data made by the plugin.
struct StatementStats {
  std::size_t part = 0;        // the script's index in Transactions::parts(); 0 without parts
  std::uint32_t line = 0;      // the command's line in its script, from 1
  std::string command;         // its first line, as pgbench prints it
  std::uint64_t count = 0;     // runs that completed (a retried transaction's runs too)
  std::int64_t total_ns = 0;   // their time summed, nanoseconds
  std::uint64_t failures = 0;  // transactions that failed on this command
  std::uint64_t retries = 0;   // retries begun after a conflict on this command
};

// What a plugin implements to offer load runs.
class Transactions {
 public:
  virtual ~Transactions() = default;

  // The transaction types, in the order a load cell runs them. Must be cheap and
  // must not touch the filesystem (the host calls it to validate suites).
  virtual std::vector<TransactionSpec> describe() const noexcept = 0;

  // Untimed, once per repeat before any client: create the store under
  // ctx.work_dir() (shared by all clients) and load ctx.dataset_size() records.
  // ctx.measure must not be called here. Default: nothing to prepare.
  virtual Status prepare(RunContext& ctx) noexcept {
    static_cast<void>(ctx);
    return {};
  }

  // Untimed set-up of one client: open the store, as a connection would. On success
  // stores a client in `out`. Called concurrently from every client thread.
  virtual Status open_client(const RunContext& ctx, const ClientInfo& client,
                             std::unique_ptr<Client>& out) noexcept = 0;

  // Untimed, once per repeat after every client of every transaction type has
  // finished: check the store. `succeeded` and `failed` count every transaction the
  // clients ran (warm-up included, all types, all clients and processes).
  virtual Status finish(RunContext& ctx, std::uint64_t succeeded, std::uint64_t failed) noexcept {
    static_cast<void>(ctx);
    static_cast<void>(succeeded);
    static_cast<void>(failed);
    return {};
  }

  // ABI 1.7: the parts of transaction type `type` for a cell whose parameters are
  // `values` (every declared parameter), e.g. the scripts of a weighted mix. Each part
  // is reported as a metric of its own, "<type>.<part>", besides the type's: the host
  // asks before any cell runs (in a child process, like Engine::preflight) and again
  // in the worker. Part names are snake_case and unique within the type; a client says
  // which part each transaction ran in TransactionReport::part. Must be cheap and must
  // not touch the filesystem. Called only on plugins whose manifest says ABI minor >= 7.
  // Default: no parts.
  virtual std::vector<std::string> parts(
      std::size_t type,
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept {
    static_cast<void>(type);
    static_cast<void>(values);
    return {};
  }

  // ABI 1.7, engine counters of one phase of type `type`. The host calls them only on
  // plugins whose manifest says minor >= 7 (kEngineCountersAbiMinor), from the worker's
  // main thread, untimed: phase_counters_begin before the phase's clients open, and
  // phase_counters_end after every client is destroyed (so a server's per-connection
  // statistics are flushed). Read the counts on a connection of your own that no
  // client uses; the counts then cover the warm-up too. phase_counters_end appends to
  // `out`. An error fails the cell. Default: no counters.
  virtual Status phase_counters_begin(RunContext& ctx, std::size_t type) noexcept {
    static_cast<void>(ctx);
    static_cast<void>(type);
    return {};
  }
  virtual Status phase_counters_end(RunContext& ctx, std::size_t type,
                                    std::vector<EngineCounter>& out) noexcept {
    static_cast<void>(ctx);
    static_cast<void>(type);
    static_cast<void>(out);
    return {};
  }

  // ABI 1.7, per-command latencies of one phase of type `type`, pgbench -r: appends a row
  // per command of every script the phase could run, in script and line order (rows
  // with count 0 included), or nothing when the plugin measures none (the default, and
  // pg's unless its statement_latencies parameter is on). Called from the worker's main
  // thread once the phase's clients are all destroyed (so a client can hand its figures
  // over in its destructor), before phase_counters_end, only on plugins whose manifest
  // says minor >= 7. The figures cover the timed transactions only, as the cell's tps
  // and latency do: leave out calls whose TransactionReport::warmup is set. An error
  // fails the cell.
  virtual Status phase_statements(RunContext& ctx, std::size_t type,
                                  std::vector<StatementStats>& out) noexcept {
    static_cast<void>(ctx);
    static_cast<void>(type);
    static_cast<void>(out);
    return {};
  }

  // ABI 1.7: a parameter whose value among `values` (every declared parameter) lets a
  // transaction go on without end, so that a load cell must have a duration (pgbench's
  // --max-tries=0 needs -T). The host asks before any cell runs, in the same child
  // process as parts(), and refuses a cell without a duration, pointing at where the
  // suite set `param`. Must be cheap and must not touch the filesystem. Default: none.
  struct DurationNeed {
    std::string param;   // "" when no parameter needs a duration
    std::string reason;  // why, one line: "max_tries = 0 (no limit) needs a duration"
  };
  virtual DurationNeed needs_duration(
      const std::vector<std::pair<std::string, ParamValue>>& values) const noexcept {
    static_cast<void>(values);
    return {};
  }
};

// The factory behind storh_create_transactions. Must not throw: nullptr on failure.
using TransactionsFactory = std::unique_ptr<Transactions>();

inline constexpr const char* kTransactionsSymbol = "storh_create_transactions";
// The first plugin ABI minor that may export kTransactionsSymbol.
inline constexpr std::uint32_t kTransactionsAbiMinor = 1;
// The first plugin ABI minor whose Client has run_reported and whose Transactions has
// parts().
inline constexpr std::uint32_t kTransactionReportAbiMinor = 7;

}  // namespace storh

// Exports the transactions factory for class `transactions_class` (default
// constructible). At most once per plugin; may sit in any of its translation units.
#define STORH_TRANSACTIONS(transactions_class)                                         \
  namespace {                                                                          \
  std::unique_ptr<::storh::Transactions> storh_detail_create_transactions() noexcept { \
    try {                                                                              \
      return std::make_unique<transactions_class>();                                   \
    } catch (...) {                                                                    \
      return nullptr;                                                                  \
    }                                                                                  \
  }                                                                                    \
  }                                                                                    \
  BOOST_DLL_ALIAS(storh_detail_create_transactions, storh_create_transactions)
