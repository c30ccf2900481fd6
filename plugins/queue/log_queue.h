// log_queue.h: LogQueue, storh's durable job queue over one append-only event log
// (engine-spec.md section 6), safe to share between processes.
//
// Layout: <root>/<name>/queue.log (the events, section 6.1, byte for byte as storh's
// PHP LogQueue writes them, so either implementation opens the other's queues) and
// <root>/<name>/queue.lock (an advisory flock). No temp files, no writer markers.
//
// Jobs are FIFO: claim() takes the oldest pending job; a requeued job goes to the back,
// behind every job already pending; the order survives a reopen.
//
// Concurrency: every public call takes queue.lock (flock LOCK_EX) for its duration and
// first catches up with the events other processes appended (one fstat; new lines are
// read and applied). So any number of processes, each with its own LogQueue, see one
// queue, and each job is claimed at most once between requeues. One instance is NOT
// thread-safe; give each thread its own instance (flock then serialises them). After
// fork() a child must open its own instance (file_lock.h says why).
//
// Durability (Sync::durable, the default): when enqueue, claim, complete or a batch
// call returns, its events are on disk: the lines are written with one write(2) per
// event (per 1 MiB chunk for batches) and fdatasync(2)ed once per call. fdatasync is
// enough for an append-only file: it flushes the data and the size change that makes
// it reachable, skipping only the mtime, and every line carries its own length and
// checksum. Sync::none skips the syncs (to measure what they cost); never for real data.
//
// Crashes: a process killed mid-write leaves at most a torn last line. Opening (and
// repair()) truncates the log at the first bad line and fsyncs. A live instance that
// meets a bad tail while catching up stops before it (reads never change the file),
// and cuts it before it appends its own lines, so an acknowledged event never sits
// behind garbage that the next open would truncate it with.
//
// Failures throw StoreError (I/O, naming the path) or std::invalid_argument (an invalid
// id: "Invalid UUIDv7 value."). If a call throws after writing part of its events, the
// instance rebuilds its state from the log on the next call; events reported by a call
// that returned are never lost.
#pragma once

#include <concepts>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/durable_io.h"
#include "common/file_lock.h"
#include "common/huge_pages.h"
#include "common/record.h"
#include "common/shared_text.h"
#include "common/uuid_text.h"
#include "queue/queue_state.h"

namespace storh::engines {

using queue::QueueCounts;

// A claimed job. `id` is its UUIDv7, inline (no heap chunk per job; `id.str()` for a
// std::string). `payload` is the canonical JSON text of its payload object ("[]" when
// empty), shared with the queue's own copy rather than copied (as storh's PHP queue
// hands out its copy-on-write string): it stays valid and unchanged after the job is
// completed or the queue is gone. payload_json() parses it.
struct QueueJob {
  UuidText id;
  SharedText payload;
  Json payload_json() const;
};

// What the batch calls return: vectors whose buffers are huge-page blocks once they are
// worth one (huge_pages.h: 1 MiB, from about 29,000 ids or 16,400 jobs), not hundreds of
// 4 KiB pages that each fault in; below that, from 64 KiB, populated in one call. The ids
// of enqueue_many go into the rest of the huge block its job table took for the batch
// when they fit there (LentFirstAllocator), and then keep that block (2 MiB at 10,000
// jobs) mapped while they live. Copy into a std::vector where one is needed.
using QueueJobIds = std::vector<UuidText, LentFirstAllocator<UuidText>>;
using QueueJobs = std::vector<QueueJob, HugePageAllocator<QueueJob>>;

struct QueueStats {
  QueueCounts counts;
  std::uint64_t bytes = 0;  // size of queue.log
};

struct QueueVerifyReport {
  bool ok = true;
  std::vector<std::string> errors;  // "line N: <why>", "Log queue state drift. <what>"
  QueueStats stats;
};

struct QueueRepairReport {
  bool ok = true;
  std::uint64_t requeued = 0;
};

class LogQueue {
 public:
  // Bytes of event lines a batch call buffers before it writes them (section 6.3).
  static constexpr std::size_t kChunkBytes = 1 << 20;

  // Creates <root>/<name>/ if missing, opens (creating) queue.lock and queue.log, and
  // replays the log under the lock, truncating it at the first bad line. Throws
  // StoreError when a file cannot be opened, read or truncated.
  LogQueue(const std::filesystem::path& root, std::string_view name, Sync sync = Sync::durable);
  ~LogQueue();
  LogQueue(const LogQueue&) = delete;
  LogQueue& operator=(const LogQueue&) = delete;

  // Appends an enqueue event and returns the job id: `id` if given (validated), else a
  // fresh UUIDv7. The payload is normalised (a non-object becomes {}, integer-like keys
  // are dropped). Re-enqueueing an existing id is allowed and moves it to the back.
  std::string enqueue(const Json& payload, std::optional<std::string_view> id = std::nullopt);
  // One event per job, one timestamp, one sync. A job is {"id"?: string, "payload"?:
  // object} or a bare payload (section 1.1 envelope rules with the key "payload"). All
  // ids are validated; the lines are written per kChunkBytes chunk as they are encoded and
  // synced once. A call that throws (an invalid id, a failed write or sync) leaves the
  // log as it was: lines it wrote are truncated away first. Returns the ids in order, held
  // inline (UuidText: no heap string per id; QueueJobIds: see above).
  QueueJobIds enqueue_many(std::vector<Json> jobs);
  // The same for jobs pulled from `next_job` (nullopt ends the batch), as storh's
  // enqueueMany takes a lazy iterable: each job is encoded and released as it arrives.
  // The lock is held while the source runs. Memory: one chunk of encoded lines.
  // `expected_jobs` (a hint, 0 = unknown) sizes the buffers and the job table once.
  using JobSource = std::function<std::optional<Json>()>;
  QueueJobIds enqueue_many(const JobSource& next_job, std::size_t expected_jobs = 0);

  // The oldest pending job, now processing, or nullopt when none is pending.
  std::optional<QueueJob> claim();
  // Up to `limit` jobs in FIFO order, one batch. Throws std::invalid_argument if limit < 1.
  QueueJobs claim_many(std::size_t limit);

  // Marks a processing job completed (kept in `done` when keep_done, else forgotten).
  // A no-op, returning false, unless the job is processing. Validates the id.
  bool complete(std::string_view id, bool keep_done = true);
  // Completes every processing id once (duplicates and others are skipped) in one batch;
  // returns how many. Validates every id first; an empty list returns 0 without locking.
  std::size_t complete_many(const std::vector<std::string>& ids, bool keep_done = true);
  // The same for ids as enqueue_many returns them. (A template, so that a braced list of
  // strings still means the overload above.)
  template <class Ids>
  requires std::same_as<Ids, QueueJobIds> std::size_t complete_many(const Ids& ids,
                                                                    bool keep_done = true) {
    return complete_ids(ids, keep_done);
  }

  // Requeues processing jobs claimed at least `timeout_s` seconds ago (0: all of them),
  // in the order they were claimed; returns how many. Nothing to requeue costs the
  // lock and one fstat: no write, no sync.
  std::size_t requeue_timed_out(std::int64_t timeout_s);
  // Forgets done jobs: all of them, or those completed at least `older_than_s` seconds
  // ago when older_than_s > 0. Returns how many.
  std::size_t purge_done(std::int64_t older_than_s = 0);

  QueueCounts counts();
  QueueStats stats();
  // Replays the log into a fresh state (reporting the first bad line), catches up, and
  // compares the two states (payloads, pending, processing, done, pending order).
  // Never changes the file.
  QueueVerifyReport verify();
  // Replays with truncation of a bad tail, then requeues jobs processing for at least
  // `timeout_s` seconds.
  QueueRepairReport repair(std::int64_t timeout_s = 3600);

  const std::filesystem::path& log_path() const noexcept { return log_path_; }

  // Test hook (invariant Q2): make the in-memory state drift from the log.
  queue::QueueState& state_for_tests() noexcept { return state_; }

 private:
  class Mutation;

  // Typical framed line sizes (section 6.1), to size the batch buffer up front; a chunk
  // ends at the first line that takes it past kChunkBytes, hence the slack.
  static constexpr std::size_t kEnqueueLineBytes = 200;
  static constexpr std::size_t kClaimLineBytes = 88;
  static constexpr std::size_t kCompleteLineBytes = 104;
  static constexpr std::size_t kChunkSlack = 4096;
  static constexpr std::size_t kSmallBatchBytes = 64 * 1024;

  void sync_from_log();
  void replay(bool truncate_bad_tail);
  std::string read_from(std::uint64_t offset, std::uint64_t size);
  void cut_bad_tail();
  void write_lines(std::string_view lines);
  // Truncates the log back to `batch_start` (and syncs it): a failed batch's lines.
  // `cause` is the batch's own failure: if the undo fails too, one StoreError says
  // both, the cause first, so the caller never loses why the batch failed.
  void undo_writes(std::uint64_t batch_start, const std::exception_ptr& cause);
  QueueJobIds enqueue_rows(const JobSource& next_job, std::size_t hint);
  template <class Ids>
  std::size_t complete_ids(const Ids& ids, bool keep_done);
  void reserve_batch(std::size_t bytes);
  void flush_chunk_if_full();
  void finish_batch();
  std::size_t append_id_events(queue::EventOp op, const std::vector<std::string>& ids,
                               std::int64_t ts);
  std::uint64_t file_size();

  std::filesystem::path dir_;
  std::filesystem::path log_path_;
  Sync sync_;
  FileLock lock_;
  UniqueFd log_;
  queue::QueueState state_;
  std::uint64_t log_offset_ = 0;  // bytes of the log applied to state_
  bool bad_tail_ = false;         // the log holds bytes after log_offset_ that do not decode
  bool stale_ = false;            // a failed call left state_ ahead of the log
  bool batch_wrote_ = false;
  // Event lines not yet written (keeps ~1 MiB after a large batch), in memory whose
  // huge page's unused half the next batch's payload texts take (enqueue_rows).
  SpareLendingResource line_memory_;
  queue::LineBuffer lines_{&line_memory_};
  std::string payload_;  // one payload's JSON (enqueue)
};

}  // namespace storh::engines
