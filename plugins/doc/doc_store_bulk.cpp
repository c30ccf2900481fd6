// DocStore bulk writes (put_many, put_stream, import_jsonl) and export_jsonl.
//
// put_stream and import_jsonl use the batched write protocol of doc_store.h. While index
// hooks are active a batch holds one row, so unique checks and old-data reads see every
// earlier row exactly as sequential puts would.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/fast_json.h"
#include "common/row_input.h"
#include "common/store_error.h"
#include "common/text.h"
#include "doc/doc_store_state.h"

namespace storh::engines::doc {
namespace fs = std::filesystem;
namespace {

// getline(3)'s buffer, freed on every exit.
struct LineBuffer {
  char* data = nullptr;
  std::size_t capacity = 0;
  LineBuffer() = default;
  LineBuffer(const LineBuffer&) = delete;
  LineBuffer& operator=(const LineBuffer&) = delete;
  ~LineBuffer() { std::free(data); }
};

}  // namespace

// Collects rows and writes them in batches.
class BatchWriter {
 public:
  BatchWriter(DocStore& store, DocStore::State& state, bool in_process)
      : store_(store), state_(state), in_process_(in_process) {
    active_ = state.hooks->active();
    limit_ = active_ ? 1 : state.options.batch_size;
    pending_.reserve(limit_);
  }

  // Validates and queues one record; `bytes` empty means "encode canonically".
  void add(std::string id, bool supplied, Json data, std::string bytes) {
    require_record_data(data);
    if (supplied) require_valid_id(id);
    if (state_.options.schema) state_.options.schema->validate(data);
    PendingRecord record;
    if (active_) {
      if (supplied) record.old = store_.find(id);
      state_.hooks->check_unique(id, data);
    }
    if (bytes.empty()) {
      record.bytes = encode_record(id, data);
      record.canonical = true;
    } else {
      record.bytes = std::move(bytes);
    }
    record.id = std::move(id);
    record.data = std::make_shared<const Json>(std::move(data));
    pending_.push_back(std::move(record));
    ++count_;
    if (pending_.size() >= limit_) flush();
  }

  void flush() {
    if (pending_.empty()) return;
    items_.clear();
    for (const PendingRecord& record : pending_) items_.push_back({record.id, record.bytes, {}});
    // NOTIFY: the previous batch's events leave the queue before this batch adds its own
    // (about five per record), so a long stream does not overflow it.
    state_.sync_watch();
    state_.begin_own_write();
    state_.writer.write_batch(items_);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      PendingRecord& record = pending_[i];
      state_.remember(record.id, record.data, items_[i].stamp, record.bytes, record.canonical,
                      in_process_);
    }
    state_.end_own_write();
    if (active_) {
      for (const PendingRecord& record : pending_) {
        state_.hooks->on_put(record.id, record.old.get(), *record.data);
      }
    }
    pending_.clear();
  }

  std::size_t count() const noexcept { return count_; }

 private:
  struct PendingRecord {
    std::string id;
    std::shared_ptr<const Json> data;
    std::string bytes;
    bool canonical = false;
    SharedJson old;
  };

  DocStore& store_;
  DocStore::State& state_;
  bool in_process_;
  bool active_ = false;
  std::size_t limit_ = 1;
  std::vector<PendingRecord> pending_;
  std::vector<RecordWriter::BatchItem> items_;
  std::size_t count_ = 0;
};

namespace {

std::string_view trim_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

bool blank(std::string_view line) {
  return trim(line).empty();
}

// An envelope line: exactly the keys id (string) and data (object or array).
bool is_envelope(const Json& row) {
  if (row.size() != 2) return false;
  auto id = row.find("id");
  auto data = row.find("data");
  return id != row.end() && id->is_string() && data != row.end() &&
         (data->is_object() || data->is_array());
}

}  // namespace

std::vector<Record> DocStore::put_many(std::vector<Json> rows) {
  FileLock::Guard guard(write_lock());
  std::vector<Record> records;
  records.reserve(rows.size());
  for (Json& row : rows) {
    RowInput input = split_row(std::move(row));
    records.push_back(put(std::move(input.data), std::move(input.id)));
  }
  return records;
}

std::size_t DocStore::put_stream(RowSource next_row) {
  State& s = *state_;
  FileLock::Guard guard(write_lock());
  BatchWriter batch(*this, s, true);
  while (std::optional<Json> row = next_row()) {
    RowInput input = split_row(std::move(*row));
    const bool supplied = input.id.has_value();
    std::string id = supplied ? std::move(*input.id) : s.new_id();
    batch.add(std::move(id), supplied, std::move(input.data), std::string());
  }
  batch.flush();
  return batch.count();
}

std::size_t DocStore::put_stream(std::vector<Json> rows) {
  std::size_t next = 0;
  return put_stream([&]() -> std::optional<Json> {
    if (next == rows.size()) return std::nullopt;
    return std::move(rows[next++]);
  });
}

std::size_t DocStore::import_jsonl(const fs::path& path) {
  State& s = *state_;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    throw StoreError(fmt::format("Could not open JSONL import file {}: {}", path.string(),
                                 std::strerror(errno)));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  FileLock::Guard guard(write_lock());
  s.cache.discard();
  BatchWriter batch(*this, s, false);
  LineBuffer buffer;
  std::size_t line_number = 0;
  for (;;) {
    const ssize_t got = ::getline(&buffer.data, &buffer.capacity, file);
    if (got < 0) break;
    ++line_number;
    const std::string_view line =
        trim_line(std::string_view(buffer.data, static_cast<std::size_t>(got)));
    if (blank(line)) continue;
    Json row = parse_json(line);
    if (row.is_discarded()) {
      throw StoreError(fmt::format("JSONL import {}:{}: invalid JSON", path.string(), line_number));
    }
    if (!row.is_object()) {
      throw StoreError(
          fmt::format("JSONL import rows must be objects ({}:{})", path.string(), line_number));
    }
    if (is_envelope(row)) {
      std::string id = row["id"].get<std::string>();
      std::string bytes(line);
      bytes.push_back('\n');
      batch.add(std::move(id), true, std::move(row["data"]), std::move(bytes));
      continue;
    }
    RowInput input = split_row(std::move(row));
    const bool supplied = input.id.has_value();
    std::string id = supplied ? std::move(*input.id) : s.new_id();
    batch.add(std::move(id), supplied, std::move(input.data), std::string());
  }
  if (std::ferror(file)) throw_errno("read JSONL import file", path);
  batch.flush();
  return batch.count();
}

std::size_t DocStore::export_jsonl(const fs::path& path) {
  State& s = *state_;
  try {
    if (path.has_parent_path()) create_directories(path.parent_path());
  } catch (const std::exception& error) {
    throw StoreError(fmt::format("Could not create JSONL export directory for {}: {}",
                                 path.string(), error.what()));
  }
  const int raw = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (raw < 0) {
    throw StoreError(fmt::format("Could not open JSONL export file {}: {}", path.string(),
                                 std::strerror(errno)));
  }
  UniqueFd fd(raw);
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kChunk + 4096);
  std::size_t count = 0;
  auto spill = [&](bool force) {
    if (buffer.size() >= kChunk || (force && !buffer.empty())) {
      write_all(fd.get(), buffer, path);
      buffer.clear();
    }
  };
  if (fast_path_valid()) {
    for (const RecordCache::Entry* entry : s.cache.ordered()) {
      if (!entry->value.bytes.empty()) {
        buffer.append(entry->value.bytes);
      } else {
        append_record_bytes(buffer, entry->id(), *entry->value.data);
      }
      ++count;
      spill(false);
    }
  } else {
    scan_disk([&](const RecordView& record) {
      append_record_bytes(buffer, record.id, *record.data);
      ++count;
      spill(false);
      return true;
    });
  }
  spill(true);
  fd.close_or_throw(path);
  return count;
}

}  // namespace storh::engines::doc
