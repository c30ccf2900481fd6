// The doc plugin's scenario (doc_scenario.h): the timed steps and their answer checks.
#include "doc/bench/doc_scenario.h"

#include <algorithm>
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
#include "common/canonical_json.h"
#include "common/uuid_v7.h"
#include "doc/bench/doc_floors.h"
#include "doc/bench/doc_params.h"
#include "doc/doc_store.h"
#include "doc/index_manager.h"
#include "doc/query.h"

namespace storh::engines::doc {
namespace {

using bench::expect_count;
using bench::expect_rows;

constexpr std::int64_t kStart = kBenchStartMs;

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
  explicit Scenario(RunContext& ctx)
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

  RunContext& ctx_;
  std::int64_t n_, m_, d_;
  std::filesystem::path root_;
  doc::DocStoreOptions options_;
  std::vector<std::string> ids_;
  std::optional<doc::FloorRecords> floor_records_;
};

}  // namespace

Status run_scenario(RunContext& ctx) {
  return Scenario(ctx).run();
}

}  // namespace storh::engines::doc
