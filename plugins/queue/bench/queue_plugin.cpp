// The queue plugin: storh's queue benchmark (engine-spec.md section 11.3) over LogQueue,
// plus the append+fsync floor beside it and a multi-process drain. The only file of the
// engine that knows about the host.
//
// Operations, in order (n = dataset size; every step checks its answer):
//   append_floor      n x (write one 191-byte enqueue line + fdatasync) on a plain file:
//                     the durable-append cost every single-event call pays at least
//   enqueue           n x enqueue(row(i)): one lock, one write, one sync each
//   claim             n x claim(): n jobs, in enqueue order (FIFO)
//   complete          complete(id) per claimed id: all n done
//   requeue           requeue_timed_out(0) with nothing processing: 0, no write, no sync
//   bulk_enqueue      enqueue_many(rows(n)) on queue-bulk, rows generated lazily as in
//                     storh: n ids, one write per MiB chunk, one sync
//   bulk_claim        claim_many(n): the n ids in order
//   bulk_complete     complete_many(ids): n
//   bulk_rows_floor   n enqueue lines appended in the MiB chunks of enqueue_many and
//                     fdatasynced once, after building the n rows bulk_enqueue's source
//                     builds (and dropping each), no engine: bulk_enqueue's floor, as its
//                     rows are built inside its timing (storh's harness passes a generator)
//   bulk_floor        the same lines and sync without the rows: the floor of the bulk
//                     calls after bulk_enqueue (bulk_floors says why this order)
//   claim_concurrent  `workers` forked processes, each with its own LogQueue, claim and
//                     complete n jobs (enqueued untimed) until the queue is empty; every
//                     job must be claimed exactly once
// After enqueue/complete/bulk_complete the counts are checked outside the timer.
//
// Parameters: durability = "durable" (default: fdatasync per call or chunk) | "none"
// (no syncs, to measure their cost); workers = processes for claim_concurrent (4).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/bench/durability.h"
#include "common/bench/floors.h"
#include "common/bench/forked_workers.h"
#include "common/bench/params.h"
#include "common/durable_io.h"
#include "common/store_error.h"
#include "queue/log_queue.h"
#include "queue/queue_event.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
using engines::LogQueue;
using engines::QueueCounts;
using storh::Status;

constexpr engines::bench::IntParam kWorkers{"workers", 4, 1, 256,
                                            "worker processes for claim_concurrent (1-256)"};
constexpr engines::bench::TextParam kDurability = engines::bench::durability_param(
    "durable: fdatasync per call or MiB chunk; none: no syncs (measures their cost)");

std::string describe_counts(const QueueCounts& counts) {
  return "{pending " + std::to_string(counts.pending) + ", processing " +
         std::to_string(counts.processing) + ", done " + std::to_string(counts.done) + "}";
}

Status check_counts(LogQueue& queue, std::string_view after, const QueueCounts& expected) {
  const QueueCounts counts = queue.counts();
  if (counts == expected) return {};
  return Status::error("after " + std::string(after) + " the queue holds " +
                       describe_counts(counts) + ", expected " + describe_counts(expected));
}

// Ids as the queue returns them (std::string, UuidText), compared as text.
template <class Got, class Expected>
Status check_same_ids(std::string_view operation, const Got& got, const Expected& expected) {
  if (got.size() != expected.size()) {
    return Status::error(std::string(operation) + ": got " + std::to_string(got.size()) +
                         " jobs, expected " + std::to_string(expected.size()));
  }
  const auto same = [](const auto& a, const auto& b) {
    return std::string_view(a) == std::string_view(b);
  };
  const auto mismatch = std::mismatch(got.begin(), got.end(), expected.begin(), same);
  if (mismatch.first != got.end()) {
    return Status::error(std::string(operation) + ": job " +
                         std::to_string(mismatch.first - got.begin()) + " is " +
                         std::string(std::string_view(*mismatch.first)) + ", expected " +
                         std::string(std::string_view(*mismatch.second)) + " (FIFO order)");
  }
  return {};
}

std::vector<engines::Json> bench_rows(std::uint64_t n) {
  std::vector<engines::Json> rows;
  rows.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) rows.push_back(engines::bench_row(i));
  return rows;
}

// rows(n) as storh's bench passes it to enqueueMany: a lazy generator.
LogQueue::JobSource bench_source(std::uint64_t n) {
  return [n, i = std::uint64_t{0}]() mutable -> std::optional<engines::Json> {
    if (i == n) return std::nullopt;
    return engines::bench_row(i++);
  };
}

class QueueEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "durable log-backed job queue (storh LogQueue), safe across processes";
    info.params = {engines::bench::spec(kDurability), engines::bench::spec(kWorkers)};
    const auto op = [](const char* name, const char* description) {
      return storh::OperationSpec{name, "jobs", storh::Direction::lower_is_better, description};
    };
    info.operations = {
        {"append_floor", "lines", storh::Direction::lower_is_better,
         "n x (append a 191-byte line + fdatasync) on a plain file: the durable-append floor"},
        op("enqueue", "n x enqueue(row(i)): lock, write, sync each"),
        op("claim", "n x claim(), FIFO"),
        op("complete", "complete(id) for each claimed id"),
        {"requeue", "calls", storh::Direction::lower_is_better,
         "requeue_timed_out(0) with nothing processing (lock + fstat)"},
        op("bulk_enqueue", "enqueue_many(rows(n)): one write per MiB chunk, one sync"),
        op("bulk_claim", "claim_many(n)"),
        op("bulk_complete", "complete_many(ids)"),
        {"bulk_rows_floor", "lines", storh::Direction::lower_is_better,
         "bulk_floor after building the n rows bulk_enqueue's source builds: its floor"},
        {"bulk_floor", "lines", storh::Direction::lower_is_better,
         "n enqueue lines in 1 MiB appends + one fdatasync, no engine (bulk_enqueue's I/O)"},
        op("claim_concurrent", "`workers` processes claim + complete n jobs until empty"),
    };
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {engines::bench::range(kWorkers)};
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("queue", [&] { return run_scenario(ctx); });
  }

 private:
  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    const engines::Sync sync = engines::bench::durability(ctx);
    const std::int64_t workers = engines::bench::integer_value(ctx, kWorkers);
    if (!engines::bench::in_range(kWorkers, workers)) {
      return Status::error("workers must be " + std::to_string(kWorkers.minimum) + " to " +
                           std::to_string(kWorkers.maximum) + ", not " + std::to_string(workers));
    }
    if (ctx.selected("append_floor")) {
      STORH_TRY(append_floor(ctx, n, sync));
    }
    // Each group runs on its own queue, so a suite that selects only some operations
    // skips the groups it does not time (the singles alone are 3n fsyncs).
    if (ctx.selected("enqueue") || ctx.selected("claim") || ctx.selected("complete") ||
        ctx.selected("requeue")) {
      STORH_TRY(single_calls(ctx, n, sync));
    }
    if (ctx.selected("bulk_enqueue") || ctx.selected("bulk_claim") ||
        ctx.selected("bulk_complete")) {
      STORH_TRY(batch_calls(ctx, n, sync));
    }
    if (ctx.selected("bulk_floor") || ctx.selected("bulk_rows_floor")) {
      STORH_TRY(bulk_floors(ctx, n, sync));
    }
    if (ctx.selected("claim_concurrent")) {
      return claim_concurrent(ctx, n, sync, static_cast<std::size_t>(workers));
    }
    return {};
  }

  // One enqueue line of bench_row(0), as the queue writes it.
  static std::string enqueue_line() {
    std::string line;
    engines::queue::append_enqueue_line(line, "018bcfe5-6800-7000-8000-000000000000",
                                        engines::queue::normalised_payload(engines::bench_row(0)),
                                        1700000000);
    return line;
  }

  // append_floor: that line written and fdatasynced n times (enqueue's protocol).
  static Status append_floor(storh::RunContext& ctx, std::uint64_t n, engines::Sync sync) {
    const std::string line = enqueue_line();
    return engines::bench::measure_append_floor(
        ctx, ctx.work_dir() / "append-floor.log", n, sync,
        [&](std::uint64_t) { return std::string_view(line); });
  }

  // bulk_rows_floor: n enqueue lines in the chunked writes and the one fdatasync of
  // enqueue_many, after building bench_source(n)'s rows, each dropped as enqueue_many
  // drops it once encoded. bulk_floor: the same writes alone; claim_many and
  // complete_many write shorter lines the same way.
  //
  // The order matters. On a virtual machine the first megabytes written to a new file
  // after other work can cost milliseconds more than the same writes right after them
  // (docs/engines/queue.md, "The first megabytes of a new file"). bulk_enqueue is in
  // that place in its group, so bulk_rows_floor, its floor, runs first here too;
  // bulk_floor, the floor of the calls that follow bulk_enqueue, runs after it.
  static Status bulk_floors(storh::RunContext& ctx, std::uint64_t n, engines::Sync sync) {
    const std::string line = enqueue_line();
    std::string bytes;
    bytes.reserve(line.size() * n);
    for (std::uint64_t i = 0; i < n; ++i) bytes += line;
    if (ctx.selected("bulk_rows_floor")) {
      STORH_TRY(engines::bench::measure_bulk_append_floor(
          ctx, "bulk_rows_floor", ctx.work_dir() / "bulk-rows-floor.log", n, bytes,
          LogQueue::kChunkBytes, sync, [n] {
            const LogQueue::JobSource rows = bench_source(n);
            while (std::optional<engines::Json> row = rows()) storh::do_not_optimize(*row);
          }));
    }
    if (!ctx.selected("bulk_floor")) return {};
    return engines::bench::measure_bulk_append_floor(ctx, ctx.work_dir() / "bulk-floor.log", n,
                                                     bytes, LogQueue::kChunkBytes, sync);
  }

  static Status single_calls(storh::RunContext& ctx, std::uint64_t n, engines::Sync sync) {
    LogQueue queue(ctx.work_dir(), "queue", sync);
    std::vector<std::string> ids;
    ids.reserve(n);
    STORH_TRY(ctx.measure("enqueue", n, [&] {
      for (std::uint64_t i = 0; i < n; ++i) {
        ids.push_back(queue.enqueue(engines::bench_row(i)));
      }
    }));
    STORH_TRY(check_counts(queue, "enqueue", {n, 0, 0}));

    // Ids as claim() returns them (no string copy inside the timed loop).
    std::vector<engines::UuidText> claimed;
    claimed.reserve(n);
    STORH_TRY(ctx.measure("claim", n, [&] {
      for (std::uint64_t i = 0; i < n; ++i) {
        if (auto job = queue.claim()) {
          claimed.push_back(job->id);
        }
      }
    }));
    STORH_TRY(check_same_ids("claim", claimed, ids));

    std::uint64_t completed = 0;
    STORH_TRY(ctx.measure("complete", n, [&] {
      for (const engines::UuidText& id : claimed) {
        completed += queue.complete(id) ? 1 : 0;
      }
    }));
    if (completed != n) {
      return Status::error("complete: " + std::to_string(completed) + " of " + std::to_string(n) +
                           " jobs were processing");
    }
    STORH_TRY(check_counts(queue, "complete", {0, 0, n}));

    std::size_t requeued = 1;
    STORH_TRY(ctx.measure("requeue", 1, [&] { requeued = queue.requeue_timed_out(0); }));
    if (requeued != 0) {
      return Status::error("requeue: requeued " + std::to_string(requeued) +
                           " jobs, expected 0 (nothing is processing)");
    }
    return {};
  }

  static Status batch_calls(storh::RunContext& ctx, std::uint64_t n, engines::Sync sync) {
    LogQueue queue(ctx.work_dir(), "queue-bulk", sync);
    engines::QueueJobIds ids;
    STORH_TRY(
        ctx.measure("bulk_enqueue", n, [&] { ids = queue.enqueue_many(bench_source(n), n); }));
    if (ids.size() != n) {
      return Status::error("bulk_enqueue: got " + std::to_string(ids.size()) + " ids, expected " +
                           std::to_string(n));
    }
    STORH_TRY(check_counts(queue, "bulk_enqueue", {n, 0, 0}));

    engines::QueueJobs jobs;
    STORH_TRY(ctx.measure("bulk_claim", n, [&] { jobs = queue.claim_many(n); }));
    std::vector<std::string> claimed;
    claimed.reserve(jobs.size());
    for (const engines::QueueJob& job : jobs) claimed.push_back(job.id.str());
    STORH_TRY(check_same_ids("bulk_claim", claimed, ids));

    std::size_t completed = 0;
    STORH_TRY(ctx.measure("bulk_complete", n, [&] { completed = queue.complete_many(claimed); }));
    if (completed != n) {
      return Status::error("bulk_complete: completed " + std::to_string(completed) +
                           " jobs, expected " + std::to_string(n));
    }
    return check_counts(queue, "bulk_complete", {0, 0, n});
  }

  static Status claim_concurrent(storh::RunContext& ctx, std::uint64_t n, engines::Sync sync,
                                 std::size_t workers) {
    const auto root = ctx.work_dir();
    const auto reports = root / "concurrent-reports";
    engines::make_directories(reports);
    LogQueue queue(root, "queue-concurrent", sync);
    const engines::QueueJobIds ids = queue.enqueue_many(bench_rows(n));

    // Each worker opens its own LogQueue, then claims and completes one job at a time
    // until claim() finds nothing pending; its report is the ids it claimed, one a line.
    engines::bench::ForkedWorkers pool(workers, reports, [&](std::size_t) {
      auto own = std::make_shared<LogQueue>(root, "queue-concurrent", sync);
      return [own] {
        std::string claimed;
        while (std::optional<engines::QueueJob> job = own->claim()) {
          if (!own->complete(job->id)) {
            throw engines::StoreError("job " + job->id.str() +
                                      " was no longer processing when completed");
          }
          claimed.append(job->id).push_back('\n');
        }
        return claimed;
      };
    });
    std::string problems;
    STORH_TRY(ctx.measure("claim_concurrent", n, [&] {
      pool.start();
      problems = pool.wait();
    }));
    if (!problems.empty()) return Status::error("claim_concurrent: " + problems);

    std::unordered_set<std::string> expected;
    for (const engines::UuidText& id : ids) expected.insert(id.str());
    for (const std::string& report : pool.reports()) {
      std::istringstream lines(report);
      for (std::string id; std::getline(lines, id);) {
        if (expected.erase(id) == 0) {
          return Status::error("claim_concurrent: job " + id +
                               " was claimed twice or was never enqueued");
        }
      }
    }
    if (!expected.empty()) {
      return Status::error("claim_concurrent: " + std::to_string(expected.size()) + " of " +
                           std::to_string(n) + " jobs were never claimed");
    }
    return check_counts(queue, "claim_concurrent", {0, 0, n});
  }
};

}  // namespace

STORH_PLUGIN(queue, "1.0.0", QueueEngine)
