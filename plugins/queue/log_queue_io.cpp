// LogQueue's log file: reading it back (replay, catching up with other writers) and
// appending to it in batches (engine-spec.md section 6's event lines).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <stdexcept>
#include <utility>

#include "common/durable_io.h"
#include "common/fast_json.h"
#include "common/run_clock.h"
#include "common/store_error.h"
#include "queue/log_queue.h"
#include "queue/log_replay.h"
#include "queue/queue_event.h"

namespace storh::engines {

namespace fs = std::filesystem;
using queue::EventOp;

// ---------------------------------------------------------------------------------
// Reading the log
// ---------------------------------------------------------------------------------

std::uint64_t LogQueue::file_size() {
  struct stat info {};
  if (::fstat(log_.get(), &info) != 0) throw_errno("fstat", log_path_);
  return static_cast<std::uint64_t>(info.st_size);
}

std::string LogQueue::read_from(std::uint64_t offset, std::uint64_t size) {
  std::string bytes(static_cast<std::size_t>(size), '\0');
  // Fewer bytes when the file shrank meanwhile: take what is there.
  bytes.resize(pread_full(log_.get(), bytes.data(), bytes.size(), offset, log_path_));
  return bytes;
}

void LogQueue::replay(bool truncate_bad_tail) {
  state_.clear();
  log_offset_ = 0;
  bad_tail_ = false;
  stale_ = true;  // until the replay completes
  const std::string bytes = read_from(0, file_size());
  const queue::ReplayOutcome outcome =
      queue::apply_log_lines(bytes, run_clock::wall_clock_seconds(), state_);
  log_offset_ = outcome.applied_bytes;
  bad_tail_ = outcome.stopped_at_bad_line;
  stale_ = false;
  if (bad_tail_ && truncate_bad_tail) cut_bad_tail();
}

void LogQueue::sync_from_log() {
  if (stale_) {
    replay(false);
    return;
  }
  const std::uint64_t size = file_size();
  if (size < log_offset_) {  // truncated behind our back: start over
    replay(false);
    return;
  }
  if (size == log_offset_) {
    bad_tail_ = false;
    return;
  }
  stale_ = true;  // until the new lines are applied
  const std::string bytes = read_from(log_offset_, size - log_offset_);
  const queue::ReplayOutcome outcome =
      queue::apply_log_lines(bytes, run_clock::wall_clock_seconds(), state_);
  log_offset_ += outcome.applied_bytes;
  bad_tail_ = outcome.stopped_at_bad_line;
  stale_ = false;
}

// ---------------------------------------------------------------------------------
// Writing the log
// ---------------------------------------------------------------------------------

void LogQueue::cut_bad_tail() {
  // Only under the lock: every writer writes whole lines while holding it, so bytes
  // that do not decode are a dead writer's torn line or foreign garbage, and the next
  // open would cut them (and anything after them) anyway.
  if (::ftruncate(log_.get(), static_cast<off_t>(log_offset_)) != 0) {
    throw_errno("truncate", log_path_);
  }
  sync_file(log_.get(), log_path_, sync_);
  bad_tail_ = false;
}

void LogQueue::write_lines(std::string_view lines) {
  if (bad_tail_) cut_bad_tail();
  write_all(log_.get(), lines, log_path_);  // O_APPEND: at the end, never over a hole
  log_offset_ += lines.size();
  batch_wrote_ = true;
}

void LogQueue::reserve_batch(std::size_t bytes) {
  // One allocation for the chunk buffer instead of a doubling series; the capacity is
  // kept for later batches of this instance. A batch past kSmallBatchBytes takes the
  // whole chunk at once, so the next larger batch reuses its pages instead of a new
  // buffer whose pages fault in again (claim_many, then complete_many of the same
  // 10,000 jobs: 0.87 MB of lines, then 1.02 MB).
  if (bytes <= lines_.capacity()) return;
  lines_.reserve(bytes <= kSmallBatchBytes ? bytes : kChunkBytes + kChunkSlack);
}

void LogQueue::flush_chunk_if_full() {
  if (lines_.size() < kChunkBytes) return;
  const std::uint64_t offset = log_offset_;
  write_lines(lines_);
  // Start writing this chunk to the device now, without waiting, so the batch's one
  // fdatasync at the end has less left to write while the next chunk is encoded. Only
  // a hint: the fdatasync is still what makes the batch durable.
  if (sync_ == Sync::durable) {
    ::sync_file_range(log_.get(), static_cast<off_t>(offset), static_cast<off_t>(lines_.size()),
                      SYNC_FILE_RANGE_WRITE);
  }
  lines_.clear();
}

void LogQueue::finish_batch() {
  if (!lines_.empty()) {
    write_lines(lines_);
    lines_.clear();
  }
  if (batch_wrote_) sync_data(log_.get(), log_path_, sync_);
}

std::size_t LogQueue::append_id_events(EventOp op, const std::vector<std::string>& ids,
                                       std::int64_t ts) {
  const queue::IdLines lines(op, ts);
  for (const std::string& id : ids) {
    lines.append(lines_, id);
    if (op == EventOp::requeue) {
      state_.apply_requeue(id);
    } else {
      state_.apply_purge(id);
    }
    flush_chunk_if_full();
  }
  finish_batch();
  return ids.size();
}

}  // namespace storh::engines
