#include "log/bench/log_workload.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/bench/durability.h"
#include "common/bench/floors.h"
#include "common/bench/params.h"
#include "common/durable_io.h"
#include "common/uuid_v7.h"
#include "log/bench/log_floors.h"
#include "log/segment_line.h"
#include "log/segmented_log.h"

namespace storh::log_bench {
namespace {

namespace engines = storh::engines;
namespace uuid_v7 = storh::engines::uuid_v7;
using engines::Json;
using engines::Record;
using engines::RecordQuery;
using engines::log::LogQuery;
using engines::log::SegmentedLog;

constexpr std::int64_t kStart = engines::kBenchStartMs;

// The size of row(i)'s put line, computed from the format (section 5.2), not by the
// engine's encoder, so the stats check is independent of the code it checks.
std::uint64_t line_size(std::uint64_t i) {
  const std::string row =
      fmt::format(R"({{"kind":"{}","status":"{}","bucket":{},"slug":"item-{}","publishedAt":{}}})",
                  i % 2 == 0 ? "page" : "post", i % 3 == 0 ? "draft" : "published", i % 10, i,
                  kStart + static_cast<std::int64_t>(i));
  const std::uint64_t json = 64 + row.size();  // {"op":"put","id":"<36>","data":<row>}
  return std::to_string(json).size() + 1 + 8 + 1 + json + 1;
}

// How n appends of row(0..n-1) lay out in segments of `max` bytes.
struct Layout {
  std::uint64_t segments = 1;  // the active one included
  std::uint64_t bytes = 0;
  bool active_empty = true;
};
Layout layout(std::uint64_t n, std::uint64_t max) {
  Layout out;
  std::uint64_t position = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t size = line_size(i);
    out.bytes += size;
    position += size;
    if (position >= max) {
      ++out.segments;
      position = 0;
    }
  }
  out.active_empty = position == 0;
  return out;
}

// segment_size's minimum is SegmentedLog's own (segmented_log.h).
constexpr engines::bench::IntParam kSegmentSize{
    "segment_size", 16384, 256, engines::bench::kNoMaximum,
    "max_segment_bytes: a segment seals at this size (storh's harness: 16384)"};
constexpr engines::bench::TextParam kDurability = engines::bench::durability_param(
    "durable: fsync every acknowledged write; none: skip fsyncs to measure their cost");
constexpr engines::bench::TextParam kBulkSync = engines::bench::bulk_sync_param(
    "how bulk_append and the compactions make a pass of 16 new files or more durable: one syncfs "
    "(where syncfs reports failures: Linux 5.17+, ext4/xfs/btrfs/tmpfs), or an fdatasync of each "
    "file and an fsync of segments/ (storh's calls)");

engines::log::LogOptions options(const RunContext& ctx) {
  engines::log::LogOptions options;
  const std::int64_t segment_size = engines::bench::integer_value(ctx, kSegmentSize);
  // A negative value would wrap to a huge size and pass SegmentedLog's own check.
  if (!engines::bench::in_range(kSegmentSize, segment_size)) {
    throw std::invalid_argument("segment_size must be at least " +
                                std::to_string(kSegmentSize.minimum) + ", not " +
                                std::to_string(segment_size));
  }
  options.max_segment_bytes = static_cast<std::uint64_t>(segment_size);
  options.sync = engines::bench::durability(ctx);
  options.bulk_sync = engines::bench::bulk_sync(ctx);
  return options;
}

std::string slug(const Record& record) {
  const auto found = record.data.find("slug");
  return found != record.data.end() && found->is_string() ? found->get<std::string>() : "?";
}

std::uint64_t published_count(std::uint64_t n) {
  return n - (n + 2) / 3;
}

// The first i in (after, n) with i % 3 != 0 (a published row), or n when none.
std::uint64_t next_published(std::uint64_t after, std::uint64_t n) {
  for (std::uint64_t i = after + 1; i < n; ++i) {
    if (i % 3 != 0) return i;
  }
  return n;
}

Status check_first(std::string_view op, const std::optional<Record>& record, std::uint64_t i,
                   std::uint64_t n) {
  if (i >= n) {
    return STORH_EXPECT(op, !record, record ? slug(*record) : "none", "no record");
  }
  const std::string want = fmt::format("item-{}", i);
  return STORH_EXPECT(op, record && slug(*record) == want, record ? slug(*record) : "none", want);
}

Status check_ids(std::string_view op, const std::vector<Record>& records,
                 const std::vector<std::string>& ids, std::uint64_t first, std::uint64_t count) {
  if (records.size() != count) {
    return STORH_EXPECT(op, false, fmt::format("{} records", records.size()),
                        fmt::format("{} records", count));
  }
  for (std::uint64_t k = 0; k < count; ++k) {
    if (records[k].id != ids[first + k]) {
      return STORH_EXPECT(op, false, records[k].id,
                          fmt::format("ids[{}] = {}", first + k, ids[first + k]));
    }
  }
  return {};
}

template <typename F>
Status step(RunContext& ctx, std::string_view op, std::uint64_t items, F&& fn) {
  return ctx.measure(op, std::max<std::uint64_t>(items, 1), std::forward<F>(fn));
}

}  // namespace

std::vector<ParamSpec> log_params() {
  return {engines::bench::spec(kSegmentSize), engines::bench::spec(kDurability),
          engines::bench::spec(kBulkSync)};
}

std::vector<ParamRange> log_param_ranges() {
  return {engines::bench::range(kSegmentSize)};
}

std::vector<OperationSpec> log_operations() {
  auto op = [](const char* name, const char* unit, const char* what) {
    return OperationSpec{name, unit, Direction::lower_is_better, what};
  };
  return {
      op("append_floor", "lines", "no engine: n x (write one put line + fdatasync) to one file"),
      op("roll_floor", "lines",
         "no engine: the rolls of n appends (per segment_size bytes: create the index and "
         "next segment, write a temp manifest, fsync the three, rename, fsync the dir)"),
      op("append", "records", "n x put(row(i)), one fdatasync each"),
      op("cursor", "records", "stream(after ids[n/2], limit 100)"),
      op("query_cursor", "records", "query cursor(ids[n/2]) limit 100 get"),
      op("query_id_first", "queries", "query where id eq ids[n/2] first"),
      op("query_id_count", "queries", "query where id eq ids[n/2] count"),
      op("query_id_filtered_first", "queries", "query where id eq, status eq first"),
      op("query_first", "queries", "query where status eq published first"),
      op("query_cursor_first", "queries", "query where status eq published, cursor first"),
      op("range", "queries", "stream(time_range_ms(start+10, start+200)) over wall-clock ids"),
      op("query_all_count", "queries", "query count (live counter)"),
      op("query_count", "queries", "query where status eq published count (equality counter)"),
      op("query_limit_count", "queries", "same count with limit 100"),
      op("stats", "queries", "stats()"),
      op("compact", "records", "compact(): recover, roll, rewrite every sealed segment"),
      op("bulk_append", "records", "appendStream of n rows with ids stamped start+i"),
      op("bulk_query_count", "queries", "bulk: where status eq published count"),
      op("bulk_cursor", "records", "bulk: stream(after max_for_timestamp(start+n/2), limit 100)"),
      op("bulk_range", "records", "bulk: stream(time_range_ms(start+10, start+200))"),
      op("bulk_compact", "records", "bulk: compact()"),
      op("bulk_compacted_range", "records", "bulk: the same range over compacted segments"),
      op("recover", "opens", "reopen with 7 bytes of garbage on the active segment"),
  };
}

Status run_log_workload(RunContext& ctx) {
  const std::uint64_t n = ctx.dataset_size();
  const std::uint64_t m = n / 2;
  const auto opts = options(ctx);
  const Layout expected = layout(n, opts.max_segment_bytes);
  const std::uint64_t after_m = std::min<std::uint64_t>(100, n - 1 - m);
  const std::uint64_t published = published_count(n);
  // compact seals a non-empty active segment first, then rewrites every sealed one
  // into outputs of the same sizes; the new active segment follows the last seg-*.
  const std::uint64_t compacted = expected.segments - (expected.active_empty ? 1 : 0);

  STORH_TRY(run_floors(ctx, n, opts));

  std::vector<std::string> ids;
  ids.reserve(n);
  {
    SegmentedLog log(ctx.work_dir(), "log", opts);
    STORH_TRY(step(ctx, "append", n, [&]() -> Status {
      for (std::uint64_t i = 0; i < n; ++i) ids.push_back(log.put(engines::bench_row(i)).id);
      return {};
    }));
    const std::string cursor = ids[m];
    const char* status_m = m % 3 == 0 ? "draft" : "published";

    STORH_TRY(step(ctx, "cursor", after_m, [&]() -> Status {
      const auto records = log.stream(RecordQuery::all().after(cursor).limit(100)).to_vector();
      return check_ids("cursor", records, ids, m + 1, after_m);
    }));
    STORH_TRY(step(ctx, "query_cursor", after_m, [&]() -> Status {
      const auto records = log.find(LogQuery().cursor(cursor).limit(100));
      return check_ids("query_cursor", records, ids, m + 1, after_m);
    }));
    const LogQuery by_id = LogQuery().where("id", "eq", cursor);
    STORH_TRY(step(ctx, "query_id_first", 1, [&]() -> Status {
      return check_first("query_id_first", log.first(by_id), m, n);
    }));
    STORH_TRY(step(ctx, "query_id_count", 1, [&]() -> Status {
      const std::uint64_t counted = log.count(by_id);
      return STORH_EXPECT("query_id_count", counted == 1, std::to_string(counted), "1");
    }));
    STORH_TRY(step(ctx, "query_id_filtered_first", 1, [&]() -> Status {
      return check_first("query_id_filtered_first",
                         log.first(by_id.where("status", "eq", status_m)), m, n);
    }));
    const LogQuery by_status = LogQuery().where("status", "eq", "published");
    STORH_TRY(step(ctx, "query_first", 1, [&]() -> Status {
      return check_first("query_first", log.first(by_status), next_published(0, n), n);
    }));
    STORH_TRY(step(ctx, "query_cursor_first", 1, [&]() -> Status {
      return check_first("query_cursor_first", log.first(by_status.cursor(cursor)),
                         next_published(m, n), n);
    }));
    STORH_TRY(step(ctx, "range", 1, [&]() -> Status {
      const auto records =
          log.stream(RecordQuery::all().time_range_ms(kStart + 10, kStart + 200)).to_vector();
      return STORH_EXPECT("range", records.empty(), fmt::format("{} records", records.size()),
                          "0 records (the ids carry the current time)");
    }));
    STORH_TRY(step(ctx, "query_all_count", 1, [&]() -> Status {
      const std::uint64_t counted = log.count(LogQuery());
      return STORH_EXPECT("query_all_count", counted == n, std::to_string(counted),
                          std::to_string(n));
    }));
    STORH_TRY(step(ctx, "query_count", 1, [&]() -> Status {
      const std::uint64_t counted = log.count(by_status);
      return STORH_EXPECT("query_count", counted == published, std::to_string(counted),
                          std::to_string(published));
    }));
    STORH_TRY(step(ctx, "query_limit_count", 1, [&]() -> Status {
      const std::uint64_t counted = log.count(by_status.limit(100));
      const std::uint64_t want = std::min<std::uint64_t>(100, published);
      return STORH_EXPECT("query_limit_count", counted == want, std::to_string(counted),
                          std::to_string(want));
    }));
    STORH_TRY(step(ctx, "stats", 1, [&]() -> Status {
      const engines::log::LogStats got = log.stats();
      const engines::log::LogStats want{expected.segments, n, 0, expected.bytes};
      return STORH_EXPECT("stats", got == want,
                          fmt::format("{{segments: {}, records: {}, deleted: {}, bytes: {}}}",
                                      got.segments, got.records, got.deleted, got.bytes),
                          fmt::format("{{segments: {}, records: {}, deleted: 0, bytes: {}}}",
                                      want.segments, n, want.bytes));
    }));
    const std::string active_after =
        engines::log::segment_file_name(expected.segments + (expected.active_empty ? 0 : 1));
    STORH_TRY(step(ctx, "compact", n, [&]() -> Status {
      log.compact();
      const auto manifest = log.manifest();
      bool all_compacted = true;
      for (const auto& entry : manifest.sealed) {
        all_compacted = all_compacted && entry.compacted && entry.file.rfind("compact-", 0) == 0;
      }
      return STORH_EXPECT("compact",
                          all_compacted && manifest.sealed.size() == compacted &&
                              manifest.active.file == active_after && log.count(LogQuery()) == n,
                          fmt::format("{} sealed (all compact-*: {}), active {}",
                                      manifest.sealed.size(), all_compacted, manifest.active.file),
                          fmt::format("{} compact segments, active {}", compacted, active_after));
    }));
  }

  {
    SegmentedLog bulk(ctx.work_dir(), "log-bulk", opts);
    const std::string bulk_cursor =
        uuid_v7::max_for_timestamp_ms(kStart + static_cast<std::int64_t>(m));
    STORH_TRY(step(ctx, "bulk_append", n, [&]() -> Status {
      std::uint64_t i = 0;
      const std::uint64_t appended = bulk.append_stream([&](Json& row) {
        if (i == n) return false;
        row = Json::object();
        row["id"] = uuid_v7::generate(kStart + static_cast<std::int64_t>(i));
        row["data"] = engines::bench_row(i);
        ++i;
        return true;
      });
      return STORH_EXPECT("bulk_append", appended == n, std::to_string(appended),
                          std::to_string(n));
    }));
    STORH_TRY(step(ctx, "bulk_query_count", 1, [&]() -> Status {
      const std::uint64_t counted = bulk.count(LogQuery().where("status", "eq", "published"));
      return STORH_EXPECT("bulk_query_count", counted == published, std::to_string(counted),
                          std::to_string(published));
    }));
    STORH_TRY(step(ctx, "bulk_cursor", after_m, [&]() -> Status {
      return engines::bench::expect_row_run(
          "bulk_cursor", bulk.stream(RecordQuery::all().after(bulk_cursor).limit(100)).to_vector(),
          m + 1, after_m);
    }));
    const std::uint64_t in_range = n > 10 ? std::min<std::uint64_t>(n, 201) - 10 : 0;
    const auto range = RecordQuery::all().time_range_ms(kStart + 10, kStart + 200);
    STORH_TRY(step(ctx, "bulk_range", in_range, [&]() -> Status {
      return engines::bench::expect_row_run("bulk_range", bulk.stream(range).to_vector(), 10,
                                            in_range);
    }));
    STORH_TRY(step(ctx, "bulk_compact", n, [&]() -> Status {
      bulk.compact();
      const auto manifest = bulk.manifest();
      return STORH_EXPECT("bulk_compact",
                          manifest.sealed.size() == compacted && bulk.count(LogQuery()) == n,
                          fmt::format("{} sealed segments", manifest.sealed.size()),
                          fmt::format("{} compact segments", compacted));
    }));
    STORH_TRY(step(ctx, "bulk_compacted_range", in_range, [&]() -> Status {
      return engines::bench::expect_row_run("bulk_compacted_range", bulk.stream(range).to_vector(),
                                            10, in_range);
    }));
  }

  if (ctx.selected("recover")) STORH_TRY(run_recover(ctx, "recover"));
  return {};
}

Status run_recover(RunContext& ctx, std::string_view operation) {
  const std::uint64_t n = ctx.dataset_size();
  const auto opts = options(ctx);
  ctx.progress(fmt::format("{}: {} durable puts", operation, n));
  SegmentedLog first(ctx.work_dir(), "recover", opts);
  for (std::uint64_t i = 0; i < n; ++i) first.put(engines::bench_row(i));
  // Garbage on the active segment the manifest names (section 11.4).
  const auto dir = ctx.work_dir() / "recover";
  const auto manifest = engines::log::decode_manifest(
      engines::read_file_bytes(dir / "manifest.jsonc"), (dir / "manifest.jsonc").string());
  const auto active = dir / "segments" / manifest.active.file;
  const std::uint64_t good = std::filesystem::file_size(active);
  engines::durable_append(active, "broken\n", opts.sync);

  return step(ctx, operation, 1, [&]() -> Status {
    // `first` still exists: its marker is live, so the reopen does not sweep.
    SegmentedLog second(ctx.work_dir(), "recover", opts);
    const std::uint64_t size = std::filesystem::file_size(active);
    const std::uint64_t records = second.stats().records;
    return STORH_EXPECT(operation, size == good && records == n,
                        fmt::format("{} records, active segment {} bytes", records, size),
                        fmt::format("{} records, active segment cut back to {} bytes", n, good));
  });
}

}  // namespace storh::log_bench
