// load/client_loop.h: one client of a load phase, and the state clients share with
// the coordinator (the worker's main thread) while they run.
//
// The shared state lives in an anonymous MAP_SHARED mapping made before any client
// starts, so the same code serves thread clients and process clients forked from
// the worker: lock-free atomics in shared memory work across processes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "load/config.h"
#include "load/outcome.h"
#include "storh/transactions.h"

namespace storh::load {

using Clock = std::chrono::steady_clock;

// Steady-clock nanoseconds; the same clock in every process of the machine.
std::int64_t now_ns();

// Per client, for the progress line: updated after every timed transaction.
struct alignas(64) LiveCounters {
  std::atomic<std::uint64_t> done{0};  // timed transactions finished, ok or failed
  std::atomic<std::uint64_t> ok{0};
  std::atomic<std::uint64_t> latency_ns{0};   // sum over the ok ones
  std::atomic<std::uint64_t> latency_us2{0};  // sum of squared microseconds
};

struct SharedHeader {
  std::atomic<std::uint32_t> ready{0};  // clients done with set-up and warm-up
  // Clients done with the timed phase; the last one wakes the coordinator, which
  // sleeps on it as a futex (load/start_gate.h).
  std::atomic<std::uint32_t> finished{0};
  std::atomic<std::int64_t> start_ns{0};  // 0 until the coordinator starts everyone
  std::atomic<bool> abort{false};         // stop now: a client could not start
  // 0 until start_ns is set or the phase aborts, then 1: the futex ready clients sleep
  // on (load/start_gate.h); whoever changes it wakes them.
  std::atomic<std::uint32_t> gate{0};
};

// Owns the mapping. Not copyable; the mapping is unmapped on destruction (a forked
// client keeps its own mapping until it exits).
class SharedState {
 public:
  explicit SharedState(std::uint32_t clients);
  ~SharedState();
  SharedState(const SharedState&) = delete;
  SharedState& operator=(const SharedState&) = delete;

  bool ok() const { return memory_ != nullptr; }
  SharedHeader& header() { return *static_cast<SharedHeader*>(memory_); }
  LiveCounters& counters(std::uint32_t client);
  std::uint32_t clients() const { return clients_; }

 private:
  void* memory_ = nullptr;
  std::size_t size_ = 0;
  std::uint32_t clients_ = 0;
};

// A transaction type that mixes several kinds of operation (YCSB's read, update,
// ...): the loop also counts and times each transaction under its kind. Only
// host-side Transactions use it, since only they can say what a call just ran.
struct KindSplit {
  std::size_t count = 0;  // kinds, indexed 0 .. count - 1
  // The kind of the transaction `client` has just run (< count). Called on the
  // client's thread, after each call, ok or not.
  std::function<std::size_t(const Client&)> kind_of;
};

// Everything one client needs. `transactions` and `ctx` outlive the client.
struct ClientJob {
  Transactions* transactions = nullptr;
  const RunContext* ctx = nullptr;
  ClientInfo info;
  std::size_t type = 0;  // index into transactions->describe()
  LoadConfig config;
  SharedState* shared = nullptr;
  // This client's timed transactions when a phase splits a total unevenly (YCSB);
  // unset: config.transactions.
  std::optional<std::uint64_t> own_transactions;
  const KindSplit* kinds = nullptr;  // optional; outlives the client
  // The plugin has Client::run_reported (ABI >= 1.7): call it instead of
  // run_transaction and count what each report says (retries, conflicts, the part).
  bool reported = false;
  // Parts of the type (Transactions::parts): each transaction is also counted under
  // the part its report names, as a kind. Ignored when `kinds` is set.
  std::size_t parts = 0;
};

// Runs one client from open_client to its last transaction: set-up, warm-up, then
// waits for the common start and runs the timed phase (docs/load.md, "Pacing").
// Marks itself ready and finished in the shared header whatever happens.
ClientOutcome run_client(const ClientJob& job);

}  // namespace storh::load
