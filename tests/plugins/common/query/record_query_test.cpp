// Tests of common/query/record_query.h (engine-spec.md 3.1).
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "common/query/record_query.h"
#include "common/uuid_v7.h"

namespace uuid_v7 = storh::engines::uuid_v7;
using storh::engines::Json;
using storh::engines::RecordQuery;

namespace {

constexpr std::int64_t kTs = 1700000000000;

Json row(const char* json) {
  return Json::parse(json);
}

}  // namespace

TEST_CASE("query: all() matches everything and filters nothing", "[filter][query]") {
  const RecordQuery all = RecordQuery::all();
  CHECK(all.matches_data("anything", Json::array()));
  CHECK_FALSE(all.filters_records());
  CHECK_FALSE(all.filters_data());
  CHECK_FALSE(all.limit_count().has_value());
}

TEST_CASE("query: where_equal uses strict identity", "[filter][query]") {
  const auto id = uuid_v7::generate(kTs);
  const Json data = row(R"({"i": 1, "f": 1.0, "s": "1", "n": null, "b": false})");
  CHECK(RecordQuery::all().where_equal("i", 1).matches_data(id, data));
  CHECK_FALSE(RecordQuery::all().where_equal("i", 1.0).matches_data(id, data));
  CHECK_FALSE(RecordQuery::all().where_equal("i", "1").matches_data(id, data));
  CHECK(RecordQuery::all().where_equal("f", 1.0).matches_data(id, data));
  CHECK_FALSE(RecordQuery::all().where_equal("f", 1).matches_data(id, data));
  CHECK(RecordQuery::all().where_equal("s", "1").matches_data(id, data));
  CHECK_FALSE(RecordQuery::all().where_equal("b", nullptr).matches_data(id, data));
  CHECK_FALSE(RecordQuery::all().where_equal("b", 0).matches_data(id, data));
}

TEST_CASE("query: a missing field never matches, a present null matches null", "[filter][query]") {
  const auto id = uuid_v7::generate(kTs);
  CHECK(RecordQuery::all().where_equal("n", nullptr).matches_data(id, row(R"({"n": null})")));
  CHECK_FALSE(RecordQuery::all().where_equal("n", nullptr).matches_data(id, row(R"({"m": 1})")));
  CHECK_FALSE(RecordQuery::all().where_equal("n", nullptr).matches_data(id, Json::array()));
}

TEST_CASE("query: several fields are ANDed and a repeated field replaces its value",
          "[filter][query]") {
  const auto id = uuid_v7::generate(kTs);
  const Json data = row(R"({"a": 1, "b": 2})");
  CHECK(RecordQuery::all().where_equal("a", 1).where_equal("b", 2).matches_data(id, data));
  CHECK_FALSE(RecordQuery::all().where_equal("a", 1).where_equal("b", 3).matches_data(id, data));
  const RecordQuery replaced = RecordQuery::all().where_equal("a", 5).where_equal("a", 1);
  CHECK(replaced.matches_data(id, data));
  CHECK(replaced.equals().size() == 1);
}

TEST_CASE("query: where_equal on id reads the data, not the record id", "[filter][query]") {
  const auto id = uuid_v7::generate(kTs);
  CHECK_FALSE(RecordQuery::all().where_equal("id", id).matches_data(id, row("{}")));
  CHECK(RecordQuery::all().where_equal("id", "x").matches_data(id, row(R"({"id": "x"})")));
}

TEST_CASE("query: where_equal rejects blank fields and structured values", "[filter][query]") {
  CHECK_THROWS_AS(RecordQuery::all().where_equal("", 1), std::invalid_argument);
  CHECK_THROWS_AS(RecordQuery::all().where_equal("  ", 1), std::invalid_argument);
  CHECK_THROWS_AS(RecordQuery::all().where_equal("a", Json::array({1})), std::invalid_argument);
  CHECK_THROWS_WITH(RecordQuery::all().where_equal("a", Json::object()),
                    Catch::Contains("\"a\"") && Catch::Contains("object"));
}

TEST_CASE("query: after() is exclusive and validates its id", "[filter][query]") {
  const std::string pivot = "018bcfe5-6800-7000-8000-000000000005";
  const RecordQuery query = RecordQuery::all().after(pivot);
  CHECK_FALSE(query.matches_id(pivot));
  CHECK(query.matches_id("018bcfe5-6800-7000-8000-000000000006"));
  CHECK_FALSE(query.matches_id("018bcfe5-6800-7000-8000-000000000004"));
  CHECK(query.filters_records());
  CHECK_FALSE(query.filters_data());
  CHECK_THROWS_WITH(RecordQuery::all().after("nope"), "Invalid UUIDv7 value.");
  CHECK_NOTHROW(RecordQuery::all().after("018BCFE5-6800-7000-8000-000000000005"));
}

TEST_CASE("query: time_range_ms bounds are inclusive milliseconds", "[filter][query]") {
  uuid_v7::reset_for_tests();
  const RecordQuery query = RecordQuery::all().time_range_ms(kTs, kTs + 5);
  CHECK(query.lower_id() == uuid_v7::min_for_timestamp_ms(kTs));
  CHECK(query.upper_id() == uuid_v7::max_for_timestamp_ms(kTs + 5));
  for (int i = 0; i < 20; ++i) {
    for (const std::int64_t offset : {-1, 0, 3, 5, 6}) {
      const auto id = uuid_v7::generate(kTs + offset);
      CHECK(query.matches_id(id) == (offset >= 0 && offset <= 5));
    }
  }
}

TEST_CASE("query: an open time bound leaves that side unbounded", "[filter][query]") {
  const auto early = uuid_v7::generate(1);
  const auto late = uuid_v7::generate(uuid_v7::kMaxTimestampMs);
  const RecordQuery from = RecordQuery::all().time_range_ms(kTs, std::nullopt);
  CHECK_FALSE(from.matches_id(early));
  CHECK(from.matches_id(late));
  CHECK_FALSE(from.upper_id().has_value());
  const RecordQuery until = RecordQuery::all().time_range_ms(std::nullopt, kTs);
  CHECK(until.matches_id(early));
  CHECK_FALSE(until.matches_id(late));
  CHECK(until.filters_records());
  CHECK_FALSE(RecordQuery::all().time_range_ms(std::nullopt, std::nullopt).filters_records());
  CHECK_THROWS_AS(RecordQuery::all().time_range_ms(-1, std::nullopt), std::out_of_range);
}

TEST_CASE("query: a later time range replaces an earlier one", "[filter][query]") {
  const RecordQuery query =
      RecordQuery::all().time_range_ms(kTs, kTs).time_range_ms(std::nullopt, kTs + 9);
  CHECK_FALSE(query.lower_id().has_value());
  CHECK(query.until_ms() == kTs + 9);
}

TEST_CASE("query: limit needs at least 1", "[filter][query]") {
  CHECK_THROWS_AS(RecordQuery::all().limit(0), std::invalid_argument);
  CHECK_THROWS_WITH(RecordQuery::all().limit(-3), Catch::Contains("-3"));
  CHECK(RecordQuery::all().limit(1).limit_count() == 1);
  CHECK_FALSE(RecordQuery::all().limit(1).filters_records());  // a scan property only
}

TEST_CASE("query: modifiers return copies and leave the original unchanged", "[filter][query]") {
  const RecordQuery base = RecordQuery::all().where_equal("a", 1);
  const RecordQuery narrowed = base.where_equal("b", 2).limit(3).time_range_ms(kTs, kTs);
  CHECK(base.equals().size() == 1);
  CHECK_FALSE(base.limit_count().has_value());
  CHECK_FALSE(base.lower_id().has_value());
  CHECK(narrowed.equals().size() == 2);
}

TEST_CASE("query: matches_id ignores the equality filters", "[filter][query]") {
  const RecordQuery query = RecordQuery::all().where_equal("a", 1);
  CHECK(query.matches_id("whatever"));
  CHECK_FALSE(query.matches_data("whatever", Json::object()));
}
