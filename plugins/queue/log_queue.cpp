// LogQueue: opening and the public calls. Reading and writing the log file:
// log_queue_io.cpp.
#include "queue/log_queue.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <stdexcept>
#include <utility>

#include "common/durable_io.h"
#include "common/fast_json.h"
#include "common/row_input.h"
#include "common/run_clock.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"
#include "queue/log_replay.h"
#include "queue/queue_event.h"

namespace storh::engines {

namespace fs = std::filesystem;
using queue::EventOp;
using queue::JobStatus;

namespace {

std::int64_t now() {
  return run_clock::wall_clock_seconds();
}

// What a claim hands out for a pending job whose payload a purge event dropped (a log
// that purged a job before it was done; an empty payload itself is stored as "[]").
// Rare, so a fresh text each time: no object shared by every queue outlives a plugin.
SharedText missing_payload() {
  return SharedText("[]");
}

// The queue directory, created before the lock file inside it is opened.
fs::path prepared(const fs::path& dir) {
  make_directories(dir);
  return dir;
}

}  // namespace

Json QueueJob::payload_json() const {
  return parse_json_or_throw(payload.view());
}

// The frame of every mutating call: holds the lock, catches up with the log, and marks
// the state stale if the call throws after changing it, so the next call rebuilds it
// from the log (the file is the truth).
class LogQueue::Mutation {
 public:
  explicit Mutation(LogQueue& queue, bool replay_first = false)
      : queue_(queue), guard_(queue.lock_), exceptions_(std::uncaught_exceptions()) {
    if (replay_first) {
      queue_.replay(true);
    } else {
      queue_.sync_from_log();
    }
    queue_.lines_.clear();
    queue_.batch_wrote_ = false;
  }
  ~Mutation() {
    if (std::uncaught_exceptions() > exceptions_) queue_.stale_ = true;
  }
  Mutation(const Mutation&) = delete;
  Mutation& operator=(const Mutation&) = delete;

 private:
  LogQueue& queue_;
  FileLock::Guard guard_;
  int exceptions_;
};

LogQueue::LogQueue(const fs::path& root, std::string_view name, Sync sync)
    : dir_(root / name),
      log_path_(dir_ / "queue.log"),
      sync_(sync),
      lock_(prepared(dir_) / "queue.lock", O_RDWR) {
  log_ = open_or_throw(log_path_, O_RDWR | O_CREAT | O_APPEND);
  FileLock::Guard guard(lock_);
  replay(true);
}

LogQueue::~LogQueue() = default;

// ---------------------------------------------------------------------------------
// Public calls
// ---------------------------------------------------------------------------------

std::string LogQueue::enqueue(const Json& payload, std::optional<std::string_view> id) {
  std::string job_id = id ? std::string(*id) : uuid_v7::generate();
  if (id) uuid_v7::assert_valid(job_id);
  payload_.clear();
  queue::append_normalised_payload(payload_, payload);

  Mutation mutation(*this);
  queue::append_enqueue_line(lines_, job_id, payload_, now());
  write_lines(lines_);
  state_.apply_enqueue(job_id, payload_);
  sync_data(log_.get(), log_path_, sync_);
  return job_id;
}

QueueJobIds LogQueue::enqueue_many(std::vector<Json> jobs) {
  std::size_t next = 0;
  return enqueue_rows(
      [&]() -> std::optional<Json> {
        if (next == jobs.size()) return std::nullopt;
        return std::move(jobs[next++]);
      },
      jobs.size());
}

QueueJobIds LogQueue::enqueue_many(const JobSource& next_job, std::size_t expected_jobs) {
  return enqueue_rows(next_job, expected_jobs);
}

QueueJobIds LogQueue::enqueue_rows(const JobSource& next_job, std::size_t hint) {
  Mutation mutation(*this);
  const std::int64_t ts = now();
  const std::uint64_t batch_start = log_offset_;
  reserve_batch(hint * kEnqueueLineBytes);
  // Huge blocks leave the rest of their last huge page unused: the chunk buffer's (made
  // by the first large batch of this instance) takes the payload texts, the job table's
  // its index and then the ids returned, when they fit there.
  QueueJobIds ids(LentFirstAllocator<UuidText>(state_.reserve(hint, line_memory_.take_spare())));
  ids.reserve(hint);
  // Each row is encoded and released while it is still in cache, and each full chunk
  // is written while the next is encoded, through one chunk-sized buffer: the batch's
  // lines never sit in memory at once. An invalid id, a throwing source or a failed
  // write or sync after a chunk was written takes the log back to where the batch
  // began, under the lock still held, so a call that throws leaves the log as it found
  // it (a process killed mid-batch may leave whole lines of it, as a torn batch always
  // could); the state applied so far is stale and Mutation makes the next call rebuild
  // it from the log.
  try {
    while (std::optional<Json> job = next_job()) {
      // The row is read in place: its payload is encoded straight into the chunk buffer
      // and the job table copies that text; the row itself is never copied or split.
      const RowParts row = row_parts(*job, "payload");
      if (row.id != nullptr) {
        uuid_v7::assert_valid(*row.id);
        ids.emplace_back(*row.id);
      } else {
        char fresh[uuid_v7::kTextSize];
        uuid_v7::generate_to(uuid_v7::now_ms(), fresh);
        ids.emplace_back(std::string_view(fresh, sizeof fresh));
      }
      state_.prefetch(ids.back());
      const std::string_view payload =
          queue::encode_enqueue_line(lines_, ids.back(), *row.data, ts);
      state_.apply_enqueue(ids.back(), payload);
      flush_chunk_if_full();
    }
    finish_batch();
  } catch (...) {
    lines_.clear();
    if (batch_wrote_) undo_writes(batch_start, std::current_exception());
    throw;
  }
  return ids;
}

void LogQueue::undo_writes(std::uint64_t batch_start, const std::exception_ptr& cause) {
  try {
    if (::ftruncate(log_.get(), static_cast<off_t>(batch_start)) != 0) {
      throw_errno("truncate a failed batch's lines from", log_path_);
    }
    sync_file(log_.get(), log_path_, sync_);
    log_offset_ = batch_start;
  } catch (const std::exception& undo) {
    std::string message = "unknown error";
    try {
      std::rethrow_exception(cause);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {  // NOLINT(bugprone-empty-catch): the message stays "unknown error"
    }
    message += "; and the log could not be taken back to where the batch began: ";
    message += undo.what();
    throw StoreError(message);
  }
}

std::optional<QueueJob> LogQueue::claim() {
  Mutation mutation(*this);
  const std::int64_t ts = now();
  std::optional<QueueJob> job;
  // The state changes before the write; if the write throws, Mutation marks it stale.
  state_.claim_front(1, ts, [&](std::string_view id, const queue::JobEntry& entry) {
    job = QueueJob{UuidText(id), entry.has_payload ? entry.payload : missing_payload()};
  });
  if (!job) return std::nullopt;
  queue::append_id_line(lines_, EventOp::claim, job->id, ts);
  write_lines(lines_);
  sync_data(log_.get(), log_path_, sync_);
  return job;
}

QueueJobs LogQueue::claim_many(std::size_t limit) {
  if (limit < 1) throw std::invalid_argument("Queue claim limit must be at least 1.");
  Mutation mutation(*this);
  const std::int64_t ts = now();
  QueueJobs jobs;
  const std::size_t expected = std::min<std::uint64_t>(limit, state_.counts().pending);
  jobs.reserve(expected);
  reserve_batch(expected * kClaimLineBytes);
  const queue::IdLines claim_lines(EventOp::claim, ts);
  state_.claim_front(limit, ts, [&](std::string_view id, const queue::JobEntry& entry) {
    jobs.push_back({UuidText(id), entry.has_payload ? entry.payload : missing_payload()});
    claim_lines.append(lines_, id);
    flush_chunk_if_full();
  });
  finish_batch();
  return jobs;
}

bool LogQueue::complete(std::string_view id, bool keep_done) {
  uuid_v7::assert_valid(id);
  Mutation mutation(*this);
  const std::int64_t ts = now();
  if (!state_.complete_if_processing(id, keep_done, ts)) return false;
  queue::append_complete_line(lines_, id, keep_done, ts);
  write_lines(lines_);
  sync_data(log_.get(), log_path_, sync_);
  return true;
}

std::size_t LogQueue::complete_many(const std::vector<std::string>& ids, bool keep_done) {
  return complete_ids(ids, keep_done);
}

template <class Ids>
std::size_t LogQueue::complete_ids(const Ids& ids, bool keep_done) {
  for (const auto& id : ids) uuid_v7::assert_valid(id);
  if (ids.empty()) return 0;
  Mutation mutation(*this);
  const std::int64_t ts = now();
  std::size_t completed = 0;
  reserve_batch(ids.size() * kCompleteLineBytes);
  const queue::IdLines complete_lines(EventOp::complete, ts, keep_done);
  for (const auto& id : ids) {
    // Applying as we go makes a repeated id no longer processing: duplicates skip.
    if (!state_.complete_if_processing(id, keep_done, ts)) continue;
    complete_lines.append(lines_, id);
    ++completed;
    flush_chunk_if_full();
  }
  finish_batch();
  return completed;
}

template std::size_t LogQueue::complete_ids(const QueueJobIds& ids, bool keep_done);

std::size_t LogQueue::requeue_timed_out(std::int64_t timeout_s) {
  Mutation mutation(*this);
  if (state_.counts().processing == 0) return 0;
  const std::int64_t ts = now();
  const std::vector<std::string> ids = state_.ids_with(
      JobStatus::processing,
      [&](const queue::JobEntry& job) { return timeout_s <= 0 || ts - job.ts >= timeout_s; });
  return append_id_events(EventOp::requeue, ids, ts);
}

std::size_t LogQueue::purge_done(std::int64_t older_than_s) {
  Mutation mutation(*this);
  if (state_.counts().done == 0) return 0;
  const std::int64_t ts = now();
  const std::vector<std::string> ids = state_.ids_with(
      JobStatus::done,
      [&](const queue::JobEntry& job) { return older_than_s <= 0 || ts - job.ts >= older_than_s; });
  return append_id_events(EventOp::purge, ids, ts);
}

QueueCounts LogQueue::counts() {
  FileLock::Guard guard(lock_);
  sync_from_log();
  return state_.counts();
}

QueueStats LogQueue::stats() {
  FileLock::Guard guard(lock_);
  sync_from_log();
  std::error_code error;
  const std::uintmax_t bytes = fs::file_size(log_path_, error);
  return {state_.counts(), error ? 0 : static_cast<std::uint64_t>(bytes)};
}

QueueVerifyReport LogQueue::verify() {
  FileLock::Guard guard(lock_);
  QueueVerifyReport report;
  std::string bytes;
  bool readable = true;
  try {
    bytes = read_file_bytes(log_path_);
  } catch (const StoreError&) {
    readable = false;
    report.errors.emplace_back("Could not read log queue file.");
  }
  queue::QueueState replayed;
  if (readable) {
    const queue::ReplayOutcome outcome = queue::apply_log_lines(bytes, now(), replayed);
    if (outcome.stopped_at_bad_line) {
      report.errors.push_back("line " + std::to_string(outcome.applied_lines + 1) + ": " +
                              outcome.error);
    }
  }
  sync_from_log();
  if (readable) {
    if (const std::string drift = state_.difference(replayed); !drift.empty()) {
      report.errors.push_back("Log queue state drift. " + drift);
    }
  }
  report.ok = report.errors.empty();
  std::error_code error;
  const std::uintmax_t size = fs::file_size(log_path_, error);
  report.stats = {state_.counts(), error ? 0 : static_cast<std::uint64_t>(size)};
  return report;
}

QueueRepairReport LogQueue::repair(std::int64_t timeout_s) {
  Mutation mutation(*this, /*replay_first=*/true);
  const std::int64_t ts = now();
  const std::vector<std::string> ids = state_.ids_with(
      JobStatus::processing,
      [&](const queue::JobEntry& job) { return timeout_s <= 0 || ts - job.ts >= timeout_s; });
  return {true, append_id_events(EventOp::requeue, ids, ts)};
}

}  // namespace storh::engines
