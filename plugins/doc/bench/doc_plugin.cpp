// The doc plugin: storh's document-store benchmark (engine-spec.md section 11.1) over
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
// bulk_floor times the batched protocol of bulk_put and jsonl_import the same way (per
// batch: create and write the temp files, make them durable, rename each, make the
// renames durable, with the calls bulk_sync chooses), right after bulk_put over the same record
// files, and delete_floor the unlinks of delete, right before delete over copies of the files it
// deletes: file creation slows down for minutes after deletions, so a floor is only a floor next to
// its operation and over the same shard directories (doc_floors.h).
//
// Reads that return records (the get()s, stream, full) take them with shared data
// (get_shared, stream_shared), as storh's copy-on-write PHP arrays are returned: the
// timed step pays for finding and checking the records, not for a deep copy of each.
//
// Params: durability = durable | none (skip every fsync, to measure their cost; fsync and
// os are their names for the key-value store, doc_params.h);
// validation = stat | hash | trust | notify (section 4.6, the store's cache validation;
// notify is stat plus inotify, docs/engines/doc.md). A notify store that had to fall back
// to stat says why in a progress message. bulk_sync = filesystem | files: how bulk_put and
// jsonl_import make a batch durable (one syncfs before and one after its renames, or
// storh's fsync of every file and touched directory; DocStoreOptions::bulk_sync).
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/bench/durability.h"
#include "common/bench/params.h"
#include "common/canonical_json.h"
#include "common/uuid_v7.h"
#include "doc/bench/doc_floors.h"
#include "doc/bench/doc_params.h"
#include "doc/doc_store.h"
#include "doc/index_manager.h"
#include "doc/query.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
namespace doc = storh::engines::doc;
using engines::Json;
using engines::Record;
using engines::bench::expect_count;
using engines::bench::expect_rows;
using storh::Status;

constexpr std::int64_t kStart = engines::kBenchStartMs;

// The default first, as this plugin has always listed them.
constexpr std::array<std::string_view, 4> kValidationOrder{"stat", "hash", "trust", "notify"};
constexpr engines::bench::TextParam kValidation = doc::validation_param(
    "how cached records are checked against their files (engine-spec.md 4.6)", kValidationOrder);
constexpr engines::bench::TextParam kBulkSync = engines::bench::bulk_sync_param(
    "how bulk_put and jsonl_import make a batch of 16 records or more durable: one syncfs before "
    "and one after its renames (where syncfs reports failures: Linux 5.17+, "
    "ext4/xfs/btrfs/tmpfs), or an fsync of every file and touched directory (storh's calls)");

const std::vector<storh::OperationSpec>& operations() {
  static const std::vector<storh::OperationSpec> operation_specs = [] {
    const auto op = [](const char* name, const char* unit, const char* what) {
      return storh::OperationSpec{name, unit, storh::Direction::lower_is_better, what};
    };
    return std::vector<storh::OperationSpec>{
        op("put", "records", "n x put(row(i)) with generated ids, one durable file each"),
        op("get", "records", "get(id) of the first min(1000, n) ids (validated-cache hits)"),
        op("id_first", "queries", "where id eq ids[n/2], first_shared()"),
        op("id_count", "queries", "where id eq ids[n/2], count()"),
        op("id_filtered_first", "queries",
           "where id eq ids[n/2] and status eq its status, first_shared()"),
        op("unindexed_first", "queries",
           "where status eq published, first_shared() (fast-path scan)"),
        op("stream", "records", "materialise stream() (fast path)"),
        op("delete", "records", "delete the first min(100, n) ids"),
        op("index_build", "records", "index kind, bucket, publishedAt (range): manifest + rebuild"),
        op("indexed", "queries", "where kind eq page, limit 100, get()"),
        op("indexed_first", "queries", "where kind eq page, first_shared()"),
        op("indexed_range", "queries", "where publishedAt between(start+10, start+200), get()"),
        op("indexed_range_ordered", "queries", "publishedAt gte start, orderBy asc, limit 100"),
        op("indexed_range_ordered_first", "queries",
           "publishedAt gte start, orderBy asc, first_shared()"),
        op("indexed_range_ordered_desc", "queries",
           "publishedAt gte start, orderBy desc, limit 100"),
        op("indexed_range_ordered_desc_first", "queries", "same, orderBy desc, first_shared()"),
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
        op("bulk_floor", "records",
           "raw syscalls of bulk_put/jsonl_import: per batch create+write, sync, rename, "
           "sync (bulk_sync's calls)"),
        op("delete_floor", "records", "raw syscalls of delete: unlinkat min(100, n) files"),
        op("get_floor", "records",
           "raw syscall of a warm STAT get: fstatat of as many files as get read, the next "
           "ones the put loop wrote (get's own when n < 2000), right after the gets"),
    };
  }();
  return operation_specs;
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

// A first_shared() answer as a list of no record or one (its data shared, not copied), as
// get_shared() answers. The *_first operations time first_shared(): storh's first()
// returns a copy-on-write PHP array, so it makes no deep copy of the data either (results
// older than the change include a copy: docs/speed-vs-php.md).
std::vector<engines::SharedRecord> first_of(std::optional<engines::SharedRecord> record) {
  std::vector<engines::SharedRecord> out;
  if (record) out.push_back(std::move(*record));
  return out;
}

Status expect_first(std::string_view op, std::optional<engines::SharedRecord> record,
                    const std::vector<std::int64_t>& expected) {
  return expect_rows(op, first_of(std::move(record)), take(expected, 1));
}

class Scenario {
 public:
  Scenario(storh::RunContext& ctx)
      : ctx_(ctx),
        n_(static_cast<std::int64_t>(ctx.dataset_size() > 0 ? ctx.dataset_size() : 1)),
        m_(n_ / 2),
        d_(std::min<std::int64_t>(100, n_)),
        root_(ctx.work_dir()) {
    options_.sync = doc::durability(ctx);
    options_.validation = doc::validation(ctx);
    options_.bulk_sync = engines::bench::bulk_sync(ctx);
  }

  Status run() {
    engines::uuid_v7::start_fresh_sequence();
    auto store = std::make_unique<doc::DocStore>(root_, "docs", options_);
    STORH_TRY(writes_and_reads(*store));
    STORH_TRY(indexed_queries(*store));
    STORH_TRY(scans_and_reopen(*store));
    report_fallback(*store);
    store.reset();
    STORH_TRY(bulk());
    return doc::measure_put_and_scan_floors(ctx_, root_ / "floor", floor_records(), options_.sync);
  }

 private:
  template <typename F>
  Status step(std::string_view op, std::int64_t items, F&& fn) {
    return ctx_.measure(op, static_cast<std::uint64_t>(std::max<std::int64_t>(items, 1)),
                        std::forward<F>(fn));
  }
  doc::DocQuery q(doc::DocStore& store) const { return doc::DocQuery(store); }
  void report_fallback(const doc::DocStore& store) {
    if (const std::string& why = store.notify_fallback_reason(); !why.empty()) {
      ctx_.progress("doc: " + why);
    }
  }
  // The record files of rows 0..n-1 the floors write, built once.
  const doc::FloorRecords& floor_records() {
    if (!floor_records_) floor_records_.emplace(static_cast<std::uint64_t>(n_));
    return *floor_records_;
  }

  Status writes_and_reads(doc::DocStore& store) {
    ids_.reserve(static_cast<std::size_t>(n_));
    ctx_.progress("doc: put " + std::to_string(n_) + " records");
    STORH_TRY(step("put", n_, [&] {
      for (std::int64_t i = 0; i < n_; ++i) {
        ids_.push_back(store.put(engines::bench_row(static_cast<std::uint64_t>(i))).id);
      }
    }));
    STORH_TRY(expect_count("put", store.cached_records(), static_cast<std::size_t>(n_)));
    const std::int64_t gets = std::min<std::int64_t>(1000, n_);
    // The records are kept (shared, no copy) and checked after the timed step, as storh
    // times the gets alone.
    std::vector<doc::SharedJson> got(static_cast<std::size_t>(gets));
    STORH_TRY(step("get", gets, [&] {
      for (std::int64_t i = 0; i < gets; ++i) {
        got[static_cast<std::size_t>(i)] = store.find(ids_[static_cast<std::size_t>(i)]);
      }
    }));
    for (std::int64_t i = 0; i < gets; ++i) {
      const doc::SharedJson& data = got[static_cast<std::size_t>(i)];
      if (!data || *data != engines::bench_row(static_cast<std::uint64_t>(i))) {
        return Status::error("get: wrong record for ids[" + std::to_string(i) + "]");
      }
    }
    if (ctx_.selected("get_floor")) {
      // Files in the state the gets found theirs in: the next `gets` records, written by
      // the same put loop and untouched since. Over the gets' own files the floor would
      // find the kernel's caches warmed by the gets (whichever pass comes second runs
      // faster by 10-20%). With fewer than 2 * gets records, the gets' own files.
      const std::ptrdiff_t first = n_ >= 2 * gets ? static_cast<std::ptrdiff_t>(gets) : 0;
      STORH_TRY(doc::measure_get_floor(
          ctx_, store.record_path(ids_.front()).parent_path().parent_path(),
          std::vector<std::string>(ids_.begin() + first,
                                   ids_.begin() + first + static_cast<std::ptrdiff_t>(gets))));
    }
    const std::string target = ids_[static_cast<std::size_t>(m_)];
    const std::string status_m = m_ % 3 == 0 ? "draft" : "published";
    const std::vector<std::int64_t> only_m{m_};
    STORH_TRY(step("id_first", 1, [&] {
      return expect_first("id_first", q(store).where("id").eq(target).first_shared(), only_m);
    }));
    STORH_TRY(step("id_count", 1, [&] {
      return expect_count("id_count", q(store).where("id").eq(target).count(), 1);
    }));
    STORH_TRY(step("id_filtered_first", 1, [&] {
      return expect_first(
          "id_filtered_first",
          q(store).where("id").eq(target).where("status").eq(status_m).first_shared(), only_m);
    }));
    const auto published = [](std::int64_t i) { return i % 3 != 0; };
    STORH_TRY(step("unindexed_first", 1, [&] {
      return expect_first("unindexed_first",
                          q(store).where("status").eq("published").first_shared(),
                          rows_where(0, n_, published));
    }));
    STORH_TRY(step("stream", n_, [&] {
      return expect_rows("stream", store.stream_shared(),
                         rows_where(0, n_, [](auto) { return true; }));
    }));
    STORH_TRY(doc::measure_delete_floor(
        ctx_, root_ / "floor-delete",
        doc::FloorRecords(store.stream_shared(engines::RecordQuery::all().limit(d_))),
        static_cast<std::uint64_t>(d_), options_.sync));
    STORH_TRY(step("delete", d_, [&] {
      for (std::int64_t i = 0; i < d_; ++i) store.remove(ids_[static_cast<std::size_t>(i)]);
    }));
    return expect_count("delete", store.count(), static_cast<std::size_t>(n_ - d_));
  }

  Status indexed_queries(doc::DocStore& store) {
    doc::IndexManager& indexes = doc::index_manager(store);
    STORH_TRY(step("index_build", n_ - d_, [&]() -> Status {
      indexes.field("kind").field("bucket").field("publishedAt").range().sync();
      return {};
    }));
    STORH_TRY(check_index_files(indexes));

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
      std::function<std::vector<engines::SharedRecord>()> run;
      std::vector<std::int64_t> expected;
    };
    const std::vector<Get> gets{
        {"indexed", [&] { return q(store).where("kind").eq("page").limit(100).get_shared(); },
         take(pages, 100)},
        {"indexed_first",
         [&] { return first_of(q(store).where("kind").eq("page").first_shared()); },
         take(pages, 1)},
        {"indexed_range",
         [&] { return q(store).where("publishedAt").between(low, high).get_shared(); }, window},
        {"indexed_range_ordered",
         [&] {
           return q(store)
               .where("publishedAt")
               .gte(kStart)
               .order_by("publishedAt")
               .limit(100)
               .get_shared();
         },
         take(alive, 100)},
        {"indexed_range_ordered_first",
         [&] {
           return first_of(
               q(store).where("publishedAt").gte(kStart).order_by("publishedAt").first_shared());
         },
         take(alive, 1)},
        {"indexed_range_ordered_desc",
         [&] {
           return q(store)
               .where("publishedAt")
               .gte(kStart)
               .order_by("publishedAt", "desc")
               .limit(100)
               .get_shared();
         },
         take(newest, 100)},
        {"indexed_range_ordered_desc_first",
         [&] {
           return first_of(q(store)
                               .where("publishedAt")
                               .gte(kStart)
                               .order_by("publishedAt", "desc")
                               .first_shared());
         },
         take(newest, 1)},
        {"indexed_compound_miss",
         [&] { return q(store).where("kind").eq("post").where("bucket").eq(4).get_shared(); },
         {}},
    };
    for (const Get& g : gets) {
      STORH_TRY(step(g.op, 1, [&] { return expect_rows(g.op, g.run(), g.expected); }));
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
      STORH_TRY(step(c.op, 1, [&] { return expect_count(c.op, c.run(), c.expected); }));
    }
    return {};
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
    STORH_TRY(step("full", 1, [&] {
      return expect_rows(
          "full",
          store.stream_shared(engines::RecordQuery::all().where_equal("kind", "page").limit(100)),
          pages);
    }));
    std::unique_ptr<doc::DocStore> second;
    STORH_TRY(step("reopen", 1,
                   [&] { second = std::make_unique<doc::DocStore>(root_, "docs", options_); }));
    if (second->collection_path() != store.collection_path()) {
      return Status::error("reopen: opened " + second->collection_path().string());
    }
    return {};
  }

  Status bulk() {
    doc::DocStore bulk_store(root_, "docs-bulk", options_);
    std::size_t stored = 0;
    STORH_TRY(step("bulk_put", n_, [&] {
      std::int64_t i = 0;
      stored = bulk_store.put_stream([&]() -> std::optional<Json> {
        if (i >= n_) return std::nullopt;
        return engines::bench_row(static_cast<std::uint64_t>(i++));
      });
      return expect_count("bulk_put", stored, static_cast<std::size_t>(n_));
    }));
    // Its floor, right after it, over the same record files (ids, so shards).
    STORH_TRY(doc::measure_bulk_floor(ctx_, root_ / "floor-bulk",
                                      doc::FloorRecords(bulk_store.stream_shared()),
                                      options_.batch_size, options_.sync, options_.bulk_sync));
    const std::filesystem::path file = root_ / "docs-bulk.jsonl";
    STORH_TRY(step("jsonl_export", n_, [&] {
      return expect_count("jsonl_export", bulk_store.export_jsonl(file),
                          static_cast<std::size_t>(n_));
    }));
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
    report_fallback(bulk_store);
    doc::DocStore imported(root_, "docs-jsonl-import", options_);
    return step("jsonl_import", n_, [&] {
      return expect_count("jsonl_import", imported.import_jsonl(file),
                          static_cast<std::size_t>(n_));
    });
  }

  storh::RunContext& ctx_;
  std::int64_t n_, m_, d_;
  std::filesystem::path root_;
  doc::DocStoreOptions options_;
  std::vector<std::string> ids_;
  std::optional<doc::FloorRecords> floor_records_;
};

class DocEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "document store: one durable file per record, secondary indexes, queries";
    info.params = {engines::bench::spec(doc::kDurability), engines::bench::spec(kValidation),
                   engines::bench::spec(kBulkSync)};
    info.operations = operations();
    return info;
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("doc", [&] { return Scenario(ctx).run(); });
  }
};

}  // namespace

STORH_PLUGIN(doc, "1.0.0", DocEngine)
