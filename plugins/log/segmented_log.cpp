// Opening, recovery and the manifest of SegmentedLog (engine-spec.md sections 5.3, 5.9).
#include "log/segmented_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>

#include "common/durable_io.h"
#include "common/fast_json.h"
#include "common/store_error.h"
#include "log/segment_io.h"

namespace storh::engines::log {
namespace fs = std::filesystem;

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The number of "seg-NNNNNN.ndjson", or 0 for other names.
std::uint64_t segment_number(std::string_view name) {
  if (!starts_with(name, "seg-") || !ends_with(name, ".ndjson")) return 0;
  std::uint64_t number = 0;
  for (char c : name.substr(4, name.size() - 4 - 7)) {
    if (c < '0' || c > '9') return 0;
    number = number * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return number;
}

void touch(const fs::path& path) {
  UniqueFd fd = open_or_throw(path, O_WRONLY | O_CREAT);
  fd.close_or_throw(path);
}

}  // namespace

SegmentedLog::SegmentedLog(const fs::path& root, std::string collection, LogOptions options)
    : dir_(root / collection), options_(options) {
  if (options_.max_segment_bytes < 256) {
    throw std::invalid_argument("Segmented log max_segment_bytes must be at least 256.");
  }
  if (options_.sparse_index_interval < 1) {
    throw std::invalid_argument("Segmented log sparse_index_interval must be at least 1.");
  }
  if (collection.empty() || collection.find('/') != std::string::npos) {
    throw std::invalid_argument(fmt::format("Invalid collection name \"{}\".", collection));
  }
  segments_dir_ = dir_ / "segments";
  manifest_path_ = dir_ / "manifest.jsonc";
  create_directories(segments_dir_);
  lock_ = std::make_unique<FileLock>(dir_ / "collection.lock", O_WRONLY);
  FileLock::Guard guard(*lock_);
  open_locked();
}

SegmentedLog::~SegmentedLog() = default;

std::uint32_t SegmentedLog::file_id(const std::string& name) {
  const auto found = file_ids_.find(name);
  if (found != file_ids_.end()) return found->second;
  const auto id = static_cast<std::uint32_t>(files_.size());
  files_.push_back(name);
  file_ids_.emplace(name, id);
  return id;
}

void SegmentedLog::open_locked() {
  cleanup_temp_files_on_open(dir_);
  if (!marker_) marker_ = std::make_unique<WriterMarker>(dir_, make_writer_prefix());
  marker_->register_once();

  Manifest manifest;
  if (read_file_if_exists(manifest_path_, manifest_text_)) {
    manifest = decode_manifest(manifest_text_, manifest_path_.string());
  } else {
    manifest.active.file = segment_file_name(1);
    manifest_text_.clear();
  }
  remove_leftovers(manifest);

  next_segment_ = manifest.next_segment;
  sealed_.clear();
  for (const SegmentEntry& entry : manifest.sealed) {
    SegmentState segment;
    segment.file = file_id(entry.file);
    segment.entry = entry;
    sealed_.push_back(std::move(segment));
  }
  active_ = SegmentState{};
  active_.file = file_id(manifest.active.file);
  active_.entry = manifest.active;
  active_.entry.index.clear();
  const fs::path active_path = segment_path(active_.entry.file);
  if (!fs::exists(active_path)) {
    touch(active_path);
    if (!sync_directory(segments_dir_, options_.sync)) {
      throw StoreError("fsync " + segments_dir_.string() + ": could not sync the directory");
    }
  }

  rebuild_state_locked(true);
  write_manifest_locked();
  open_active_fd();
  needs_recovery_ = false;
}

void SegmentedLog::remove_leftovers(const Manifest& manifest) {
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(dir_, ec)) {
    const std::string name = item.path().filename().string();
    if (starts_with(name, "segments.compact-") || starts_with(name, "index.rebuild-") ||
        starts_with(name, "index.backup-")) {
      fs::remove_all(item.path(), ec);
    }
  }
  std::vector<std::string> referenced;
  for (const SegmentEntry& entry : manifest.sealed) {
    referenced.push_back(entry.file);
    referenced.push_back(entry.index);
  }
  referenced.push_back(manifest.active.file);
  for (const auto& item : fs::directory_iterator(segments_dir_, ec)) {
    const std::string name = item.path().filename().string();
    if (!starts_with(name, "compact-")) continue;
    if (!ends_with(name, ".ndjson") && !ends_with(name, ".idx.jsonc")) continue;
    if (std::find(referenced.begin(), referenced.end(), name) == referenced.end()) {
      fs::remove(item.path(), ec);
    }
  }
}

void SegmentedLog::apply_line(std::string_view id, bool is_delete, Location location) {
  bool inserted = false;
  StateEntry& entry = state_.upsert(id, inserted);
  if (inserted) {
    ++(is_delete ? deleted_ : live_);
  } else {
    if (entry.deleted && !is_delete) {
      --deleted_;
      ++live_;
    } else if (!entry.deleted && is_delete) {
      --live_;
      ++deleted_;
    }
    state_.clear_aliases(id);
  }
  entry.deleted = is_delete;
  entry.location = location;
}

void SegmentedLog::rebuild_state_locked(bool truncate) {
  state_.clear();
  live_ = 0;
  deleted_ = 0;
  std::uint64_t total = 0;
  for (const SegmentState& segment : sealed_) total += segment.entry.records;
  state_.reserve(static_cast<std::size_t>(total + 64));
  std::string buffer;
  const std::uint64_t interval = options_.sparse_index_interval;
  auto scan = [&](SegmentState& segment) {
    const SegmentEntry remembered = segment.entry;
    segment.reset_stats();
    // The cached prefix must be exactly the lines the file holds now (record_cache.h).
    const CachedSegment* cached = cache_.find(segment.file);
    std::size_t next_cached = 0;
    bool cache_ok = true;
    const ScanResult result = scan_segment(
        path_of(segment.file), truncate, options_.sync, buffer,
        [&](const LineView& line, std::uint64_t offset, std::uint64_t size) {
          segment.add_line(line.id, offset, size, interval);
          apply_line(line.id, line.op == LineOp::remove, Location{segment.file, offset});
          if (cached != nullptr && cache_ok && next_cached < cached->lines.size()) {
            const CachedLine& mine = cached->lines[next_cached++];
            cache_ok = mine.offset == offset && mine.size == size && key_view(mine.id) == line.id &&
                       mine.is_delete == (line.op == LineOp::remove);
          }
        });
    if (cached != nullptr && (!cache_ok || result.missing || cached->end > result.good_bytes)) {
      cache_.drop(segment.file);
    }
    segment.exists = !result.missing;
    if (result.missing) segment.entry = remembered;  // keep what the manifest said
  };
  for (SegmentState& segment : sealed_) scan(segment);
  scan(active_);
  if (live_ == 0 && deleted_ == 0) {
    counters_.reset_valid();
  } else {
    counters_.invalidate();
  }
}

void SegmentedLog::cache_line(Location location, std::uint64_t size, std::string_view id,
                              bool is_delete, const Json* data) const {
  if (!cache_.extends(location.file, location.offset)) return;
  cache_.append(location.file, location.offset, size, id, is_delete,
                is_delete || data == nullptr ? Json() : *data);
}

Manifest SegmentedLog::manifest() const {
  Manifest manifest;
  manifest.next_segment = next_segment_;
  for (const SegmentState& segment : sealed_) manifest.sealed.push_back(segment.entry);
  manifest.active = active_.entry;
  manifest.active.index.clear();
  manifest.active.compacted = false;
  return manifest;
}

void SegmentedLog::write_manifest_locked() {
  std::string text = encode_manifest(manifest());
  if (text == manifest_text_) return;  // storh rewrites it anyway; the bytes would not change
  write_atomic(manifest_path_, text, options_.sync);
  manifest_text_ = std::move(text);
  remember_manifest_stamp();
}

void SegmentedLog::replace_manifest_after(std::vector<SyncTarget> targets) {
  if (options_.sync == Sync::none) {
    write_manifest_locked();
    return;
  }
  std::string text = encode_manifest(manifest());
  // write_atomic's steps (engine-spec.md 1.5) with its temp name, but the temp file's fsync
  // runs alongside the caller's syncs instead of after them.
  const fs::path temp =
      dir_ / fmt::format(".{}.{}.tmp", manifest_path_.filename().string(), random_hex(12));
  try {
    UniqueFd fd = open_or_throw(temp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC);
    write_all(fd.get(), text, temp);
    UniqueFd segments = open_or_throw(segments_dir_, O_RDONLY | O_DIRECTORY);
    targets.push_back({fd.get(), &temp, true});
    targets.push_back({segments.get(), &segments_dir_, true});
    sync_together(targets);
    fd.close_or_throw(temp);
    rename_or_throw(temp, manifest_path_);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  sync_directory(dir_, options_.sync);  // errors ignored, as in write_atomic
  manifest_text_ = std::move(text);
  remember_manifest_stamp();
}

void SegmentedLog::remember_manifest_stamp() {
  struct stat info {};
  if (::stat(manifest_path_.c_str(), &info) == 0) {
    manifest_stamp_ = {static_cast<std::uint64_t>(info.st_ino),
                       static_cast<std::uint64_t>(info.st_size),
                       info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec};
  }
}

void SegmentedLog::open_active_fd() {
  const fs::path path = path_of(active_.file);
  active_fd_ = open_or_throw(path, O_WRONLY | O_CREAT);
  const off_t end = ::lseek(active_fd_.get(), 0, SEEK_END);
  if (end < 0) throw_errno("lseek", path);
  active_end_ = static_cast<std::uint64_t>(end);
  check_tail_ = active_end_ > 0;
  struct stat info {};
  if (::stat(manifest_path_.c_str(), &info) == 0) {
    manifest_stamp_ = {static_cast<std::uint64_t>(info.st_ino),
                       static_cast<std::uint64_t>(info.st_size),
                       info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec};
  }
}

bool SegmentedLog::tail_needs_lf(std::uint64_t end) const {
  if (end == 0 || (end == active_end_ && !check_tail_)) return false;
  char last = '\n';
  return pread_some(read_fd(active_.file), &last, 1, end - 1, path_of(active_.file)) == 1 &&
         last != '\n';
}

void SegmentedLog::refresh_manifest_if_changed() {
  struct stat info {};
  if (::stat(manifest_path_.c_str(), &info) != 0) throw_errno("stat", manifest_path_);
  const Stamp stamp{static_cast<std::uint64_t>(info.st_ino),
                    static_cast<std::uint64_t>(info.st_size),
                    info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec};
  if (stamp == manifest_stamp_) return;
  // Another process rolled or compacted: adopt its segment list (section 5.3). Records
  // it appended stay invisible until recover(), as in storh.
  std::string text = read_file_bytes(manifest_path_);
  const Manifest manifest = decode_manifest(text, manifest_path_.string());
  std::vector<SegmentState> sealed;
  for (const SegmentEntry& entry : manifest.sealed) {
    const std::uint32_t file = file_id(entry.file);
    SegmentState segment;
    bool known = false;
    for (const SegmentState& mine : sealed_) {
      if (mine.file == file) {
        segment = mine;
        known = true;
      }
    }
    if (!known && active_.file == file) {
      segment = active_;
      known = true;
    }
    if (!known) {
      segment.file = file;
      std::error_code ec;
      segment.bytes = fs::file_size(path_of(file), ec);
    }
    segment.entry = entry;
    sealed.push_back(std::move(segment));
  }
  sealed_ = std::move(sealed);
  next_segment_ = manifest.next_segment;
  const std::uint32_t active_file = file_id(manifest.active.file);
  if (active_file != active_.file) {
    active_ = SegmentState{};
    active_.file = active_file;
    active_.entry = manifest.active;
    active_.entry.min.clear();  // unknown to us: read it whole
    active_.entry.max.clear();
    open_active_fd();
    active_.bytes = active_end_;
  }
  manifest_text_ = std::move(text);
  manifest_stamp_ = stamp;
}

std::uint64_t SegmentedLog::pick_next_segment_number() const {
  std::uint64_t number = std::max(next_segment_, segment_number(active_.entry.file) + 1);
  while (fs::exists(segment_path(segment_file_name(number)))) ++number;
  return number;
}

void SegmentedLog::ensure_healthy() {
  if (!needs_recovery_) return;
  open_locked();
}

void SegmentedLog::recover() {
  FileLock::Guard guard(*lock_);
  open_locked();
}

LogStats SegmentedLog::repair() {
  recover();
  return stats();
}

LogStats SegmentedLog::stats() const {
  LogStats stats;
  stats.segments = sealed_.size() + 1;
  stats.records = live_;
  stats.deleted = deleted_;
  for (const SegmentState& segment : sealed_) stats.bytes += segment.exists ? segment.bytes : 0;
  stats.bytes += active_.bytes;
  return stats;
}

VerifyReport SegmentedLog::verify() {
  VerifyReport report;
  // A fresh state from disk, fully parsed, nothing cut.
  StateIndex fresh;
  std::string buffer;
  auto scan = [&](const SegmentState& segment) {
    const ScanResult result =
        scan_segment(path_of(segment.file), false, options_.sync, buffer,
                     [&](const LineView& line, std::uint64_t offset, std::uint64_t) {
                       try {
                         const Json parsed = parse_json_or_throw(line.json);
                         (void)parsed;
                       } catch (const std::exception& e) {
                         report.errors.push_back(
                             fmt::format("{}:{}: {}", files_[segment.file], offset, e.what()));
                       }
                       bool inserted = false;
                       StateEntry& entry = fresh.upsert(line.id, inserted);
                       entry.deleted = line.op == LineOp::remove;
                       entry.location = Location{segment.file, offset};
                     });
    if (result.missing) {
      report.errors.push_back(
          fmt::format("Could not open segment {}", path_of(segment.file).string()));
    } else if (!result.clean) {
      report.errors.push_back(fmt::format("{} at {}:{}", describe(result.bad_status),
                                          files_[segment.file], result.good_bytes));
    }
  };
  for (const SegmentState& segment : sealed_) scan(segment);
  scan(active_);
  bool drift = fresh.size() != state_.size();
  fresh.for_each([&](const StateEntry& entry) {
    const StateEntry* mine = state_.find(key_view(entry.id));
    if (mine == nullptr || mine->deleted != entry.deleted || !(mine->location == entry.location)) {
      drift = true;
    }
  });
  if (drift) report.errors.emplace_back("Segmented log state index drift.");
  StreamOptions options;
  options.on_error = [&](std::string_view location, std::string_view error) {
    report.errors.push_back(fmt::format("{}: {}", location, error));
  };
  LogStream all = stream(RecordQuery::all(), options);
  Record record;
  while (all.next(record)) {
  }
  report.ok = report.errors.empty();
  report.stats = stats();
  return report;
}

}  // namespace storh::engines::log
