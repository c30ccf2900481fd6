// Tests of filter/row_table.h: the columnar path must give the general path's answers.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/query/json_values.h"
#include "common/uuid_v7.h"
#include "filter/row_table.h"

namespace uuid_v7 = storh::engines::uuid_v7;
using storh::engines::bench_row;
using storh::engines::Json;
using storh::engines::kBenchStartMs;
using storh::engines::QueryCondition;
using storh::engines::QueryOperator;
using storh::engines::Record;
using storh::engines::RecordQuery;
using storh::engines::RowTable;

namespace {

// Values that stress strict identity and ordering: numbers of both kinds, strings that
// look like numbers, null, booleans, structures, and the empty ones.
std::vector<Json> tricky_values() {
  return {Json(1),
          Json::parse("1"),
          Json(1.0),
          Json(-0.0),
          Json(0.0),
          Json(0),
          Json(1.5),
          Json(-7),
          Json::parse("18446744073709551615"),
          Json("1"),
          Json(""),
          Json("a"),
          Json("ab"),
          Json("b"),
          Json("\xc3\xa9"),
          Json(true),
          Json(false),
          Json(nullptr),
          Json::array(),
          Json::object(),
          Json::array({1}),
          Json::array({1.0}),
          Json::parse(R"({"k":1})")};
}

// Every row has "v" from tricky_values() or lacks it; some rows are lists or carry
// extra fields; ids spread over a few milliseconds.
std::vector<Record> tricky_records() {
  uuid_v7::reset_for_tests();
  std::vector<Record> records;
  const std::vector<Json> values = tricky_values();
  for (std::size_t i = 0; i < 3 * values.size() + 7; ++i) {
    Record record{uuid_v7::generate(1700000000000 + static_cast<std::int64_t>(i / 4)), Json()};
    if (i % 11 == 5) {
      record.data = Json::array({values[i % values.size()], "x"});  // list data: "0", "1"
    } else if (i % 7 == 3) {
      record.data = Json::parse(R"({"other": 1})");  // "v" missing
    } else {
      record.data = Json::object();
      if (i % 5 == 0) record.data["first"] = i;  // a column that appears late and sparsely
      record.data["v"] = values[i % values.size()];
      record.data["id"] = i % 2 == 0 ? Json(record.id) : Json("x");
    }
    records.push_back(std::move(record));
  }
  return records;
}

RowTable table_of(const std::vector<Record>& records) {
  RowTable table;
  for (const Record& record : records) table.append(record.id, record.data);
  return table;
}

template <typename Predicate>
void require_same_answers(const RowTable& table, const std::vector<Record>& records,
                          const Predicate& predicate, const std::string& what) {
  const std::vector<bool> compact = table.matches(predicate);
  REQUIRE(compact.size() == records.size());
  std::uint64_t expected_count = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const bool general = predicate.matches_data(records[i].id, records[i].data);
    INFO(what << " on row " << i << ": " << records[i].data.dump());
    REQUIRE(compact[i] == general);
    expected_count += general;
  }
  REQUIRE(table.count(predicate) == expected_count);
}

}  // namespace

TEST_CASE("row table: every condition agrees with the general path on mixed data",
          "[filter][table]") {
  const std::vector<Record> records = tricky_records();
  const RowTable table = table_of(records);
  REQUIRE(table.size() == records.size());
  std::vector<Json> operands = tricky_values();
  operands.push_back(Json::array({1, "a", nullptr}));
  operands.push_back(Json::array({1.0, -0.0, Json::array()}));
  operands.push_back(Json::array({"zz"}));  // a string no row holds
  const char* ops[] = {"eq", "neq", "in",      "notIn",  "gt",      "gte",
                       "lt", "lte", "between", "exists", "missing", "prefix"};
  for (const char* field : {"v", "0", "1", "first", "id", "absent"}) {
    for (const char* op : ops) {
      for (const Json& value : operands) {
        const QueryCondition condition(field, op, value, Json("b"));
        require_same_answers(table, records, condition,
                             std::string(field) + " " + op + " " + value.dump());
      }
    }
  }
}

TEST_CASE("row table: every record query agrees with the general path on mixed data",
          "[filter][table]") {
  const std::vector<Record> records = tricky_records();
  const RowTable table = table_of(records);
  std::vector<Json> scalars;
  for (const Json& value : tricky_values()) {
    if (!value.is_structured()) scalars.push_back(value);
  }
  for (const char* field : {"v", "0", "id", "first", "absent"}) {
    for (const Json& value : scalars) {
      const auto query = RecordQuery::all().where_equal(field, value);
      require_same_answers(table, records, query, std::string(field) + " == " + value.dump());
      require_same_answers(table, records, query.where_equal("other", 1), "two fields");
    }
  }
  for (std::size_t i = 0; i < records.size(); i += 5) {
    require_same_answers(table, records, RecordQuery::all().after(records[i].id), "after");
  }
  for (std::int64_t from = -1; from < 22; from += 3) {
    for (std::int64_t until = from; until < 24; until += 4) {
      const auto query =
          RecordQuery::all().time_range_ms(1700000000000 + from, 1700000000000 + until);
      require_same_answers(table, records, query, "range");
      require_same_answers(table, records, query.where_equal("v", 1), "range and field");
      require_same_answers(table, records, query.time_range_ms(std::nullopt, 1700000000000 + until),
                           "open range");
    }
  }
}

TEST_CASE("row table: ids of any length compare as byte strings", "[filter][table]") {
  std::vector<Record> records;
  for (const char* id :
       {"", "0", "018bcfe5-6800-7000-8000-00000000000", "018bcfe5-6800-7000-8000-000000000000",
        "018bcfe5-6800-7000-8000-0000000000000", "018bcfe5-6800-7", "018bcfe5-6800-7\x01", "\xff",
        "ffffffff-ffff-7fff-bfff-ffffffffffff"}) {
    records.push_back({id, Json::object()});
  }
  const RowTable table = table_of(records);
  for (const Record& pivot : records) {
    if (uuid_v7::is_valid(pivot.id)) {
      require_same_answers(table, records, RecordQuery::all().after(pivot.id), "after " + pivot.id);
    }
    for (const char* op : {"gt", "lte", "eq", "prefix"}) {
      require_same_answers(table, records, QueryCondition("id", op, pivot.id), pivot.id);
    }
  }
  require_same_answers(table, records,
                       RecordQuery::all().time_range_ms(1700000000000, 1700000000000), "range");
}

TEST_CASE("row table: an empty table counts nothing", "[filter][table]") {
  const RowTable table;
  CHECK(table.size() == 0);
  CHECK(table.count(RecordQuery::all()) == 0);
  CHECK(table.count(QueryCondition("a", QueryOperator::missing)) == 0);
  CHECK(table.matches(RecordQuery::all()).empty());
}

TEST_CASE("row table: a row appended later may add fields earlier rows lack", "[filter][table]") {
  RowTable table;
  table.append("a", Json::parse(R"({"x": 1})"));
  table.append("b", Json::parse(R"({"y": null})"));
  table.append("c", Json::parse(R"({"x": 1, "y": 2})"));
  CHECK(table.matches(QueryCondition("y", QueryOperator::missing)) ==
        std::vector<bool>{true, false, false});
  CHECK(table.matches(QueryCondition("x", QueryOperator::eq, 1)) ==
        std::vector<bool>{true, false, true});
  CHECK(table.count(RecordQuery::all().where_equal("y", nullptr)) == 1);
}

TEST_CASE("row table: the benchmark counts of engine-spec.md 11.7", "[filter][table]") {
  // 70000 rows cross a change of the ids' first eight characters (every 65536 ms).
  for (const std::uint64_t n : {1, 2, 3, 19, 20, 21, 1000, 1001, 70000}) {
    uuid_v7::reset_for_tests();
    std::vector<Record> records;
    RowTable table;
    for (std::uint64_t i = 0; i < n; ++i) {
      records.push_back(
          {uuid_v7::generate(kBenchStartMs + static_cast<std::int64_t>(i)), bench_row(i)});
      table.append(records.back().id, records.back().data);
    }
    const auto by_kind = RecordQuery::all().where_equal("kind", "page");
    const auto in_range = RecordQuery::all().time_range_ms(
        kBenchStartMs + 10, kBenchStartMs + static_cast<std::int64_t>(n) - 10);
    const QueryCondition published("status", QueryOperator::eq, "published");
    INFO("n = " << n);
    CHECK(table.count(by_kind) == (n + 1) / 2);
    CHECK(table.count(in_range) == (n >= 19 ? n - 19 : 0));
    CHECK(table.count(published) == n - (n + 2) / 3);
    if (n <= 1001) {
      require_same_answers(table, records, by_kind, "record_equal");
      require_same_answers(table, records, in_range, "record_range");
      require_same_answers(table, records, published, "condition_equal");
    }
    if (n == 1000) {
      CHECK(table.count(by_kind) == 500);
      CHECK(table.count(in_range) == 981);
      CHECK(table.count(published) == 666);
    }
  }
}
