// The mirror plugin: storh's SQLite mirror benchmark (engine-spec.md section 11.8) over
// mirror::SqlMirror. The only file of the engine that knows about the host.
//
// Setup (untimed): put_stream(bench_row(0..n-1)) into the document collection
// mirror-docs (no indexes); schema string(kind).index(), string(slug).unique(),
// int(publishedAt).range(); SQLite file <work>/mirror-bench.db with SQLite's defaults
// (journal_mode DELETE, synchronous FULL) unless journal_mode says wal; SqlMirror with
// prefix bench_, collection docs, install(). Then, each step checked, with d = min(100, n):
//   push          push() into the empty table              {inserted n}
//   reconcile     push() again, nothing changed            {unchanged n}
//   flush         flush(docs, first d ids of the store)    {upserted d, deleted 0}
//   query         SELECT COUNT(*) ... kind = 'page' AND publishedAt >= start, through
//                 the mirror's connection, repeated (min_time)   ceil(n/2)
//   query_direct  the same SQL through a bare sqlite3 handle with the same page cache
//                 settings, repeated, to show the plugin adds nothing
//   rebuild       DELETE all rows + push                   {inserted n}
//   push_direct   push's SQL through a bare sqlite3 handle (mirror_direct.h): the
//                 table's n rows, read back untimed, INSERTed into the same empty table
//                 in <work>/mirror-direct.db (same journal mode), one transaction
//   flush_direct  then flush's SQL there: DELETE and INSERT the first d rows, one
//                 transaction (the references for push, rebuild and flush)
//   pull          into the new collection mirror-restored, through a new SqlMirror with
//                 no schema: every row restored durably    {written n, unchanged 0}
// An unselected step still runs (untimed) when later steps depend on it.
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
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
#include "common/bench/engine_counts.h"
#include "common/durable_io.h"
#include "common/query/record_query.h"
#include "common/schema.h"
#include "doc/bench/doc_params.h"
#include "doc/doc_store.h"
#include "mirror/mirror_direct.h"
#include "mirror/sql_mirror.h"
#include "mirror/sqlite.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
namespace doc = storh::engines::doc;
namespace mirror = storh::engines::mirror;
using engines::bench::expect_count;
using storh::Status;

constexpr std::array<std::string_view, 2> kJournalModes{"delete", "wal"};
constexpr engines::bench::TextParam kJournalMode{
    "journal_mode", "delete", kJournalModes,
    "SQLite journal: delete (SQLite's default, as storh) or wal; synchronous stays FULL"};
constexpr engines::bench::TextParam kDurability = engines::bench::durability_param(
    "document store writes: durable (fsync) or none (skip fsyncs, to measure their cost)");
constexpr engines::bench::TextParam kValidation =
    doc::validation_param("document store cache validation (storh's --cache-validation)");

constexpr std::string_view kCountSql =
    "SELECT COUNT(*) FROM bench_docs WHERE kind = 'page' AND publishedAt >= 1700000000000";

std::string describe(const mirror::PushResult& r) {
  return fmt::format("{{inserted {}, updated {}, deleted {}, unchanged {}}}", r.inserted, r.updated,
                     r.deleted, r.unchanged);
}

Status expect_push(std::string_view op, const mirror::PushResult& got,
                   const mirror::PushResult& want) {
  if (got == want) return {};
  return Status::error(
      fmt::format("{}: push reported {}, expected {}", op, describe(got), describe(want)));
}

// The count query through the bare C API: prepare, step, read, finalize.
std::int64_t count_direct(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, kCountSql.data(), static_cast<int>(kCountSql.size()), &stmt,
                         nullptr) != SQLITE_OK) {
    return -1;
  }
  std::int64_t count = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  return count;
}

class MirrorEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "SQLite mirror of a document collection: push, reconcile, flush, pull";
    info.params = {engines::bench::spec(kJournalMode), engines::bench::spec(kDurability),
                   engines::bench::spec(kValidation)};
    info.operations = {
        {"push", "records", storh::Direction::lower_is_better,
         "push the collection into the empty table (one transaction)"},
        {"reconcile", "records", storh::Direction::lower_is_better,
         "push again with nothing changed: stream, hash and compare every record"},
        {"flush", "records", storh::Direction::lower_is_better,
         "flush the first min(100, n) ids: delete + insert each row, one transaction"},
        {"query", "queries", storh::Direction::lower_is_better,
         "COUNT(*) by kind and publishedAt through the mirror's connection"},
        {"query_direct", "queries", storh::Direction::lower_is_better,
         "the same COUNT(*) through a bare sqlite3 handle (the reference for query)"},
        {"rebuild", "records", storh::Direction::lower_is_better,
         "DELETE every row, then push the collection again"},
        {"push_direct", "records", storh::Direction::lower_is_better,
         "push's INSERTs through a bare sqlite3 handle, one transaction (the reference for "
         "push and rebuild)"},
        {"flush_direct", "records", storh::Direction::lower_is_better,
         "flush's DELETE + INSERT of d rows through a bare sqlite3 handle (the reference for "
         "flush)"},
        {"pull", "records", storh::Direction::lower_is_better,
         "restore every row into a new collection, each record durable before it returns"},
    };
    return info;
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("mirror", [&] { return run_scenario(ctx); });
  }

 private:
  // Times `fn` when the suite selected `op`, else runs it untimed (later steps need it).
  static Status step(storh::RunContext& ctx, std::string_view op, std::uint64_t items,
                     const std::function<Status()>& fn) {
    if (ctx.selected(op)) return ctx.measure(op, items, fn);
    return storh::guarded(op, fn);
  }

  // step() on the mirror's connection: SQLite's statistics over it (Database::take_counts)
  // become op's engine counters.
  static Status step(storh::RunContext& ctx, mirror::Database& db, std::string_view op,
                     std::uint64_t items, const std::function<Status()>& fn) {
    if (!ctx.selected(op)) return storh::guarded(op, fn);
    return engines::bench::measure_with_counts(ctx, db, op, items, fn);
  }

  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    const std::uint64_t d = std::min<std::uint64_t>(100, n);
    const std::filesystem::path& root = ctx.work_dir();

    doc::DocStoreOptions options;
    options.sync = engines::bench::durability(ctx);
    options.validation = doc::validation(ctx);
    const std::string journal = engines::bench::text(ctx, kJournalMode);
    if (std::find(kJournalModes.begin(), kJournalModes.end(), journal) == kJournalModes.end()) {
      return Status::error(fmt::format("journal_mode must be {}, got \"{}\"",
                                       fmt::join(kJournalModes, " or "), journal));
    }

    ctx.progress(fmt::format("mirror: storing {} records", n));
    doc::DocStore store(root, "mirror-docs", options);
    std::uint64_t next = 0;
    store.put_stream([&]() -> std::optional<engines::Json> {
      if (next == n) return std::nullopt;
      return engines::bench_row(next++);
    });

    engines::Schema schema = engines::bench_schema();
    mirror::Database db(root / "mirror-bench.db");
    if (db.set_journal_mode(journal) != journal) {
      return Status::error(fmt::format("SQLite refused journal_mode {}", journal));
    }
    mirror::SqlMirror sql(db, "bench_");
    sql.collection(store, "docs", schema);
    sql.install();

    STORH_TRY(step(ctx, db, "push", n, [&] {
      return expect_push("push", sql.push(), {n, 0, 0, 0});
    }));
    STORH_TRY(step(ctx, db, "reconcile", n, [&] {
      return expect_push("reconcile", sql.push(), {0, 0, 0, n});
    }));

    std::vector<std::string> flush_ids;
    store.scan(engines::RecordQuery::all().limit(static_cast<std::int64_t>(d)),
               [&](const doc::RecordView& record) {
                 flush_ids.emplace_back(record.id);
                 return true;
               });
    STORH_TRY(step(ctx, db, "flush", d, [&]() -> Status {
      const mirror::FlushResult got = sql.flush("docs", flush_ids);
      if (got == mirror::FlushResult{d, 0}) return {};
      return Status::error(
          fmt::format("flush: reported {{upserted {}, deleted {}}}, expected {{{}, 0}}",
                      got.upserted, got.deleted, d));
    }));

    const std::uint64_t pages = (n + 1) / 2;
    STORH_TRY(query_pair(ctx, db, pages));

    STORH_TRY(step(ctx, db, "rebuild", n, [&] {
      return expect_push("rebuild", sql.rebuild(), {n, 0, 0, 0});
    }));

    if (ctx.selected("push_direct") || ctx.selected("flush_direct")) {
      STORH_TRY(direct_floors(ctx, db.path(), sql.layout("docs"), root / "mirror-direct.db",
                              journal, n, d));
    }

    if (!ctx.selected("pull")) return {};
    ctx.progress(fmt::format("mirror: pulling {} rows", n));
    doc::DocStore restored(root, "mirror-restored", options);
    mirror::SqlMirror restore(db, "bench_");
    restore.collection(restored, "docs");
    return engines::bench::measure_with_counts(ctx, db, "pull", n, [&]() -> Status {
      const mirror::PullResult got = restore.pull();
      if (got == mirror::PullResult{n, 0}) return {};
      return Status::error(
          fmt::format("pull: reported {{written {}, unchanged {}}}, expected {{{}, 0}}",
                      got.written, got.unchanged, n));
    });
  }

  // push_direct and flush_direct over a copy of the table the rebuild left.
  static Status direct_floors(storh::RunContext& ctx, const std::filesystem::path& source,
                              const mirror::TableLayout& layout,
                              const std::filesystem::path& target, const std::string& journal,
                              std::uint64_t n, std::uint64_t d) {
    std::optional<mirror::DirectTable> table;
    STORH_TRY(storh::guarded("push_direct", [&] {
      table.emplace(source, layout);
      table->create(target, journal);
      return expect_count("push_direct: rows to copy", table->rows(), n);
    }));
    STORH_TRY(step(ctx, "push_direct", n,
                   [&] { return expect_count("push_direct", table->insert_all(), n); }));
    STORH_TRY(storh::guarded("push_direct",
                             [&] { return expect_count("push_direct: rows", table->count(), n); }));
    STORH_TRY(step(ctx, "flush_direct", d,
                   [&] { return expect_count("flush_direct", table->reinsert_first(d), d); }));
    return storh::guarded("flush_direct",
                          [&] { return expect_count("flush_direct: rows", table->count(), n); });
  }

  // query, then query_direct: repeated steps (min_time), so each reports the steady cost
  // of one count on a connection whose page cache already holds what the count reads,
  // whatever ran before it. The bare handle gets the mirror's page cache settings, so
  // what differs is only the code between the caller and sqlite3_step.
  static Status query_pair(storh::RunContext& ctx, mirror::Database& mirror_db,
                           std::uint64_t expected) {
    if (ctx.selected("query")) {
      STORH_TRY(ctx.measure_repeated("query", 1, [&] {
        return expect_count("query", mirror_db.query_int64(kCountSql), expected);
      }));
    }
    if (!ctx.selected("query_direct")) return {};
    const std::filesystem::path& path = mirror_db.path();
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    const std::unique_ptr<sqlite3, mirror::CloseDb> direct(raw);
    if (rc != SQLITE_OK) {
      return Status::error(fmt::format("query_direct: open {}: {}", path.string(),
                                       raw != nullptr ? sqlite3_errmsg(raw) : "out of memory"));
    }
    if (sqlite3_exec(raw, mirror::kPageCacheSql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Status::error(
          fmt::format("query_direct: {}: {}", mirror::kPageCacheSql, sqlite3_errmsg(raw)));
    }
    return ctx.measure_repeated("query_direct", 1, [&] {
      return expect_count("query_direct", count_direct(raw), expected);
    });
  }
};

}  // namespace

STORH_PLUGIN(mirror, "1.0.0", MirrorEngine)
