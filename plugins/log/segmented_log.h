// segmented_log.h: storh's segmented append-only log (engine-spec.md section 5), the
// `SegmentedLog` engine. Start here; the other headers of plugins/log/ are its parts.
//
// Layout under <root>/<collection>/ (byte for byte as storh, so either implementation
// opens the other's log):
//   collection.lock, manifest.jsonc, segments/seg-NNNNNN.ndjson (+ .idx.jsonc when
//   sealed), segments/compact-<hex8>-NNNNNN.ndjson (+ .idx.jsonc), .storh/writers/.
//
// Durability: every write is durable before it returns (with Sync::durable, the
// default). put/remove write one line and fdatasync it; a roll also writes the sealed
// segment's sparse index, creates the next segment, fsyncs segments/ and replaces the
// manifest atomically. append_many/append_stream write whole segments without syncing
// and then sync every file they wrote in one pass per MiB chunk and before returning
// ("sync per chunk": one syncfs for 16 files or more with LogOptions::bulk_sync =
// filesystem where open_for_syncfs allows it, else an fdatasync of each and an fsync of
// segments/), then swap the manifest once. A crash at any
// byte keeps every acknowledged record: the reopen cuts each segment at its first line
// that does not decode. A final line that decodes but lacks its LF (section 13.1; storh
// writes the LF in the same write, so it comes from a crash between the two or another
// writer) is a record, as storh serves it; before the next append to that segment the
// writer puts the missing LF in front of the new line, in the same write and sync, so
// the file is well-formed again (storh glues the new line on, losing both records).
//
// Concurrency: writes take collection.lock (flock) per call, so processes serialise;
// reads never lock. An instance sees other processes' appends only after recover() or
// a reopen (section 5.11). One instance must be used by one thread at a time.
//
// Reads are served from a bounded cache of decoded lines (record_cache.h) where it
// holds them, and from the files otherwise; every recovery checks the cache against
// the files, so answers are always those of the files.
//
// Failure: every function throws StoreError (or std::invalid_argument for bad ids and
// queries) naming what failed and where. After a failed write the instance re-runs
// recovery before its next operation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/durable_io.h"
#include "common/file_lock.h"
#include "common/query/record_query.h"
#include "common/record.h"
#include "common/writer_markers.h"
#include "log/log_query.h"
#include "log/log_state.h"
#include "log/manifest.h"
#include "log/record_cache.h"
#include "log/segment_io.h"

namespace storh::engines::log {

struct LogOptions {
  // A segment seals right after the line that takes it to this size or more. >= 256.
  std::uint64_t max_segment_bytes = 1 << 20;
  // Every interval-th line of a segment gets a sparse index entry. >= 1.
  std::uint64_t sparse_index_interval = 64;
  // Sync::none skips every fsync (to measure their cost); never the default.
  Sync sync = Sync::durable;
  // How append_many / append_stream and compact make their new files durable
  // (durable_io.h): one syncfs per sync pass, or storh's fdatasync of each file and fsync
  // of segments/.
  BulkSync bulk_sync = BulkSync::filesystem;
};

struct LogStats {
  std::uint64_t segments = 0;  // manifest entries, the active one included
  std::uint64_t records = 0;   // live records
  std::uint64_t deleted = 0;   // tombstones in the state
  std::uint64_t bytes = 0;     // sizes of the manifest-listed files
  friend bool operator==(const LogStats&, const LogStats&) = default;
};

struct VerifyReport {
  bool ok = true;
  std::vector<std::string> errors;
  LogStats stats;
};

// Callbacks of a stream (RecordQuery's continue_on_error and on_segment_open).
struct StreamOptions {
  // When set, unreadable lines are reported as (location "<file>:<offset>", message) and
  // skipped; when unset they throw StoreError.
  std::function<void(std::string_view location, std::string_view error)> on_error;
  // Called once per segment file the stream opens.
  std::function<void(const std::string& file)> on_segment_open;
};

class SegmentedLog;

// A lazy read in log position order (segment order, then line order). It keeps the
// files it was planned on, so a compaction while it is paused does not disturb it.
// The log must outlive the stream. Not thread-safe.
class LogStream {
 public:
  // The next matching record, or false at the end (or at the limit).
  bool next(Record& out);
  // Drains the stream.
  std::vector<Record> to_vector();

  LogStream(LogStream&&) noexcept;
  LogStream& operator=(LogStream&&) noexcept;
  ~LogStream();

 private:
  friend class SegmentedLog;
  struct Plan;
  explicit LogStream(std::unique_ptr<Plan> plan);
  std::unique_ptr<Plan> plan_;
};

class SegmentedLog {
 public:
  // Opens (creating when missing) <root>/<collection> and recovers it (section 5.9):
  // temp sweep, writer marker, leftover compaction output removed, every segment
  // scanned and cut at its first bad line, manifest rewritten when it changed.
  // Throws std::invalid_argument for max_segment_bytes < 256 or an interval < 1.
  SegmentedLog(const std::filesystem::path& root, std::string collection, LogOptions options = {});
  ~SegmentedLog();
  SegmentedLog(const SegmentedLog&) = delete;
  SegmentedLog& operator=(const SegmentedLog&) = delete;

  // Appends a put; `id` (validated) or a generated one. Durable on return.
  Record put(Json data, std::optional<std::string_view> id = std::nullopt);
  // Appends a delete line for `id` (validated), even for an unknown id. Durable.
  void remove(std::string_view id);
  // Rows follow section 1.1 (envelope or bare row). Every supplied id is validated
  // before anything is written. Durable on return.
  std::vector<Record> append_many(std::vector<Json> rows);
  // Pulls rows from `next` (false = end) and appends them. Returns how many. Durable
  // on return; rows already written stay if `next` throws.
  using RowSource = std::function<bool(Json& row)>;
  std::uint64_t append_stream(const RowSource& next);

  // The live record, or nullopt when missing or deleted.
  std::optional<Record> get(std::string_view id) const;
  LogStream stream(const RecordQuery& query = RecordQuery::all(), StreamOptions options = {}) const;

  std::vector<Record> find(const LogQuery& query) const;
  std::optional<Record> first(const LogQuery& query) const;
  std::uint64_t count(const LogQuery& query = LogQuery()) const;

  LogStats stats() const;
  // Rewrites every sealed segment into compact-* files holding only live, current
  // records (section 5.8). Old files stay on disk for paused readers.
  void compact();
  // Re-reads everything from disk (picks up other processes' appends, cuts torn tails).
  void recover();
  VerifyReport verify();
  LogStats repair();

  // The manifest as this instance knows it (fresh statistics).
  Manifest manifest() const;
  const std::filesystem::path& directory() const noexcept { return dir_; }
  const LogOptions& options() const noexcept { return options_; }

 private:
  friend class LogStream;

  // Open and recovery (segmented_log.cpp / log_recovery.cpp).
  void open_locked();
  void rebuild_state_locked(bool truncate);
  void remove_leftovers(const Manifest& manifest);
  void write_manifest_locked();
  // Replaces the manifest after making `targets` durable: the new manifest's temp file,
  // `targets` and segments/ are synced together, then the rename and the collection
  // directory's fsync follow (a roll's whole protocol in three sync latencies).
  void replace_manifest_after(std::vector<SyncTarget> targets);
  void remember_manifest_stamp();
  // Adds a line this instance wrote (or read) to the cache when it extends a prefix.
  void cache_line(Location location, std::uint64_t size, std::string_view id, bool is_delete,
                  const Json* data) const;
  void refresh_manifest_if_changed();
  void ensure_healthy();
  std::uint32_t file_id(const std::string& name);
  std::filesystem::path segment_path(const std::string& name) const { return segments_dir_ / name; }
  std::filesystem::path path_of(std::uint32_t file) const { return segments_dir_ / files_[file]; }
  void open_active_fd();
  // Whether the active file, `end` bytes long, ends without an LF (an open tail that
  // the next append must terminate). Reads its last byte unless known.
  bool tail_needs_lf(std::uint64_t end) const;
  std::uint64_t pick_next_segment_number() const;

  // Writes (log_writes.cpp).
  Record append_one(std::string_view id, Json data, bool is_delete);
  void apply_line(std::string_view id, bool is_delete, Location location);
  void roll_locked();
  // The one segment roll both write paths share: opens the next segment file (before
  // any state changes, so a failure leaves the log as it was), moves the active segment
  // to the sealed ones with `index_name` as its index file (written, or queued, by the
  // caller), makes the new file the active segment, and returns the sealed segment's
  // descriptor. The caller syncs what it must and writes the manifest.
  UniqueFd start_next_segment_locked(const std::string& index_name);
  // Yields (id, data) pairs; an empty id asks for a generated one. `data` must stay
  // valid until the next call.
  using PairSource = std::function<bool(std::string_view& id, const Json*& data)>;
  std::uint64_t append_rows_locked(const PairSource& next);

  // Reads (log_reads.cpp).
  bool read_line_at(Location location, std::string& buffer, std::string_view& line) const;
  bool is_current(std::string_view id, Location location) const;
  std::optional<Record> read_record(std::string_view id, Location location) const;
  void rebuild_counters() const;
  std::uint64_t scan_count(const LogQuery& query, std::uint64_t cap) const;

  std::filesystem::path dir_;
  std::filesystem::path segments_dir_;
  std::filesystem::path manifest_path_;
  LogOptions options_;
  std::unique_ptr<FileLock> lock_;
  std::unique_ptr<WriterMarker> marker_;

  // File registry: indices never change for the life of the instance, so locations
  // and paused streams stay meaningful across compactions and recoveries.
  std::vector<std::string> files_;
  std::unordered_map<std::string, std::uint32_t> file_ids_;

  std::uint64_t next_segment_ = 2;
  std::vector<SegmentState> sealed_;
  SegmentState active_;
  UniqueFd active_fd_;
  std::uint64_t active_end_ = 0;
  // False once this instance knows the active file ends with an LF (it wrote the last
  // line); set when it opens an active file that is not empty.
  bool check_tail_ = false;

  StateIndex state_;
  std::uint64_t live_ = 0;
  std::uint64_t deleted_ = 0;
  mutable EqualityCounters counters_;
  mutable bool counters_rebuilt_ = false;
  // Decoded lines of segment prefixes (record_cache.h): filled by this instance's
  // writes and by streams that read a prefix from disk; checked by every recovery.
  mutable RecordCache cache_;

  struct Stamp {
    std::uint64_t ino = 0, size = 0;
    std::int64_t mtime_ns = 0;
    friend bool operator==(const Stamp&, const Stamp&) = default;
  };
  Stamp manifest_stamp_;
  std::string manifest_text_;  // what this instance last wrote or read
  bool needs_recovery_ = false;

  // Read descriptors by file, at most kReadFds of them.
  static constexpr std::size_t kReadFds = 16;
  mutable std::vector<std::pair<std::uint32_t, UniqueFd>> read_fds_;
  int read_fd(std::uint32_t file) const;
};

}  // namespace storh::engines::log
