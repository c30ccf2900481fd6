// The doc plugin: its parameters, its operations and the engine the host loads. The only
// file of the engine that knows the host; the scenario is doc_scenario.h's.
//
// Params: durability = durable | none (skip every fsync, to measure their cost; fsync and
// os are their names for the key-value store, doc_params.h);
// validation = stat | hash | trust | notify (section 4.6, the store's cache validation;
// notify is stat plus inotify, docs/engines/doc.md). bulk_sync = filesystem | files: how
// bulk_put and jsonl_import make a batch durable (one syncfs before and one after its
// renames, or storh's fsync of every file and touched directory;
// DocStoreOptions::bulk_sync).
#include <array>
#include <string_view>
#include <vector>

#include "common/bench/durability.h"
#include "common/bench/params.h"
#include "doc/bench/doc_params.h"
#include "doc/bench/doc_scenario.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
namespace doc = storh::engines::doc;
using storh::Status;

// The default first, as this plugin has always listed them.
constexpr std::array<std::string_view, 4> kValidationOrder{"stat", "hash", "trust", "notify"};
constexpr engines::bench::TextParam kValidation = doc::validation_param(
    "how cached records are checked against their files (engine-spec.md 4.6)", kValidationOrder);
constexpr engines::bench::TextParam kBulkSync = engines::bench::bulk_sync_param(
    "how bulk_put and jsonl_import make a batch of 16 records or more durable: one syncfs before "
    "and one after its renames (where syncfs reports failures: Linux 5.17+, "
    "ext4/xfs/btrfs/tmpfs), or an fsync of every file and touched directory (storh's calls)");

// In the order doc::run_scenario runs them.
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
    return storh::guarded("doc", [&] { return doc::run_scenario(ctx); });
  }
};

}  // namespace

STORH_PLUGIN(doc, "1.0.0", DocEngine)
