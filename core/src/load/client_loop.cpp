#include "load/client_loop.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "load/start_gate.h"

namespace storh::load {
namespace {

constexpr auto kStartTimeout = std::chrono::milliseconds(10);

std::size_t header_size() {
  return (sizeof(SharedHeader) + alignof(LiveCounters) - 1) / alignof(LiveCounters) *
         alignof(LiveCounters);
}

Clock::time_point at_ns(std::int64_t ns) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}

// Calls the engine; a throwing engine is a failed transaction, not a dead client.
Status call(Client& client, std::size_t type, std::uint64_t sequence, bool reported,
            TransactionReport& report) {
  return guarded("transaction", [&] {
    return reported ? client.run_reported(type, sequence, report)
                    : client.run_transaction(type, sequence);
  });
}

// A conflict the client gave up on after its tries: counted, and the client goes on.
bool is_conflict(const Status& status, const TransactionReport& report) {
  return !status.ok() &&
         (report.failure == FailureKind::serialization || report.failure == FailureKind::deadlock);
}

void count_tries(const Status& status, const TransactionReport& report, TryCounts& tries) {
  if (report.retries > 0) ++tries.retried;
  tries.retries += report.retries;
  if (is_conflict(status, report)) {
    ++(report.failure == FailureKind::serialization ? tries.serialization_failures
                                                    : tries.deadlock_failures);
  }
  if (report.connect_ns > 0) {
    tries.connect_ns += report.connect_ns;
    ++tries.reconnects;
  }
}

// pgbench's schedule for --rate: Poisson arrivals, each gap drawn by inverse transform
// as pgbench's getPoissonRand does, -ln(1 - u) times the mean gap, rounded to whole
// microseconds (u uniform in [0, 1), so 1 - u is never 0 and no clamp is needed). Each
// client draws its own gaps at its share of the rate (rate / clients), from its own
// seeded stream, so a schedule is the same in every run.
class Arrivals {
 public:
  Arrivals(const LoadConfig& config, std::uint32_t client, std::int64_t start)
      : random_(0x5eedULL ^ (std::uint64_t{client} * 0x9E3779B97F4A7C15ULL)),
        mean_gap_us_(config.rate ? 1e6 * static_cast<double>(config.clients) / *config.rate : 0),
        trigger_ns_(start) {}

  // The next scheduled start, steady-clock nanoseconds.
  std::int64_t next() {
    const double uniform = static_cast<double>(random_() >> 11) * 0x1.0p-53;
    // NOLINTNEXTLINE(bugprone-incorrect-roundings): pgbench's own rounding, kept to match it
    const auto gap_us = static_cast<std::int64_t>(-std::log(1.0 - uniform) * mean_gap_us_ + 0.5);
    trigger_ns_ += gap_us * 1000;
    return trigger_ns_;
  }

 private:
  std::mt19937_64 random_;
  double mean_gap_us_;
  std::int64_t trigger_ns_;
};

class Runner {
 public:
  Runner(const ClientJob& job, Client& client, ClientOutcome& out)
      : job_(job), client_(client), out_(out), live_(job.shared->counters(job.info.index)) {}

  // Returns false when a warm-up transaction failed (the client stops there).
  bool warm_up() {
    const LoadConfig& c = job_.config;
    for (std::uint64_t i = 0; i < c.warmup_transactions && !aborted(); ++i) {
      if (!untimed()) return false;
    }
    if (c.warmup_seconds > 0) {
      const std::int64_t end = now_ns() + static_cast<std::int64_t>(c.warmup_seconds * 1e9);
      while (now_ns() < end && !aborted()) {
        if (!untimed()) return false;
      }
    }
    return true;
  }

  // Returns the common start, or 0 when the coordinator aborted.
  std::int64_t wait_for_start() {
    SharedHeader& header = job_.shared->header();
    header.ready.fetch_add(1);
    while (true) {
      if (header.abort.load()) return 0;
      if (const std::int64_t start = header.start_ns.load(); start != 0) return start;
      // Asleep in the kernel until the coordinator opens the gate; the timeout only
      // bounds how late a client notices an abort that did not open it.
      futex_wait(header.gate, 0, kStartTimeout);
    }
  }

  void timed(std::int64_t start) {
    const LoadConfig& c = job_.config;
    out_.intervals = IntervalSeries(std::llround(c.interval_seconds * 1e9));
    // A plain value plus a flag, not std::optional: GCC 12 at -O2 warns (falsely) that the
    // optional's payload may be used uninitialized, and CI builds with -Werror.
    const bool deadline = c.duration_seconds.has_value();
    const std::int64_t deadline_ns =
        deadline ? start + static_cast<std::int64_t>(*c.duration_seconds * 1e9) : 0;
    const std::int64_t limit_ns = c.latency_limit ? std::llround(*c.latency_limit * 1e9) : 0;
    Arrivals arrivals(c, job_.info.index, start);
    const std::optional<std::uint64_t> bound =
        job_.own_transactions ? job_.own_transactions : c.transactions;
    bool scheduled_past_deadline = false;
    for (std::uint64_t i = 0;; ++i) {
      if (bound && i >= *bound) break;
      if (aborted()) break;
      std::int64_t begin = now_ns();
      TransactionMark mark;
      if (c.rate) {
        const std::int64_t intended = arrivals.next();
        if (deadline && intended >= deadline_ns) {
          scheduled_past_deadline = true;
          break;
        }
        ++out_.intended;
        // pgbench -L with --rate: a transaction that would be late even if it took no
        // time is skipped, and its slot still counts as one of the client's.
        if (limit_ns > 0 && begin > intended + limit_ns) {
          ++out_.skipped;
          mark.skipped = true;
          out_.intervals.record(begin - start, mark);
          continue;
        }
        if (begin < intended) {
          std::this_thread::sleep_until(at_ns(intended));
        }
        mark.lag_ns = std::max<std::int64_t>(0, now_ns() - intended);
        // Latency counts from the intended start: time spent behind schedule is
        // the queueing a slow engine would impose on its callers.
        begin = intended;
      } else {
        if (deadline && begin >= deadline_ns) break;
        ++out_.intended;
      }
      TransactionReport report;
      report.deadline_ns = deadline_ns;
      const Status status = call(client_, job_.type, sequence_++, job_.reported, report);
      const std::int64_t end = now_ns();
      out_.end_ns = end;
      // `report` now holds this transaction's part, retries and failure kind.
      KindOutcome* kind = kind_of_last(report);
      count_tries(status, report, out_.tries);
      if (kind != nullptr) count_tries(status, report, kind->tries);
      const bool conflict = is_conflict(status, report);
      mark.ok = status.ok();
      mark.retries = report.retries;
      if (status.ok()) {
        // As pgbench -C: reconnecting is in the run's time, not in the latency; under a
        // rate the latency counts from the intended start, connection included.
        const std::int64_t ns =
            std::max<std::int64_t>(0, end - begin - (c.rate ? 0 : report.connect_ns));
        mark.latency_ns = ns;
        mark.late = limit_ns > 0 && ns > limit_ns;
        if (mark.late) ++out_.late;
        if (mark.lag_ns >= 0) {
          ++out_.lag_count;
          out_.lag_sum_ns += static_cast<std::uint64_t>(mark.lag_ns);
          out_.lag_max_ns = std::max(out_.lag_max_ns, static_cast<std::uint64_t>(mark.lag_ns));
        }
        out_.latency.record(static_cast<double>(ns) / 1e9);
        if (kind != nullptr) {
          kind->latency.record(static_cast<double>(ns) / 1e9);
          ++kind->processed;
        }
        ++out_.processed;
        live_.ok.fetch_add(1, std::memory_order_relaxed);
        live_.latency_ns.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
        const auto us = static_cast<std::uint64_t>(ns / 1000);
        live_.latency_us2.fetch_add(us * us, std::memory_order_relaxed);
      } else if (!conflict) {
        failed(status);
        if (kind != nullptr) ++kind->failed;
      }
      out_.intervals.record(end - start, mark);
      live_.done.fetch_add(1, std::memory_order_relaxed);
      // A failed transaction ends its client, as pgbench aborts a client on an error:
      // what a client does after one (a dead server, a broken store) measures the
      // failure, not the engine, and the cell fails anyway. A conflict given up on
      // after its tries does not: pgbench 15 counts it and the client goes on.
      if (!status.ok() && !conflict) break;
    }
    // A duration run with a rate intended every start before the deadline, run or not:
    // a client that stopped early counts the rest of its schedule.
    if (c.rate && deadline && !scheduled_past_deadline) {
      while (arrivals.next() < deadline_ns) ++out_.intended;
    }
    out_.intervals.finish();
    if (out_.end_ns == 0) out_.end_ns = now_ns();
  }

 private:
  bool aborted() const { return job_.shared->header().abort.load(std::memory_order_relaxed); }

  KindOutcome* kind_of_last(const TransactionReport& report) {
    std::size_t kind = report.part;
    if (job_.kinds != nullptr) {
      kind = job_.kinds->kind_of(client_);
    } else if (job_.parts == 0) {
      return nullptr;
    }
    return kind < out_.kinds.size() ? &out_.kinds[kind] : nullptr;
  }

  bool untimed() {
    TransactionReport report;
    report.warmup = true;
    // A warm-up transaction retries no longer than a timed one could: a duration from now.
    const double duration = job_.config.duration_seconds.value_or(0);
    if (duration > 0) report.deadline_ns = now_ns() + static_cast<std::int64_t>(duration * 1e9);
    const Status status = call(client_, job_.type, sequence_++, job_.reported, report);
    if (status.ok()) {
      ++out_.warmup;
    } else if (!is_conflict(status, report)) {
      failed(status);
      return false;
    }
    return true;
  }

  void failed(const Status& status) {
    ++out_.failed;
    if (out_.first_error.empty()) out_.first_error = status.message();
  }

  const ClientJob& job_;
  Client& client_;
  ClientOutcome& out_;
  LiveCounters& live_;
  std::uint64_t sequence_ = 0;
};

// The last client to finish wakes the coordinator, which sleeps on `finished`.
void mark_finished(SharedState& shared) {
  SharedHeader& header = shared.header();
  if (header.finished.fetch_add(1) + 1 == shared.clients()) futex_wake_all(header.finished);
}

}  // namespace

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

SharedState::SharedState(std::uint32_t clients) : clients_(clients) {
  size_ = header_size() + sizeof(LiveCounters) * clients;
  void* memory = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  memory_ = memory;
  new (memory_) SharedHeader();
  for (std::uint32_t c = 0; c < clients; ++c) new (&counters(c)) LiveCounters();
}

SharedState::~SharedState() {
  if (memory_ != nullptr) ::munmap(memory_, size_);
}

LiveCounters& SharedState::counters(std::uint32_t client) {
  auto* base = static_cast<char*>(memory_) + header_size();
  return reinterpret_cast<LiveCounters*>(base)[client];
}

ClientOutcome run_client(const ClientJob& job) {
  ClientOutcome out;
  SharedHeader& header = job.shared->header();
  std::unique_ptr<Client> client;
  const std::int64_t open_start = now_ns();
  Status opened = guarded(
      "open_client", [&] { return job.transactions->open_client(*job.ctx, job.info, client); });
  out.open_seconds = static_cast<double>(now_ns() - open_start) / 1e9;
  if (opened.ok() && !client) opened = Status::error("open_client returned no client");
  if (!opened.ok()) {
    out.open_error = opened.message();
    header.abort.store(true);  // the others must not wait for a start that never comes
    header.ready.fetch_add(1);
    mark_finished(*job.shared);
    return out;
  }
  if (job.kinds != nullptr) {
    out.kinds.resize(job.kinds->count);
  } else if (job.parts > 0) {
    out.kinds.resize(job.parts);
  }
  Runner runner(job, *client, out);
  // A client whose warm-up failed still joins the common start, so the others do not
  // wait for it, and then runs nothing.
  const bool warmed_up = runner.warm_up();
  if (const std::int64_t start = runner.wait_for_start(); start != 0 && warmed_up) {
    runner.timed(start);
  }
  mark_finished(*job.shared);
  client.reset();  // closing is untimed, like a disconnect
  return out;
}

}  // namespace storh::load
