// L8 (engine-spec.md section 10.4): random put, re-put, delete, compact and reopen keep
// stream, count, equality count, time range and id lookup equal to a reference model.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
namespace uuid_v7 = storh::engines::uuid_v7;
using storh::engines::Json;
using storh::engines::Record;
using storh::engines::RecordQuery;

namespace {

constexpr std::int64_t kStart = 1700000000000;

// The reference: live records, and their ids in log position order (a re-put moves
// the record to its newest position, section 13.4).
struct Model {
  std::map<std::string, Json> live;
  std::vector<std::string> order;

  void put(const std::string& id, const Json& data) {
    erase_from_order(id);
    order.push_back(id);
    live[id] = data;
  }
  void remove(const std::string& id) {
    erase_from_order(id);
    live.erase(id);
  }
  void erase_from_order(const std::string& id) {
    order.erase(std::remove(order.begin(), order.end(), id), order.end());
  }
};

using log_test::ids_of;

void check_against(const lg::SegmentedLog& log, const Model& model, std::mt19937& random) {
  CHECK(ids_of(log.stream().to_vector()) == model.order);
  CHECK(log.count() == model.live.size());
  const int bucket = static_cast<int>(static_cast<std::size_t>(random() % 4));
  std::uint64_t in_bucket = 0;
  std::string first_in_bucket;
  for (const std::string& id : model.order) {
    if (model.live.at(id)["bucket"] == bucket) {
      if (in_bucket++ == 0) first_in_bucket = id;
    }
  }
  const auto by_bucket = lg::LogQuery().where("bucket", "eq", bucket);
  CHECK(log.count(by_bucket) == in_bucket);
  CHECK(log.count(by_bucket.limit(2)) == std::min<std::uint64_t>(2, in_bucket));
  const auto first = log.first(by_bucket);
  CHECK((first ? first->id : std::string()) == first_in_bucket);

  const std::int64_t from =
      kStart + static_cast<std::int64_t>(static_cast<std::size_t>(random() % 60));
  const std::int64_t until =
      from + static_cast<std::int64_t>(static_cast<std::size_t>(random() % 30));
  std::vector<std::string> window;
  for (const std::string& id : model.order) {
    const std::int64_t ts = uuid_v7::timestamp_ms(id);
    if (ts >= from && ts <= until) window.push_back(id);
  }
  CHECK(ids_of(log.stream(RecordQuery::all().time_range_ms(from, until)).to_vector()) == window);

  for (const auto& [id, data] : model.live) {
    const auto got = log.get(id);
    REQUIRE(got);
    CHECK(got->data == data);
  }
  if (!model.order.empty()) {
    const std::string& cursor =
        model.order[static_cast<std::size_t>(random() % model.order.size())];
    std::uint64_t above = 0;
    for (const auto& [id, data] : model.live) above += id > cursor ? 1 : 0;
    CHECK(log.count(lg::LogQuery().cursor(cursor)) == above);
  }
}

}  // namespace

TEST_CASE("log L8: random operations match a reference model", "[log][L8]") {
  const auto seed = GENERATE(1u, 2u, 3u, 4u);
  INFO("seed " << seed);
  std::mt19937 random(seed);
  log_test::Scratch scratch;
  const lg::LogOptions options{300, 3, storh::engines::Sync::none};
  auto log = std::make_unique<lg::SegmentedLog>(scratch.path(), "m", options);
  Model model;
  std::vector<std::string> known;  // every id ever written, live or not
  for (int step = 0; step < 400; ++step) {
    const auto action = static_cast<unsigned>(random() % 100);
    if (action < 55 || known.empty()) {
      // A new id, at a random time: segments are not always ordered.
      const std::string id = uuid_v7::generate(
          kStart + static_cast<std::int64_t>(static_cast<std::size_t>(random() % 90)));
      const Json data{{"bucket", static_cast<int>(static_cast<std::size_t>(random() % 4))},
                      {"step", step}};
      log->put(data, id);
      model.put(id, data);
      known.push_back(id);
    } else if (action < 70) {
      const std::string& id = known[static_cast<std::size_t>(random() % known.size())];
      const Json data{{"bucket", static_cast<int>(static_cast<std::size_t>(random() % 4))},
                      {"step", step},
                      {"again", true}};
      log->put(data, id);
      model.put(id, data);
    } else if (action < 85) {
      const std::string& id = known[static_cast<std::size_t>(random() % known.size())];
      log->remove(id);
      model.remove(id);
    } else if (action < 90) {
      const std::vector<Json> rows{
          Json{{"id", uuid_v7::generate(kStart + 5)}, {"data", {{"bucket", 1}, {"step", step}}}},
          Json{{"bucket", 2}, {"step", step}}};
      const auto records = log->append_many(rows);
      for (const Record& record : records) {
        model.put(record.id, record.data);
        known.push_back(record.id);
      }
    } else if (action < 95) {
      log->compact();
    } else {
      log.reset();
      log = std::make_unique<lg::SegmentedLog>(scratch.path(), "m", options);
    }
    if (step % 25 == 24) check_against(*log, model, random);
  }
  check_against(*log, model, random);
  CHECK(log->verify().ok);
}
