// compact() of SegmentedLog (engine-spec.md section 5.8).
#include <fcntl.h>

#include <fmt/format.h>

#include "common/durable_io.h"
#include "common/store_error.h"
#include "log/segment_io.h"
#include "log/segmented_log.h"

namespace storh::engines::log {

void SegmentedLog::compact() {
  FileLock::Guard guard(*lock_);
  // 1. Recovery: a fresh state from disk and fresh manifest statistics.
  open_locked();
  // 2. Seal the active segment so every record lives in a sealed one.
  roll_locked();

  try {
    const std::string tag = random_hex(8);
    std::uint64_t number = 0;
    std::vector<SegmentState> outputs;
    SyncBatch batch(options_.sync, options_.bulk_sync, segments_dir_);
    std::string out;  // the output file being filled
    SegmentState current;
    struct Move {
      IdKey id;
      Location from;
      Location to;
    };
    std::vector<Move> moves;
    moves.reserve(static_cast<std::size_t>(live_));

    // The outputs' cached prefixes, built from the inputs' (their data moves over).
    CachedSegment out_cache;
    bool out_cacheable = true;
    std::vector<std::uint32_t> inputs;

    auto start_output = [&] {
      current = SegmentState{};
      out_cache = CachedSegment{};
      out_cacheable = true;
      current.entry.file = fmt::format("compact-{}-{:06}.ndjson", tag, ++number);
      current.entry.index = index_file_name(current.entry.file);
      current.entry.compacted = true;
      current.file = file_id(current.entry.file);
      out.clear();
    };
    auto close_output = [&] {
      if (current.entry.records == 0) return;
      batch.write_file(segment_path(current.entry.file), out);
      batch.write_file(segment_path(current.entry.index), encode_sparse_index(current.sparse));
      if (out_cacheable) {
        out_cache.end = out.size();
        cache_.install(current.file, std::move(out_cache));
      }
      outputs.push_back(std::move(current));
      start_output();
    };
    start_output();

    std::string buffer;
    for (const SegmentState& segment : sealed_) {
      inputs.push_back(segment.file);
      CachedSegment* cached = cache_.find_mutable(segment.file);
      scan_segment(path_of(segment.file), false, options_.sync, buffer,
                   [&](const LineView& line, std::uint64_t offset, std::uint64_t size) {
                     const Location here{segment.file, offset};
                     const StateEntry* entry = state_.find(line.id);
                     if (entry == nullptr || !(entry->location == here)) return;  // superseded
                     if (line.op == LineOp::remove) {
                       // The delete is the id's current state: no tombstone survives.
                       state_.erase(line.id);
                       --deleted_;
                       return;
                     }
                     const std::uint64_t at = out.size();
                     std::size_t written = 0;
                     const char* begin = buffer.data() + offset;
                     if (line.canonical && begin[size - 1] == '\n') {
                       // Byte for byte: `line.json` ends where the LF (or CR LF) starts.
                       // A final line without its LF is re-encoded (with one), as storh does.
                       out.append(begin, size);
                       written = size;
                     } else {
                       written = append_put_line(out, line.id, line_data(line));
                     }
                     current.add_line(line.id, at, written, options_.sparse_index_interval);
                     const std::size_t index =
                         cached != nullptr ? cached->index_of(offset) : std::size_t{0};
                     if (out_cacheable && cached != nullptr && index < cached->lines.size()) {
                       out_cache.lines.push_back({at, written, make_key(line.id), false,
                                                  std::move(cached->lines[index].data)});
                     } else {
                       out_cacheable = false;
                     }
                     moves.push_back({make_key(line.id), here, Location{current.file, at}});
                     if (out.size() >= options_.max_segment_bytes) close_output();
                   });
    }
    close_output();
    batch.flush(segments_dir_);

    for (const Move& move : moves) {
      bool inserted = false;
      StateEntry& entry = state_.upsert(key_view(move.id), inserted);
      entry.location = move.to;
      state_.add_alias(key_view(move.id), move.from);
    }
    sealed_ = std::move(outputs);
    write_manifest_locked();
    counters_.invalidate();
    // The inputs' data moved to the outputs; paused readers of them use the files.
    for (const std::uint32_t input : inputs) cache_.drop(input);
  } catch (...) {
    needs_recovery_ = true;
    cache_.clear();  // inputs may have lost data to outputs that never got named
    throw;
  }
}

}  // namespace storh::engines::log
