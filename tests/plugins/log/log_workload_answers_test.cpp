// The expected answers of engine-spec.md section 11.2 at n = 1000, checked on the engine
// directly (the plugin checks the general formulas; this pins the documented numbers).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/uuid_v7.h"
#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
namespace uuid_v7 = storh::engines::uuid_v7;
using storh::engines::Json;
using storh::engines::kBenchStartMs;
using storh::engines::RecordQuery;

namespace {
std::string slug(const std::optional<storh::engines::Record>& record) {
  return record ? record->data["slug"].get<std::string>() : "none";
}
}  // namespace

TEST_CASE("log workload at 1000 records gives the answers of engine-spec.md 11.2",
          "[log][workload]") {
  log_test::Scratch scratch;
  const lg::LogOptions options{16384, 64, storh::engines::Sync::none};
  std::vector<std::string> ids;
  {
    lg::SegmentedLog log(scratch.path(), "log", options);
    for (std::uint64_t i = 0; i < 1000; ++i)
      ids.push_back(log.put(storh::engines::bench_row(i)).id);
    CHECK(log.manifest().sealed.size() == 10);
    const std::string& cursor = ids[500];
    const auto page = log.stream(RecordQuery::all().after(cursor).limit(100)).to_vector();
    REQUIRE(page.size() == 100);
    CHECK(page.front().id == ids[501]);
    CHECK(log.find(lg::LogQuery().cursor(cursor).limit(100)).size() == 100);
    const auto by_id = lg::LogQuery().where("id", "eq", cursor);
    CHECK(slug(log.first(by_id)) == "item-500");
    CHECK(log.count(by_id) == 1);
    CHECK(slug(log.first(by_id.where("status", "eq", "published"))) == "item-500");
    CHECK(slug(log.first(by_id.where("status", "eq", "draft"))) == "none");
    const auto published = lg::LogQuery().where("status", "eq", "published");
    CHECK(slug(log.first(published)) == "item-1");
    CHECK(slug(log.first(published.cursor(cursor))) == "item-502");
    CHECK(log.stream(RecordQuery::all().time_range_ms(kBenchStartMs + 10, kBenchStartMs + 200))
              .to_vector()
              .empty());
    CHECK(log.count() == 1000);
    CHECK(log.count(published) == 666);
    CHECK(log.count(published.limit(100)) == 100);
    CHECK(log.stats() == lg::LogStats{11, 1000, 0, 169554});
    log.compact();
    const lg::Manifest manifest = log.manifest();
    CHECK(manifest.sealed.size() == 11);
    CHECK(manifest.active.file == "seg-000012.ndjson");
    // The counters were invalidated by the compaction: a count rebuilds them.
    CHECK(log.count(published) == 666);
  }
  lg::SegmentedLog bulk(scratch.path(), "log-bulk", options);
  const std::string bulk_cursor = uuid_v7::max_for_timestamp_ms(kBenchStartMs + 500);
  CHECK(bulk_cursor == "018bcfe5-69f4-7fff-bfff-ffffffffffff");
  std::uint64_t i = 0;
  CHECK(bulk.append_stream([&](Json& row) {
    if (i == 1000) return false;
    row = Json{{"id", uuid_v7::generate(kBenchStartMs + static_cast<std::int64_t>(i))},
               {"data", storh::engines::bench_row(i)}};
    ++i;
    return true;
  }) == 1000);
  CHECK(bulk.count(lg::LogQuery().where("status", "eq", "published")) == 666);
  const auto page = bulk.stream(RecordQuery::all().after(bulk_cursor).limit(100)).to_vector();
  REQUIRE(page.size() == 100);
  CHECK(page.front().data["publishedAt"] == kBenchStartMs + 501);
  CHECK(page.back().data["publishedAt"] == kBenchStartMs + 600);
  const auto range = RecordQuery::all().time_range_ms(kBenchStartMs + 10, kBenchStartMs + 200);
  CHECK(bulk.stream(range).to_vector().size() == 191);
  // Segment boundaries match single puts: 10 sealed + active, as for `append`.
  CHECK(bulk.manifest().sealed.size() == 10);
  bulk.compact();
  CHECK(bulk.manifest().sealed.size() == 11);
  CHECK(bulk.stream(range).to_vector().size() == 191);
  lg::SegmentedLog reopened(scratch.path(), "log-bulk", options);
  CHECK(reopened.stats().records == 1000);
  CHECK(reopened.verify().ok);
}
