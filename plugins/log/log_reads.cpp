// The read path of SegmentedLog (engine-spec.md section 5.6): get, the lazy stream with
// segment skipping and sparse seeks.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "common/canonical_json.h"
#include "common/durable_io.h"
#include "common/query/json_values.h"
#include "common/store_error.h"
#include "log/segment_line.h"
#include "log/segmented_log.h"

namespace storh::engines::log {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kReadBlock = std::size_t{64} * 1024;

// One pread of up to `size` bytes at `offset` appended to `out`; returns the bytes read.
// On an error `out` keeps its old size.
std::size_t pread_append(int fd, std::string& out, std::size_t size, std::uint64_t offset,
                         const fs::path& path) {
  const std::size_t old = out.size();
  out.resize(old + size);
  std::size_t got = 0;
  try {
    got = pread_some(fd, out.data() + old, size, offset, path);
  } catch (...) {
    out.resize(old);
    throw;
  }
  out.resize(old + got);
  return got;
}

}  // namespace

int SegmentedLog::read_fd(std::uint32_t file) const {
  for (const auto& [id, fd] : read_fds_) {
    if (id == file) return fd.get();
  }
  const fs::path path = path_of(file);
  const int raw = open_for_reading_at(AT_FDCWD, path.c_str());
  if (raw < 0) throw StoreError(fmt::format("Could not open segment {}", path.string()));
  if (read_fds_.size() >= kReadFds) read_fds_.erase(read_fds_.begin());
  read_fds_.emplace_back(file, UniqueFd(raw));
  return raw;
}

bool SegmentedLog::read_line_at(Location location, std::string& buffer,
                                std::string_view& line) const {
  const int fd = read_fd(location.file);
  buffer.clear();
  std::size_t want = 512;
  for (;;) {
    const std::size_t before = buffer.size();
    const std::size_t got =
        pread_append(fd, buffer, want, location.offset + before, path_of(location.file));
    const std::size_t lf = buffer.find('\n', before);
    if (lf != std::string::npos) {
      line = std::string_view(buffer.data(), lf);
      return true;
    }
    if (got == 0) {
      // A final line without its LF: decode_line decides whether it is a record.
      if (buffer.empty()) return false;
      line = buffer;
      return true;
    }
    want = std::max<std::size_t>(want, buffer.size());
  }
}

bool SegmentedLog::is_current(std::string_view id, Location location) const {
  const StateEntry* entry = state_.find(id);
  if (entry == nullptr || entry->deleted) return false;
  if (entry->location == location) return true;
  const auto& aliases = state_.aliases(id);
  return std::find(aliases.begin(), aliases.end(), location) != aliases.end();
}

std::optional<Record> SegmentedLog::read_record(std::string_view id, Location location) const {
  std::string buffer;
  std::string_view text;
  if (!read_line_at(location, buffer, text)) return std::nullopt;
  const LineView line = decode_line(text);
  if (line.status != LineStatus::ok || line.op != LineOp::put || line.id != id) {
    return std::nullopt;
  }
  return Record{std::string(id), line_data(line)};
}

std::optional<Record> SegmentedLog::get(std::string_view id) const {
  const StateEntry* entry = state_.find(id);
  if (entry == nullptr || entry->deleted) return std::nullopt;
  if (const CachedLine* line = cache_.line_at(entry->location.file, entry->location.offset)) {
    if (!line->is_delete && key_view(line->id) == id) return Record{std::string(id), line->data};
  }
  if (auto record = read_record(id, entry->location)) return record;
  for (const Location& alias : state_.aliases(id)) {
    if (auto record = read_record(id, alias)) return record;
  }
  throw StoreError(fmt::format("Segmented log record {} not found at {}:{}", id,
                               files_[entry->location.file], entry->location.offset));
}

// --- LogStream -------------------------------------------------------------------

struct LogStream::Plan {
  struct Part {
    std::uint32_t file = 0;
    std::uint64_t start = 0;
    bool ordered = false;
  };
  const SegmentedLog* log = nullptr;
  RecordQuery query;
  StreamOptions options;
  std::vector<Part> parts;
  std::size_t next_part = 0;
  // Equality prefilters: `"field":<canonical value>` must occur in canonical data.
  std::vector<std::string> needles;

  UniqueFd fd;
  std::uint32_t file = 0;
  bool ordered = false;
  std::uint64_t next_offset = 0;  // where the next line of the part starts
  std::uint64_t file_size = 0;    // at open (refreshed before giving up at the end)
  std::size_t cached_index = 0;   // hint: the cached line at next_offset
  std::string buffer;
  std::size_t pos = 0;          // next unread byte of buffer
  std::uint64_t buffer_at = 0;  // file offset of buffer[0]
  bool eof = false;
  bool open_tail = false;  // the line next_line returned has no LF
  std::int64_t yielded = 0;
  bool done = false;

  bool open_next();
  // The cached line at next_offset, or nullptr (then the file is read from there).
  const CachedLine* cached_line();
  // The next line (without its LF), its offset and its size in the file (the LF
  // included when there is one).
  bool next_line(std::string_view& line, std::uint64_t& offset, std::uint64_t& size);
  void fail(std::uint64_t offset, std::string_view error);
};

const CachedLine* LogStream::Plan::cached_line() {
  // Looked up on every call: writes or compaction may change the cache while a stream
  // is paused, and a dropped prefix just sends the stream to the file.
  const CachedSegment* segment = log->cache_.find(file);
  if (segment == nullptr || next_offset >= segment->end) return nullptr;
  if (cached_index >= segment->lines.size() || segment->lines[cached_index].offset != next_offset) {
    cached_index = segment->index_of(next_offset);
    if (cached_index >= segment->lines.size()) return nullptr;
  }
  const CachedLine& line = segment->lines[cached_index++];
  next_offset = line.offset + line.size;
  return &line;
}

bool LogStream::Plan::open_next() {
  while (next_part < parts.size()) {
    const Part& part = parts[next_part++];
    const fs::path path = log->path_of(part.file);
    const int raw = open_for_reading_at(AT_FDCWD, path.c_str());
    if (options.on_segment_open) options.on_segment_open(log->files_[part.file]);
    if (raw < 0) {
      const std::string message = fmt::format("Could not open segment {}", path.string());
      if (!options.on_error) throw StoreError(message);
      options.on_error(log->files_[part.file], message);
      continue;
    }
    fd = UniqueFd(raw);
    file = part.file;
    ordered = part.ordered;
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) throw_errno("fstat", path);
    file_size = static_cast<std::uint64_t>(info.st_size);
    if (const CachedSegment* cached = log->cache_.find(file);
        cached != nullptr && cached->end > file_size) {
      log->cache_.drop(file);  // cut by another process's recovery: not a prefix any more
    }
    next_offset = part.start;
    cached_index = 0;
    buffer.clear();
    pos = 0;
    buffer_at = part.start;
    eof = false;
    return true;
  }
  return false;
}

void LogStream::Plan::fail(std::uint64_t offset, std::string_view error) {
  const std::string location = fmt::format("{}:{}", log->files_[file], offset);
  if (!options.on_error) throw StoreError(fmt::format("{} at {}", error, location));
  options.on_error(location, error);
}

bool LogStream::Plan::next_line(std::string_view& line, std::uint64_t& offset,
                                std::uint64_t& size) {
  if (buffer_at + pos != next_offset) {
    // Coming from the cache: read the file from where it ends.
    buffer.clear();
    pos = 0;
    buffer_at = next_offset;
    eof = false;
  }
  for (;;) {
    const char* begin = buffer.data() + pos;
    const std::size_t lf = std::string_view(buffer).find('\n', pos);
    if (lf != std::string_view::npos) {
      const std::size_t length = lf - pos;
      line = std::string_view(begin, length);
      offset = buffer_at + pos;
      size = length + 1;
      pos += length + 1;
      next_offset = buffer_at + pos;
      return true;
    }
    if (eof) {
      // A final line without its LF: a record when it decodes (engine-spec.md 13.1), else a
      // torn tail or a line another process is still writing, which the caller skips.
      if (pos == buffer.size()) return false;
      line = std::string_view(begin, buffer.size() - pos);
      offset = buffer_at + pos;
      size = line.size();
      pos = buffer.size();
      next_offset = buffer_at + pos;
      open_tail = true;
      return true;
    }
    buffer.erase(0, pos);
    buffer_at += pos;
    pos = 0;
    const std::size_t got = pread_append(fd.get(), buffer, std::max(kReadBlock, buffer.size()),
                                         buffer_at + buffer.size(), log->path_of(file));
    if (got == 0) eof = true;
  }
}

LogStream::LogStream(std::unique_ptr<Plan> plan) : plan_(std::move(plan)) {}
LogStream::LogStream(LogStream&&) noexcept = default;
LogStream& LogStream::operator=(LogStream&&) noexcept = default;
LogStream::~LogStream() = default;

bool LogStream::next(Record& out) {
  Plan& p = *plan_;
  if (p.done) return false;
  const auto limit = p.query.limit_count();
  const auto& upper = p.query.upper_id();
  const bool filters = p.query.filters_data();
  for (;;) {
    if (!p.fd.valid() && !p.open_next()) {
      p.done = true;
      return false;
    }
    if (const CachedLine* cached = p.cached_line()) {
      const std::string_view id = key_view(cached->id);
      if (p.ordered && upper && id > std::string_view(*upper)) {
        p.fd = UniqueFd();  // ordered: nothing later in this segment is in range
        continue;
      }
      if (cached->is_delete || !p.query.matches_id(id)) continue;
      if (!p.log->is_current(id, Location{p.file, cached->offset})) continue;
      if (filters && !p.query.matches_data(id, cached->data)) continue;
      out.id.assign(id);
      out.data = cached->data;
      if (limit && ++p.yielded >= *limit) p.done = true;
      return true;
    }
    if (p.next_offset >= p.file_size) {
      // The end of what the file held at open; look again before reading it.
      struct stat info {};
      if (::fstat(p.fd.get(), &info) == 0) p.file_size = static_cast<std::uint64_t>(info.st_size);
      if (p.next_offset >= p.file_size) {
        p.fd = UniqueFd();
        continue;
      }
    }
    std::string_view text;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    p.open_tail = false;
    if (!p.next_line(text, offset, size)) {
      p.fd = UniqueFd();
      continue;
    }
    const LineView line = decode_line(text);
    if (line.status != LineStatus::ok) {
      // An unterminated tail that does not decode is torn or still being written: it is
      // no record and no error (recovery cuts it).
      if (!p.open_tail) p.fail(offset, describe(line.status));
      continue;
    }
    // A line that extends the cached prefix is parsed whole and cached, so the next
    // read of it costs no I/O and no parse.
    const bool fill = p.log->cache_.extends(p.file, offset);
    Json data;
    bool parsed = false;
    if (fill) {
      if (line.op == LineOp::put) {
        try {
          data = line_data(line);
        } catch (const std::exception& e) {
          p.fail(offset, e.what());
          continue;
        }
        parsed = true;
      }
      p.log->cache_line(Location{p.file, offset}, size, line.id, line.op == LineOp::remove, &data);
    }
    if (p.ordered && upper && line.id > std::string_view(*upper)) {
      p.fd = UniqueFd();  // ordered: nothing later in this segment is in range
      continue;
    }
    if (line.op != LineOp::put || !p.query.matches_id(line.id)) continue;
    if (!p.log->is_current(line.id, Location{p.file, offset})) continue;
    if (filters && line.canonical && !parsed) {
      bool possible = true;
      for (const std::string& needle : p.needles) {
        if (line.data_json.find(needle) == std::string_view::npos) possible = false;
      }
      if (!possible) continue;
    }
    if (!parsed) {
      try {
        data = line_data(line);
      } catch (const std::exception& e) {
        p.fail(offset, e.what());
        continue;
      }
    }
    if (filters && !p.query.matches_data(line.id, data)) continue;
    out.id.assign(line.id);
    out.data = std::move(data);
    if (limit && ++p.yielded >= *limit) p.done = true;
    return true;
  }
}

std::vector<Record> LogStream::to_vector() {
  std::vector<Record> records;
  // With a limit, one block up front: growing a vector of records step by step makes
  // glibc consolidate its small-chunk bins at each large step. Without one, nothing is
  // allocated before the first record (a read that finds none allocates nothing).
  if (const auto limit = plan_->query.limit_count()) {
    records.reserve(static_cast<std::size_t>(std::min<std::int64_t>(*limit, 4096)));
  }
  Record record;
  while (next(record)) records.push_back(std::move(record));
  return records;
}

LogStream SegmentedLog::stream(const RecordQuery& query, StreamOptions options) const {
  auto plan = std::make_unique<LogStream::Plan>();
  plan->log = this;
  plan->query = query;
  plan->options = std::move(options);
  for (const auto& [field, value] : query.equals()) {
    if (value.is_number_float()) continue;  // -0.0 equals 0.0 but encodes differently
    std::string needle;
    append_json_string(needle, field);
    needle += ':';
    append_compact(needle, value);
    plan->needles.push_back(std::move(needle));
  }
  const auto& after = query.after_id();
  const auto& lower = query.lower_id();
  const auto& upper = query.upper_id();
  std::string_view seek;
  if (after) seek = *after;
  if (lower && std::string_view(*lower) > seek) seek = *lower;
  auto consider = [&](const SegmentState& segment) {
    const SegmentEntry& entry = segment.entry;
    const bool known = !entry.min.empty() && !entry.max.empty();
    if (known) {
      if (after && std::string_view(entry.max) <= std::string_view(*after)) return;
      if (lower && std::string_view(entry.max) < std::string_view(*lower)) return;
      if (upper && std::string_view(entry.min) > std::string_view(*upper)) return;
    }
    LogStream::Plan::Part part{segment.file, 0, known && entry.ordered};
    if (part.ordered && !seek.empty() && std::string_view(entry.min) < seek) {
      // The last sparse entry at or below the seek id (sparse ids ascend here).
      auto it = std::upper_bound(
          segment.sparse.begin(), segment.sparse.end(), seek,
          [](std::string_view id, const SparseEntry& e) { return id < std::string_view(e.id); });
      if (it != segment.sparse.begin()) part.start = std::prev(it)->offset;
    }
    plan->parts.push_back(part);
  };
  for (const SegmentState& segment : sealed_) consider(segment);
  consider(active_);
  return LogStream(std::move(plan));
}

}  // namespace storh::engines::log
