// The doc plugin: storh's document-store benchmark (engines.md section 11.1) over
// DocStore, its indexes and DocQuery. The only file of the engine that knows the host.
//
// The 30 operations run in storh's order and do storh's work (same durable writes, same
// reads); each checks its answer against the rows it was built from, for any n >= 1
// (m = n/2, d = min(100, n); the n=1000 answers of section 11.1 are one case). Checks
// that cost more than the answer itself run after the timed step. A 31st operation,
// put_floor, times the write protocol's raw syscalls with no engine (n x: open a temp
// file, write the record bytes, fsync, rename, fsync the directory), so put reads
// against this machine's floor. A 32nd, scan_floor, times the raw syscalls of the STAT
// fast-path check over the n files put_floor wrote (readdir every shard directory,
// fstatat every file), the floor of unindexed_first, stream, unindexed_count and full.
//
// Params: durability = durable | none (skip every fsync, to measure their cost);
// validation = stat | hash | trust (section 4.6, the store's cache validation).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/canonical_json.h"
#include "common/durable_io.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"
#include "doc/doc_store.h"
#include "doc/index_manager.h"
#include "doc/query.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
namespace doc = storh::engines::doc;
using engines::Json;
using engines::Record;
using storh::Status;

constexpr std::int64_t kStart = engines::kBenchStartMs;

const std::vector<storh::OperationSpec>& operations() {
  static const std::vector<storh::OperationSpec> kOperations = [] {
    const auto op = [](const char* name, const char* unit, const char* what) {
      return storh::OperationSpec{name, unit, storh::Direction::lower_is_better, what};
    };
    return std::vector<storh::OperationSpec>{
        op("put", "records", "n x put(row(i)) with generated ids, one durable file each"),
        op("get", "records", "get(id) of the first min(1000, n) ids (validated-cache hits)"),
        op("id_first", "queries", "where id eq ids[n/2], first()"),
        op("id_count", "queries", "where id eq ids[n/2], count()"),
        op("id_filtered_first", "queries",
           "where id eq ids[n/2] and status eq its status, first()"),
        op("unindexed_first", "queries", "where status eq published, first() (fast-path scan)"),
        op("stream", "records", "materialise stream() (fast path)"),
        op("delete", "records", "delete the first min(100, n) ids"),
        op("index_build", "records", "index kind, bucket, publishedAt (range): manifest + rebuild"),
        op("indexed", "queries", "where kind eq page, limit 100, get()"),
        op("indexed_first", "queries", "where kind eq page, first()"),
        op("indexed_range", "queries", "where publishedAt between(start+10, start+200), get()"),
        op("indexed_range_ordered", "queries", "publishedAt gte start, orderBy asc, limit 100"),
        op("indexed_range_ordered_first", "queries", "publishedAt gte start, orderBy asc, first()"),
        op("indexed_range_ordered_desc", "queries",
           "publishedAt gte start, orderBy desc, limit 100"),
        op("indexed_range_ordered_desc_first", "queries", "same, orderBy desc, first()"),
        op("indexed_compound_miss", "queries", "kind eq post and bucket eq 4, get() (no file)"),
        op("indexed_compound_miss_count", "queries", "kind eq post and bucket eq 4, count()"),
        op("indexed_compound_count", "queries", "kind eq page and bucket eq 4, count()"),
        op("indexed_count", "queries", "kind eq page, count()"),
        op("indexed_numeric_count", "queries", "bucket eq 5, count()"),
        op("indexed_range_count", "queries", "publishedAt between(start+10, start+200), count()"),
        op("indexed_range_limit_count", "queries", "publishedAt gte start, limit 100, count()"),
        op("unindexed_count", "queries", "status eq published, count() (fast-path scan)"),
        op("unindexed_limit_count", "queries", "status eq published, limit 100, count()"),
        op("full", "queries", "stream(where_equal(kind, page), limit 100) (never indexed)"),
        op("reopen", "opens", "open a second DocStore on the collection"),
        op("bulk_put", "records", "put_stream(rows(n)) into docs-bulk"),
        op("jsonl_export", "records", "export docs-bulk to JSONL"),
        op("jsonl_import", "records", "import that JSONL into docs-jsonl-import"),
        op("put_floor", "records", "raw syscalls of put: temp, write, fsync, rename, dir fsync"),
        op("scan_floor", "records",
           "raw syscalls of a STAT revalidation: readdir each shard, fstatat each file"),
    };
  }();
  return kOperations;
}

// i in [from, n) with pred(i), ascending.
std::vector<std::int64_t> rows_where(std::int64_t from, std::int64_t n,
                                     const std::function<bool(std::int64_t)>& pred) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = from; i < n; ++i) {
    if (pred(i)) out.push_back(i);
  }
  return out;
}

std::vector<std::int64_t> take(std::vector<std::int64_t> rows, std::size_t count) {
  if (rows.size() > count) rows.resize(count);
  return rows;
}

std::int64_t published_at(const Record& record) {
  const auto it = record.data.find("publishedAt");
  return it != record.data.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

// The records must be rows `expected`, in that order.
Status expect_rows(std::string_view op, const std::vector<Record>& records,
                   const std::vector<std::int64_t>& expected) {
  if (records.size() != expected.size()) {
    return Status::error(std::string(op) + ": got " + std::to_string(records.size()) +
                         " records, expected " + std::to_string(expected.size()));
  }
  for (std::size_t k = 0; k < records.size(); ++k) {
    if (published_at(records[k]) != kStart + expected[k]) {
      return Status::error(std::string(op) + ": record " + std::to_string(k) + " has publishedAt " +
                           std::to_string(published_at(records[k])) + ", expected " +
                           std::to_string(kStart + expected[k]));
    }
  }
  return {};
}

Status expect_first(std::string_view op, const std::optional<Record>& record,
                    const std::vector<std::int64_t>& expected) {
  std::vector<Record> records;
  if (record) records.push_back(*record);
  return expect_rows(op, records, take(expected, 1));
}

Status expect_count(std::string_view op, std::size_t got, std::size_t expected) {
  if (got == expected) return {};
  return Status::error(std::string(op) + ": counted " + std::to_string(got) + ", expected " +
                       std::to_string(expected));
}

// put_floor: the write protocol without an engine. `bytes` holds every record file
// back to back; record i is bytes[offsets[i], offsets[i + 1]) and its id is at offset 7.
void floor_writes(const std::filesystem::path& dir, const std::string& bytes,
                  const std::vector<std::size_t>& offsets, engines::Sync sync) {
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    const std::string_view body(bytes.data() + offsets[i], offsets[i + 1] - offsets[i]);
    const std::string_view id = body.substr(7, engines::uuid_v7::kTextSize);
    const std::filesystem::path shard = dir / std::string(id.substr(24, 2));
    const std::filesystem::path temp = shard / (".floor." + std::to_string(i) + ".tmp");
    engines::UniqueFd fd = engines::open_or_throw(temp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    engines::write_all(fd.get(), body, temp);
    engines::sync_file(fd.get(), temp, sync);
    fd.close_or_throw(temp);
    const std::filesystem::path target = shard / (std::string(id) + ".jsonc");
    if (::rename(temp.c_str(), target.c_str()) != 0) engines::throw_errno("rename", temp);
    engines::sync_directory(shard, sync);
  }
}

// scan_floor: readdir every shard directory under `dir` and fstatat each entry; returns
// the number of regular files seen.
std::size_t floor_scan(const std::filesystem::path& dir) {
  std::size_t files = 0;
  DIR* shards = ::opendir(dir.c_str());
  if (shards == nullptr) engines::throw_errno("opendir", dir);
  while (const dirent* shard = ::readdir(shards)) {
    if (shard->d_name[0] == '.') continue;
    const int fd = ::openat(::dirfd(shards), shard->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* entries = fd >= 0 ? ::fdopendir(fd) : nullptr;
    if (entries == nullptr) {
      ::closedir(shards);
      engines::throw_errno("opendir", dir / shard->d_name);
    }
    struct stat info {};
    while (const dirent* entry = ::readdir(entries)) {
      if (entry->d_name[0] == '.') continue;
      if (::fstatat(::dirfd(entries), entry->d_name, &info, 0) == 0 && S_ISREG(info.st_mode)) {
        ++files;
      }
    }
    ::closedir(entries);
  }
  ::closedir(shards);
  return files;
}

class Scenario {
 public:
  Scenario(storh::RunContext& ctx)
      : ctx_(ctx),
        n_(static_cast<std::int64_t>(ctx.dataset_size() > 0 ? ctx.dataset_size() : 1)),
        m_(n_ / 2),
        d_(std::min<std::int64_t>(100, n_)),
        root_(ctx.work_dir()) {
    options_.sync = engines::parse_sync(ctx.string_param("durability", "durable"));
    options_.validation = doc::parse_validation(ctx.string_param("validation", "stat"));
  }

  Status run() {
    engines::uuid_v7::reset_for_tests();
    auto store = std::make_unique<doc::DocStore>(root_, "docs", options_);
    if (Status s = writes_and_reads(*store); !s.ok()) return s;
    if (Status s = indexed_queries(*store); !s.ok()) return s;
    if (Status s = scans_and_reopen(*store); !s.ok()) return s;
    store.reset();
    if (Status s = bulk(); !s.ok()) return s;
    return put_floor();
  }

 private:
  template <typename F>
  Status step(std::string_view op, std::int64_t items, F&& fn) {
    return storh::measure(ctx_, op, static_cast<std::uint64_t>(std::max<std::int64_t>(items, 1)),
                          std::forward<F>(fn));
  }
  doc::DocQuery q(doc::DocStore& store) const { return doc::DocQuery(store); }

  Status writes_and_reads(doc::DocStore& store) {
    ids_.reserve(static_cast<std::size_t>(n_));
    ctx_.progress("doc: put " + std::to_string(n_) + " records");
    if (Status s = step("put", n_,
                        [&] {
                          for (std::int64_t i = 0; i < n_; ++i) {
                            ids_.push_back(
                                store.put(engines::bench_row(static_cast<std::uint64_t>(i))).id);
                          }
                        });
        !s.ok()) {
      return s;
    }
    if (Status s = expect_count("put", store.cached_records(), static_cast<std::size_t>(n_));
        !s.ok()) {
      return s;
    }
    const std::int64_t gets = std::min<std::int64_t>(1000, n_);
    if (Status s = step(
            "get", gets,
            [&]() -> Status {
              for (std::int64_t i = 0; i < gets; ++i) {
                doc::SharedJson data = store.find(ids_[static_cast<std::size_t>(i)]);
                if (!data || data->value("slug", std::string()) != "item-" + std::to_string(i)) {
                  return Status::error("get: wrong record for ids[" + std::to_string(i) + "]");
                }
              }
              return {};
            });
        !s.ok()) {
      return s;
    }
    const std::string target = ids_[static_cast<std::size_t>(m_)];
    const std::string status_m = m_ % 3 == 0 ? "draft" : "published";
    const std::vector<std::int64_t> only_m{m_};
    if (Status s = step("id_first", 1,
                        [&] {
                          return expect_first("id_first", q(store).where("id").eq(target).first(),
                                              only_m);
                        });
        !s.ok()) {
      return s;
    }
    if (Status s = step(
            "id_count", 1,
            [&] { return expect_count("id_count", q(store).where("id").eq(target).count(), 1); });
        !s.ok()) {
      return s;
    }
    if (Status s = step("id_filtered_first", 1,
                        [&] {
                          return expect_first(
                              "id_filtered_first",
                              q(store).where("id").eq(target).where("status").eq(status_m).first(),
                              only_m);
                        });
        !s.ok()) {
      return s;
    }
    const auto published = [](std::int64_t i) { return i % 3 != 0; };
    if (Status s = step("unindexed_first", 1,
                        [&] {
                          return expect_first("unindexed_first",
                                              q(store).where("status").eq("published").first(),
                                              rows_where(0, n_, published));
                        });
        !s.ok()) {
      return s;
    }
    if (Status s = step("stream", n_,
                        [&] {
                          return expect_rows("stream", store.stream_all(),
                                             rows_where(0, n_, [](auto) { return true; }));
                        });
        !s.ok()) {
      return s;
    }
    if (Status s = step("delete", d_,
                        [&] {
                          for (std::int64_t i = 0; i < d_; ++i)
                            store.remove(ids_[static_cast<std::size_t>(i)]);
                        });
        !s.ok()) {
      return s;
    }
    return expect_count("delete", store.count(), static_cast<std::size_t>(n_ - d_));
  }

  Status indexed_queries(doc::DocStore& store) {
    doc::IndexManager& indexes = doc::index_manager(store);
    if (Status s = step("index_build", n_ - d_,
                        [&]() -> Status {
                          indexes.field("kind").field("bucket").field("publishedAt").range().sync();
                          return {};
                        });
        !s.ok()) {
      return s;
    }
    if (Status s = check_index_files(indexes); !s.ok()) return s;

    const auto even = [](std::int64_t i) { return i % 2 == 0; };
    const auto all = [](std::int64_t) { return true; };
    const std::vector<std::int64_t> pages = rows_where(d_, n_, even);
    const std::vector<std::int64_t> alive = rows_where(d_, n_, all);
    const std::vector<std::int64_t> window =
        rows_where(d_, n_, [](std::int64_t i) { return i >= 10 && i <= 200; });
    std::vector<std::int64_t> newest(alive.rbegin(), alive.rend());
    const Json low = kStart + 10, high = kStart + 200;

    struct Get {
      const char* op;
      std::function<std::vector<Record>()> run;
      std::vector<std::int64_t> expected;
    };
    const std::vector<Get> gets{
        {"indexed", [&] { return q(store).where("kind").eq("page").limit(100).get(); },
         take(pages, 100)},
        {"indexed_first", [&] { return first_of(q(store).where("kind").eq("page").first()); },
         take(pages, 1)},
        {"indexed_range", [&] { return q(store).where("publishedAt").between(low, high).get(); },
         window},
        {"indexed_range_ordered",
         [&] {
           return q(store)
               .where("publishedAt")
               .gte(kStart)
               .order_by("publishedAt")
               .limit(100)
               .get();
         },
         take(alive, 100)},
        {"indexed_range_ordered_first",
         [&] {
           return first_of(
               q(store).where("publishedAt").gte(kStart).order_by("publishedAt").first());
         },
         take(alive, 1)},
        {"indexed_range_ordered_desc",
         [&] {
           return q(store)
               .where("publishedAt")
               .gte(kStart)
               .order_by("publishedAt", "desc")
               .limit(100)
               .get();
         },
         take(newest, 100)},
        {"indexed_range_ordered_desc_first",
         [&] {
           return first_of(
               q(store).where("publishedAt").gte(kStart).order_by("publishedAt", "desc").first());
         },
         take(newest, 1)},
        {"indexed_compound_miss",
         [&] { return q(store).where("kind").eq("post").where("bucket").eq(4).get(); },
         {}},
    };
    for (const Get& g : gets) {
      if (Status s = step(g.op, 1, [&] { return expect_rows(g.op, g.run(), g.expected); });
          !s.ok()) {
        return s;
      }
    }
    struct Count {
      const char* op;
      std::function<std::size_t()> run;
      std::size_t expected;
    };
    const auto count_rows = [&](const std::function<bool(std::int64_t)>& pred) {
      return rows_where(d_, n_, pred).size();
    };
    const std::vector<Count> counts{
        {"indexed_compound_miss_count",
         [&] { return q(store).where("kind").eq("post").where("bucket").eq(4).count(); }, 0},
        {"indexed_compound_count",
         [&] { return q(store).where("kind").eq("page").where("bucket").eq(4).count(); },
         count_rows([](std::int64_t i) { return i % 10 == 4; })},
        {"indexed_count", [&] { return q(store).where("kind").eq("page").count(); }, pages.size()},
        {"indexed_numeric_count", [&] { return q(store).where("bucket").eq(5).count(); },
         count_rows([](std::int64_t i) { return i % 10 == 5; })},
        {"indexed_range_count",
         [&] { return q(store).where("publishedAt").between(low, high).count(); }, window.size()},
        {"indexed_range_limit_count",
         [&] { return q(store).where("publishedAt").gte(kStart).limit(100).count(); },
         std::min<std::size_t>(100, alive.size())},
        {"unindexed_count", [&] { return q(store).where("status").eq("published").count(); },
         count_rows([](std::int64_t i) { return i % 3 != 0; })},
        {"unindexed_limit_count",
         [&] { return q(store).where("status").eq("published").limit(100).count(); },
         std::min<std::size_t>(100, count_rows([](std::int64_t i) { return i % 3 != 0; }))},
    };
    for (const Count& c : counts) {
      if (Status s = step(c.op, 1, [&] { return expect_count(c.op, c.run(), c.expected); });
          !s.ok()) {
        return s;
      }
    }
    return {};
  }

  static std::vector<Record> first_of(std::optional<Record> record) {
    std::vector<Record> out;
    if (record) out.push_back(std::move(*record));
    return out;
  }

  // Untimed: one bucket file per distinct kind, bucket and (bucket, kind) of the rows
  // left after the delete, and the range base and checkpoint files.
  Status check_index_files(doc::IndexManager& indexes) const {
    std::size_t kinds = 0, buckets = 0, pairs = 0;
    bool kind_seen[2] = {false, false};
    bool bucket_seen[10] = {};
    for (std::int64_t i = d_; i < n_; ++i) {
      kind_seen[i % 2] = true;
      bucket_seen[i % 10] = true;
    }
    for (bool seen : kind_seen) kinds += seen ? 1 : 0;
    for (bool seen : bucket_seen) buckets += seen ? 1 : 0;
    pairs = buckets;  // a bucket fixes the parity, so each bucket pairs with one kind
    const auto files_in = [](const std::filesystem::path& dir) {
      std::size_t count = 0;
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        count += entry.path().extension() == ".jsonc" ? 1 : 0;
      }
      return count;
    };
    const auto entries = indexes.entries_dir();
    const std::size_t got = files_in(entries / "eq" / "6b696e64") +
                            files_in(entries / "eq" / "6275636b6574") +
                            files_in(indexes.compound_dir("bucket", "kind"));
    if (got != kinds + buckets + pairs) {
      return Status::error("index_build: " + std::to_string(got) + " bucket files, expected " +
                           std::to_string(kinds + buckets + pairs));
    }
    const auto range = entries / "range" / "7075626c69736865644174";
    if (!std::filesystem::exists(range.string() + ".jsonl") ||
        !std::filesystem::exists(range.string() + ".idx.jsonc")) {
      return Status::error("index_build: missing range base or checkpoint file");
    }
    return {};
  }

  Status scans_and_reopen(doc::DocStore& store) {
    const std::vector<std::int64_t> pages =
        take(rows_where(d_, n_, [](std::int64_t i) { return i % 2 == 0; }), 100);
    if (Status s =
            step("full", 1,
                 [&] {
                   return expect_rows(
                       "full",
                       store.stream_all(
                           engines::RecordQuery::all().where_equal("kind", "page").limit(100)),
                       pages);
                 });
        !s.ok()) {
      return s;
    }
    std::unique_ptr<doc::DocStore> second;
    if (Status s = step("reopen", 1,
                        [&] { second = std::make_unique<doc::DocStore>(root_, "docs", options_); });
        !s.ok()) {
      return s;
    }
    if (second->collection_path() != store.collection_path()) {
      return Status::error("reopen: opened " + second->collection_path().string());
    }
    return {};
  }

  Status bulk() {
    doc::DocStore bulk_store(root_, "docs-bulk", options_);
    std::size_t stored = 0;
    if (Status s = step("bulk_put", n_,
                        [&] {
                          std::int64_t i = 0;
                          stored = bulk_store.put_stream([&]() -> std::optional<Json> {
                            if (i >= n_) return std::nullopt;
                            return engines::bench_row(static_cast<std::uint64_t>(i++));
                          });
                          return expect_count("bulk_put", stored, static_cast<std::size_t>(n_));
                        });
        !s.ok()) {
      return s;
    }
    const std::filesystem::path file = root_ / "docs-bulk.jsonl";
    if (Status s = step("jsonl_export", n_,
                        [&] {
                          return expect_count("jsonl_export", bulk_store.export_jsonl(file),
                                              static_cast<std::size_t>(n_));
                        });
        !s.ok()) {
      return s;
    }
    // Each line is {"id":"<36>","data":<row>}\n: 54 bytes plus the row.
    std::uintmax_t expected_bytes = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      expected_bytes +=
          54 + engines::encode_compact(engines::bench_row(static_cast<std::uint64_t>(i))).size();
    }
    if (const auto bytes = std::filesystem::file_size(file); bytes != expected_bytes) {
      return Status::error("jsonl_export: wrote " + std::to_string(bytes) + " bytes, expected " +
                           std::to_string(expected_bytes));
    }
    doc::DocStore imported(root_, "docs-jsonl-import", options_);
    return step("jsonl_import", n_, [&] {
      return expect_count("jsonl_import", imported.import_jsonl(file),
                          static_cast<std::size_t>(n_));
    });
  }

  Status put_floor() {
    const std::filesystem::path dir = root_ / "floor";
    std::string bytes;
    std::vector<std::size_t> offsets{0};
    for (std::int64_t i = 0; i < n_; ++i) {
      const std::string id = engines::uuid_v7::generate(kStart + i);
      bytes += "{\"id\":\"" + id + "\",\"data\":";
      engines::append_compact(bytes, engines::bench_row(static_cast<std::uint64_t>(i)));
      bytes += "}\n";
      offsets.push_back(bytes.size());
      engines::make_directories(dir / id.substr(24, 2));
    }
    if (Status s = step("put_floor", n_, [&] { floor_writes(dir, bytes, offsets, options_.sync); });
        !s.ok()) {
      return s;
    }
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      files += entry.is_regular_file() ? 1 : 0;
    }
    if (Status s = expect_count("put_floor", files, offsets.size() - 1); !s.ok()) return s;
    return step("scan_floor", n_, [&] {
      return expect_count("scan_floor", floor_scan(dir), static_cast<std::size_t>(n_));
    });
  }

  storh::RunContext& ctx_;
  std::int64_t n_, m_, d_;
  std::filesystem::path root_;
  doc::DocStoreOptions options_;
  std::vector<std::string> ids_;
};

class DocEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.name = "doc";
    info.version = "1.0.0";
    info.description = "document store: one durable file per record, secondary indexes, queries";
    info.params = {
        {"durability",
         storh::ParamType::string,
         std::string("durable"),
         {std::string("durable"), std::string("none")},
         "durable: fsync every write (file and directory); none: skip fsyncs"},
        {"validation",
         storh::ParamType::string,
         std::string("stat"),
         {std::string("stat"), std::string("hash"), std::string("trust")},
         "how cached records are checked against their files (engines.md 4.6)"},
    };
    info.operations = operations();
    return info;
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("doc", [&] { return Scenario(ctx).run(); });
  }
};

}  // namespace

STORH_PLUGIN(doc, "1.0.0", DocEngine)
