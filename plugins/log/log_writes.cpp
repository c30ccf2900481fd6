// The write path of SegmentedLog (engine-spec.md section 5.5): single appends, batched
// appends and rolling.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <fmt/format.h>

#include "common/row_input.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"
#include "log/segment_io.h"
#include "log/segmented_log.h"

namespace storh::engines::log {
namespace fs = std::filesystem;

namespace {

// Batched appends sync at least once per this many bytes (storh's buffer size).
constexpr std::uint64_t kChunkBytes = 1 << 20;
// The write buffer: rows are encoded into it and written once it holds this much.
constexpr std::size_t kWriteBufferBytes = std::size_t{64} * 1024;

}  // namespace

Record SegmentedLog::put(Json data, std::optional<std::string_view> id) {
  if (id) uuid_v7::assert_valid(*id);
  FileLock::Guard guard(*lock_);
  ensure_healthy();
  if (id) return append_one(*id, std::move(data), false);
  char generated[uuid_v7::kTextSize];
  uuid_v7::generate_to(uuid_v7::now_ms(), generated);
  return append_one(std::string_view(generated, sizeof generated), std::move(data), false);
}

void SegmentedLog::remove(std::string_view id) {
  uuid_v7::assert_valid(id);
  FileLock::Guard guard(*lock_);
  ensure_healthy();
  append_one(id, nullptr, true);
}

Record SegmentedLog::append_one(std::string_view id, Json data, bool is_delete) {
  refresh_manifest_if_changed();
  const fs::path path = path_of(active_.file);
  // The file end, not our count: another process may have appended (section 5.11).
  const off_t end = ::lseek(active_fd_.get(), 0, SEEK_END);
  if (end < 0) throw_errno("lseek", path);
  // An open tail (a record without its LF, section 13.1) gets its LF in the same write.
  const bool terminate = tail_needs_lf(static_cast<std::uint64_t>(end));
  std::string bytes;
  bytes.reserve(256);
  if (terminate) bytes.push_back('\n');
  if (is_delete) {
    append_delete_line(bytes, id);
  } else {
    append_put_line(bytes, id, data);
  }
  const std::uint64_t offset = static_cast<std::uint64_t>(end) + (terminate ? 1 : 0);
  const std::uint64_t size = bytes.size() - (terminate ? 1 : 0);
  try {
    pwrite_all(active_fd_.get(), bytes, static_cast<std::uint64_t>(end), path);
    sync_data(active_fd_.get(), path, options_.sync);
  } catch (...) {
    // Never leave a partial line for the next append to be glued onto.
    (void)::ftruncate(active_fd_.get(), end);
    needs_recovery_ = true;
    throw;
  }
  // The state changes only after the fsync (section 13.11).
  if (terminate) cache_.terminate_last(active_.file, static_cast<std::uint64_t>(end));
  check_tail_ = false;
  bool inserted = !is_delete && state_.find(id) == nullptr;
  active_.add_line(id, offset, size, options_.sparse_index_interval);
  apply_line(id, is_delete, Location{active_.file, offset});
  active_end_ = offset + size;
  if (inserted) {
    counters_.add(data);
  } else {
    counters_.invalidate();
  }
  cache_line(Location{active_.file, offset}, size, id, is_delete, &data);
  if (active_end_ >= options_.max_segment_bytes) {
    try {
      roll_locked();
    } catch (...) {
      needs_recovery_ = true;
      throw;
    }
  }
  return Record{std::string(id), std::move(data)};
}

void SegmentedLog::roll_locked() {
  if (active_.entry.records == 0) return;
  const std::string index_name = index_file_name(active_.entry.file);
  const fs::path index_path = segment_path(index_name);
  UniqueFd index_fd = open_or_throw(index_path, O_WRONLY | O_CREAT | O_TRUNC);
  write_all(index_fd.get(), encode_sparse_index(active_.sparse), index_path);
  // The sealed segment's data was synced by its appends (its descriptor closes here);
  // the index, segments/ (the index's and the new segment's entries) and the new
  // manifest's temp file are synced together below, all before the rename makes the
  // manifest name them.
  start_next_segment_locked(index_name);
  replace_manifest_after({{index_fd.get(), &index_path, false}});
  index_fd.close_or_throw(index_path);
}

UniqueFd SegmentedLog::start_next_segment_locked(const std::string& index_name) {
  const std::uint64_t number = pick_next_segment_number();
  const std::string next_name = segment_file_name(number);
  UniqueFd next_fd = open_or_throw(segment_path(next_name), O_WRONLY | O_CREAT);
  active_.entry.index = index_name;
  sealed_.push_back(std::move(active_));
  active_ = SegmentState{};
  active_.file = file_id(next_name);
  active_.entry.file = next_name;
  next_segment_ = number + 1;
  active_end_ = 0;
  return std::exchange(active_fd_, std::move(next_fd));
}

std::vector<Record> SegmentedLog::append_many(std::vector<Json> rows) {
  // Every id is validated (or generated) before anything is written.
  std::vector<Record> records;
  records.reserve(rows.size());
  for (Json& row : rows) {
    RowInput input = split_row(std::move(row));
    if (input.id) {
      uuid_v7::assert_valid(*input.id);
      records.push_back({std::move(*input.id), std::move(input.data)});
    } else {
      records.push_back({uuid_v7::generate(), std::move(input.data)});
    }
  }
  std::size_t next = 0;
  FileLock::Guard guard(*lock_);
  ensure_healthy();
  append_rows_locked([&](std::string_view& id, const Json*& data) {
    if (next == records.size()) return false;
    id = records[next].id;
    data = &records[next].data;
    ++next;
    return true;
  });
  return records;
}

std::uint64_t SegmentedLog::append_stream(const RowSource& next) {
  FileLock::Guard guard(*lock_);
  ensure_healthy();
  Json row;
  RowInput input;
  return append_rows_locked([&](std::string_view& id, const Json*& data) {
    if (!next(row)) return false;
    input = split_row(std::move(row));
    if (input.id) uuid_v7::assert_valid(*input.id);
    id = input.id ? std::string_view(*input.id) : std::string_view();
    data = &input.data;
    return true;
  });
}

std::uint64_t SegmentedLog::append_rows_locked(const PairSource& next) {
  refresh_manifest_if_changed();
  const off_t end = ::lseek(active_fd_.get(), 0, SEEK_END);
  if (end < 0) throw_errno("lseek", path_of(active_.file));
  SyncBatch batch(options_.sync, options_.bulk_sync, segments_dir_);
  std::string buffer;
  buffer.reserve(kWriteBufferBytes);
  // An open tail (section 13.1) gets its LF as the first byte of the first write.
  if (tail_needs_lf(static_cast<std::uint64_t>(end))) {
    buffer.push_back('\n');
    cache_.terminate_last(active_.file, static_cast<std::uint64_t>(end));  // see cache_line
  }
  check_tail_ = false;
  active_end_ = static_cast<std::uint64_t>(end) + buffer.size();
  if (!buffer.empty()) active_.bytes = active_end_;
  std::uint64_t unsynced = 0;  // bytes written since the last sync pass
  bool rolled = false;         // the manifest must name new segments
  std::uint64_t appended = 0;

  // > 0 while a write, sync or roll runs: an exception escaping then is an I/O failure,
  // after which the files hold an unknown prefix of the buffer.
  int in_io = 0;
  auto write_buffer = [&] {
    if (buffer.empty()) return;
    ++in_io;
    write_all(active_fd_.get(), buffer, path_of(active_.file));
    --in_io;
    unsynced += buffer.size();
    buffer.clear();
  };
  auto commit = [&] {
    ++in_io;
    write_buffer();
    batch.flush(segments_dir_, active_fd_.get(), path_of(active_.file));
    if (rolled) write_manifest_locked();
    --in_io;
    rolled = false;
    unsynced = 0;
  };
  auto seal = [&] {
    ++in_io;
    write_buffer();
    const std::string index_name = index_file_name(active_.entry.file);
    batch.write_file(segment_path(index_name), encode_sparse_index(active_.sparse));
    const fs::path sealed_path = path_of(active_.file);
    // The sealed segment is synced with the batch's next flush.
    batch.add(start_next_segment_locked(index_name), sealed_path);
    rolled = true;
    --in_io;
  };

  try {
    std::string_view id;
    const Json* data = nullptr;
    char generated[uuid_v7::kTextSize];
    while (next(id, data)) {
      if (id.empty()) {
        uuid_v7::generate_to(uuid_v7::now_ms(), generated);
        id = std::string_view(generated, sizeof generated);
      }
      const bool inserted = state_.find(id) == nullptr;
      const std::size_t size = append_put_line(buffer, id, *data);
      const std::uint64_t offset = active_end_;
      active_.add_line(id, offset, size, options_.sparse_index_interval);
      apply_line(id, false, Location{active_.file, offset});
      active_end_ += size;
      if (inserted) {
        counters_.add(*data);
      } else {
        counters_.invalidate();
      }
      // Cached before the write: a failure below sets needs_recovery_, and recovery
      // drops every cached line the files do not hold.
      cache_line(Location{active_.file, offset}, size, id, false, data);
      ++appended;
      if (active_end_ >= options_.max_segment_bytes) seal();
      if (buffer.size() >= kWriteBufferBytes) write_buffer();
      if (unsynced >= kChunkBytes) commit();
    }
    commit();
  } catch (...) {
    // The next operation re-reads the files (recovery cuts a torn line).
    needs_recovery_ = true;
    if (in_io > 0) throw;
    // The rows' source failed (a bad id, the caller's exception): the rows before it
    // are kept, written in full. Never after an I/O failure: a write that failed part
    // way leaves part of the buffer in the file, and writing the buffer again would put
    // whole lines after a torn one, which the next open cuts away with everything later
    // (a fault-injection test found that).
    try {
      commit();
      needs_recovery_ = false;
    } catch (...) {
    }
    throw;
  }
  return appended;
}

}  // namespace storh::engines::log
