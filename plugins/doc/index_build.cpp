// IndexManager::rebuild (engine-spec.md 4.7.5): delete entries/, scan the records once,
// write every equality/compound bucket once, sort range lines in chunks of 16,384,
// k-way merge the chunks (spilled to scratch files only past one chunk) into the base
// file with a checkpoint every 256 lines. Every index file is written atomically (temp,
// fsync, rename, directory fsync), the buckets of one flush together: all temp files
// synced, then renamed, then each directory synced once.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <queue>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "common/durable_io.h"
#include "common/query/json_values.h"
#include "common/store_error.h"
#include "doc/doc_store.h"
#include "doc/index_bucket_cache.h"
#include "doc/index_files.h"
#include "doc/index_keys.h"
#include "doc/index_manager.h"

namespace storh::engines::doc {
namespace {

constexpr std::size_t kRangeChunkLines = 16384;
constexpr std::size_t kBucketFlushEntries = 1048576;
constexpr std::size_t kWriteBuffer = 1 << 20;

// One bucket being collected: its file, header and ids in ascending order. (Its implicit
// move is noexcept; clang-tidy cannot see through nlohmann's move constructor.)
struct BucketBuild {  // NOLINT(bugprone-exception-escape)
  std::filesystem::path path;
  std::string field;
  std::string key;
  Json value;
  std::vector<std::string> ids;
};

// A file written through a temp file and renamed over its target on commit(), the
// write_atomic protocol for outputs too large to hold in memory.
class AtomicWriter {
 public:
  AtomicWriter(std::filesystem::path path, Sync sync) : path_(std::move(path)), sync_(sync) {
    make_directories(path_.parent_path());
    temp_ = path_.parent_path() / ("." + path_.filename().string() + "." + random_hex(12) + ".tmp");
    fd_ = open_or_throw(temp_, O_WRONLY | O_CREAT | O_EXCL, 0644);
    buffer_.reserve(kWriteBuffer);
  }
  ~AtomicWriter() {
    if (fd_.valid()) {
      fd_ = UniqueFd();
      ::unlink(temp_.c_str());
    }
  }
  AtomicWriter(const AtomicWriter&) = delete;
  AtomicWriter& operator=(const AtomicWriter&) = delete;

  void append(std::string_view bytes) {
    buffer_.append(bytes);
    written_ += bytes.size();
    if (buffer_.size() >= kWriteBuffer) flush();
  }
  std::uint64_t size() const noexcept { return written_; }
  // Syncs and renames the temp file; then syncs the directory unless the caller will
  // (a later write_atomic into the same directory does).
  void commit(bool sync_parent = true) {
    flush();
    sync_file(fd_.get(), temp_, sync_);
    fd_.close_or_throw(temp_);
    if (::rename(temp_.c_str(), path_.c_str()) != 0) {
      const int err = errno;
      ::unlink(temp_.c_str());
      throw_errno("rename", temp_, err);
    }
    if (sync_parent) sync_directory(path_.parent_path(), sync_);
  }

 private:
  void flush() {
    if (buffer_.empty()) return;
    write_all(fd_.get(), buffer_, temp_);
    buffer_.clear();
  }
  std::filesystem::path path_, temp_;
  Sync sync_;
  UniqueFd fd_;
  std::string buffer_;
  std::uint64_t written_ = 0;
};

// write_atomic for many files with fewer syncs: every temp file is written and fsynced,
// then each is renamed over its target, then each parent directory is fsynced once. A
// crash leaves each file old or new, plus temp files that the next rebuild removes with
// entries/. On failure the temp files are removed and StoreError propagates. `stamps`
// receives each file's stamp, from fstat of the synced temp file (a rename keeps inode,
// size and mtime), in the order of `files`.
void write_files_atomically(const std::vector<std::pair<std::filesystem::path, std::string>>& files,
                            Sync sync, std::vector<FileStamp>& stamps) {
  stamps.clear();
  std::vector<std::filesystem::path> temps;
  temps.reserve(files.size());
  std::set<std::filesystem::path> dirs;
  try {
    for (const auto& [path, bytes] : files) {
      if (dirs.insert(path.parent_path()).second) make_directories(path.parent_path());
      temps.push_back(path.parent_path() /
                      fmt::format(".{}.{}.tmp", path.filename().string(), random_hex(12)));
      UniqueFd fd = open_or_throw(temps.back(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC);
      write_all(fd.get(), bytes, temps.back());
      sync_file(fd.get(), temps.back(), sync);
      struct stat info {};
      if (::fstat(fd.get(), &info) != 0) throw_errno("fstat", temps.back());
      stamps.push_back(stamp_of(info));
      fd.close_or_throw(temps.back());
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (::rename(temps[i].c_str(), files[i].first.c_str()) != 0) throw_errno("rename", temps[i]);
    }
  } catch (...) {
    for (const auto& temp : temps) ::unlink(temp.c_str());  // renamed ones: ENOENT
    throw;
  }
  for (const auto& dir : dirs) sync_directory(dir, sync);
}

// Writes the collected buckets, merging with a file an earlier flush wrote, and tells
// `cache` each file's count and stamp: the first count query after a rebuild then costs
// one stat, as the first get after a put does.
void flush_buckets(std::unordered_map<std::string, BucketBuild>& buckets, Sync sync,
                   BucketCache& cache) {
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  std::vector<std::int64_t> counts;
  for (auto& [name, bucket] : buckets) {
    if (bucket.ids.empty()) continue;
    if (auto existing = read_bucket_ids(bucket.path)) {
      std::vector<std::string> merged;
      merged.reserve(existing->size() + bucket.ids.size());
      std::merge(existing->begin(), existing->end(), bucket.ids.begin(), bucket.ids.end(),
                 std::back_inserter(merged));
      merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
      bucket.ids = std::move(merged);
    }
    files.emplace_back(bucket.path,
                       encode_bucket(bucket.field, bucket.key, bucket.value, bucket.ids));
    counts.push_back(static_cast<std::int64_t>(bucket.ids.size()));
    bucket.ids.clear();
    bucket.ids.shrink_to_fit();
  }
  std::vector<FileStamp> stamps;
  write_files_atomically(files, sync, stamps);
  for (std::size_t i = 0; i < files.size(); ++i) {
    cache.remember_count(files[i].first.string(), stamps[i], counts[i]);
  }
}

// Range lines of one field: collected as "<range_key>\t<value_key>\t<json line>", the
// byte string storh sorts by.
class RangeBuild {
 public:
  RangeBuild(RangePaths paths, std::filesystem::path chunk_dir, std::string hex, Sync sync)
      : paths_(std::move(paths)),
        chunk_dir_(std::move(chunk_dir)),
        hex_(std::move(hex)),
        sync_(sync) {}

  void add(std::string_view id, const Json& value) {
    const std::string key = range_key(value);
    std::string entry = key;
    entry += '\t';
    entry += value_key(value);
    entry += '\t';
    const std::vector<std::string> ids{std::string(id)};
    entry += encode_range_line(key, value, ids, {});
    entry.pop_back();  // the '\n'
    lines_.push_back(std::move(entry));
    if (lines_.size() >= kRangeChunkLines) write_chunk();
  }

  void finish() {
    if (chunks_.empty()) {
      // Everything fits one chunk: merge straight from memory.
      std::sort(lines_.begin(), lines_.end());
      std::size_t next = 0;
      merge([&](std::string& line) {
        if (next == lines_.size()) return false;
        line = std::move(lines_[next++]);
        return true;
      });
      lines_.clear();
      return;
    }
    if (!lines_.empty()) write_chunk();
    merge_chunks();
  }

 private:
  void write_chunk() {
    std::sort(lines_.begin(), lines_.end());
    std::string bytes;
    for (const std::string& line : lines_) {
      bytes += line;
      bytes += '\n';
    }
    const auto path = chunk_dir_ / (hex_ + "-" + std::to_string(chunks_.size()) + ".jsonl");
    // Chunks are scratch files, deleted after the merge (a crash mid-rebuild leaves a
    // partial index that the next rebuild deletes with entries/): no sync.
    write_atomic(path, bytes, Sync::none);
    chunks_.push_back(path);
    lines_.clear();
  }

  void merge_chunks() {
    std::vector<std::ifstream> inputs;
    inputs.reserve(chunks_.size());
    using Head = std::pair<std::string, std::size_t>;
    auto greater = [](const Head& a, const Head& b) { return a.first > b.first; };
    std::priority_queue<Head, std::vector<Head>, decltype(greater)> heads(greater);
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      inputs.emplace_back(chunks_[i], std::ios::binary);
      if (!inputs.back()) throw StoreError("Could not read index chunk " + chunks_[i].string());
      std::string line;
      if (std::getline(inputs.back(), line)) heads.emplace(std::move(line), i);
    }
    merge([&](std::string& line) {
      if (heads.empty()) return false;
      Head head = heads.top();
      heads.pop();
      line = std::move(head.first);
      std::string next;
      if (std::getline(inputs[head.second], next)) heads.emplace(std::move(next), head.second);
      return true;
    });
    inputs.clear();
    for (const auto& chunk : chunks_) ::unlink(chunk.c_str());
    ::rmdir(chunk_dir_.c_str());  // only when no other field's chunks remain
  }

  // Writes the base file and its checkpoints from `next(line)`, which yields the sorted
  // entries ("<range_key>\t<value_key>\t<json line>") until it returns false. Both files
  // are synced, then renamed, then their directory is synced once.
  template <typename Next>
  void merge(Next&& next) {
    AtomicWriter base(paths_.base, sync_);
    std::vector<Checkpoint> checkpoints;
    std::size_t count = 0;
    std::string entry;
    while (next(entry)) {
      const std::size_t key_end = entry.find('\t');
      const std::size_t line_start = entry.find('\t', key_end + 1) + 1;
      if (count % kCheckpointStride == 0) {
        checkpoints.push_back({entry.substr(0, key_end), base.size()});
      }
      base.append(std::string_view(entry).substr(line_start));
      base.append("\n");
      ++count;
    }
    base.commit(/*sync_parent=*/false);  // the checkpoints write syncs range/
    write_atomic(paths_.checkpoints, encode_checkpoints(checkpoints), sync_);
  }

  RangePaths paths_;
  std::filesystem::path chunk_dir_;
  std::string hex_;
  Sync sync_;
  std::vector<std::string> lines_;
  std::vector<std::filesystem::path> chunks_;
};

}  // namespace

IndexHooks::ReindexResult IndexManager::rebuild(bool from_disk) {
  FileLock::Guard guard(store_.write_lock());
  const std::vector<IndexDefinition> defs = definitions();
  const Sync sync = store_.sync();
  std::error_code ec;
  std::filesystem::remove_all(entries_dir(), ec);
  if (ec)
    throw StoreError("Could not delete index entries " + entries_dir().string() + ": " +
                     ec.message());
  ranges_.clear();

  struct EqField {
    const IndexDefinition* def;
    std::string hex;
  };
  std::vector<EqField> eq_fields;
  std::vector<std::unique_ptr<RangeBuild>> range_builds;
  std::vector<const IndexDefinition*> range_defs;
  const std::filesystem::path range_dir = entries_dir() / "range";
  for (const IndexDefinition& def : defs) {
    if (def.range) {
      range_defs.push_back(&def);
      range_builds.push_back(std::make_unique<RangeBuild>(
          RangePaths::in(range_dir, def.field), range_dir / ".chunks", hex_bytes(def.field), sync));
    } else {
      eq_fields.push_back({&def, hex_bytes(def.field)});
    }
  }
  const auto pairs = compound_pairs();
  std::vector<std::string> pair_names;
  pair_names.reserve(pairs.size());
  for (const auto& [left, right] : pairs) {
    std::string& name = pair_names.emplace_back(left);
    name += '\t';
    name += right;
  }

  // Buckets by (field slot, file key); paths are only built for new buckets.
  std::unordered_map<std::string, BucketBuild> buckets;
  std::size_t pending_entries = 0;
  std::size_t scanned = 0;
  std::string slot_key;
  const auto add = [&](std::size_t slot, std::string key, std::string_view field, const Json& value,
                       std::string_view id, auto&& make_path) {
    slot_key.assign(reinterpret_cast<const char*>(&slot), sizeof slot);
    slot_key += key;
    auto [it, inserted] = buckets.try_emplace(slot_key);
    if (inserted || it->second.path.empty()) {
      it->second.path = make_path();
      it->second.field = std::string(field);
      it->second.key = std::move(key);
      it->second.value = value;
    }
    it->second.ids.emplace_back(id);
    if (++pending_entries >= kBucketFlushEntries) {
      flush_buckets(buckets, sync, buckets_);
      pending_entries = 0;
    }
  };
  const auto visit = [&](const RecordView& record) {
    ++scanned;
    const Json& data = *record.data;
    for (std::size_t i = 0; i < eq_fields.size(); ++i) {
      const std::string& field = eq_fields[i].def->field;
      const Json* value = find_field(data, field);
      if (value == nullptr || !is_indexable(*value)) continue;
      add(i, value_key(*value), field, *value, record.id, [&] { return eq_path(field, *value); });
    }
    for (std::size_t i = 0; i < range_defs.size(); ++i) {
      const Json* value = find_field(data, range_defs[i]->field);
      if (value == nullptr || !is_indexable(*value)) continue;
      range_builds[i]->add(record.id, *value);
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const Json* left = find_field(data, pairs[i].first);
      const Json* right = find_field(data, pairs[i].second);
      if (left == nullptr || right == nullptr || !is_indexable(*left) || !is_indexable(*right)) {
        continue;
      }
      add(eq_fields.size() + i, compound_key(*left, *right), pair_names[i], nullptr, record.id,
          [&] { return compound_path(pairs[i].first, *left, pairs[i].second, *right); });
    }
    return true;
  };
  if (from_disk) {
    store_.scan_disk(visit);
  } else {
    store_.scan(RecordQuery::all(), visit);
  }
  flush_buckets(buckets, sync, buckets_);
  for (auto& build : range_builds) build->finish();
  revalidate_after_rebuild();
  ReindexResult result;
  result.fields = defs.size();
  result.entries = scanned;
  return result;
}

}  // namespace storh::engines::doc
