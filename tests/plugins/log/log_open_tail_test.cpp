// The log (engine-spec.md 13.1): a final segment line whose length and checksum are
// intact but whose LF is missing is a record, as storh serves it; the next append puts
// the LF in front of its own line, so the file is well-formed and both records survive
// reopens. Broke before: such a line was cut at open, losing a record storh served.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
using storh::engines::Json;
using storh::engines::Record;
using storh::engines::RecordQuery;
using storh::engines::Sync;

namespace {

// NOLINTNEXTLINE(readability-identifier-naming): a constant, if not constexpr
const lg::LogOptions kOptions{1 << 20, 64, Sync::durable};

struct OpenTail {
  std::vector<std::string> ids;  // the last one is the line without its LF
  std::filesystem::path active;
  std::string text;  // the active file, LF removed
};

// A log of `count` puts whose active segment then loses only its final LF.
OpenTail make_open_tail(const log_test::Scratch& scratch, int count) {
  OpenTail tail;
  {
    lg::SegmentedLog log(scratch.path(), "c", kOptions);
    for (int i = 0; i < count; ++i) tail.ids.push_back(log.put(Json{{"i", i}}).id);
    tail.active = log.directory() / "segments" / log.manifest().active.file;
  }
  tail.text = log_test::read_text(tail.active);
  REQUIRE(tail.text.back() == '\n');
  tail.text.pop_back();
  log_test::write_text(tail.active, tail.text);
  return tail;
}

// Every line of `text` ends with an LF and none is empty.
bool well_formed(const std::string& text) {
  if (text.empty()) return true;
  if (text.back() != '\n') return false;
  return text.find("\n\n") == std::string::npos && text.front() != '\n';
}

std::vector<std::string> streamed_ids(const lg::SegmentedLog& log) {
  std::vector<std::string> ids;
  for (const Record& record : log.stream().to_vector()) {
    ids.push_back(record.id);
  }
  return ids;
}

void check_serves(lg::SegmentedLog& log, const std::vector<std::string>& ids) {
  CHECK(log.count() == ids.size());
  CHECK(streamed_ids(log) == ids);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    INFO("record " << i);
    const auto record = log.get(ids[i]);
    REQUIRE(record);
    CHECK(record->data == Json{{"i", static_cast<int>(i)}});
  }
  const lg::VerifyReport report = log.verify();
  INFO((report.errors.empty() ? std::string() : report.errors.front()));
  CHECK(report.ok);
}

}  // namespace

TEST_CASE("log 13.1: a final line without only its LF is served, not cut", "[log][torn][13.1]") {
  log_test::Scratch scratch;
  const OpenTail tail = make_open_tail(scratch, 3);
  lg::SegmentedLog log(scratch.path(), "c", kOptions);
  check_serves(log, tail.ids);
  CHECK(log.stats().records == 3);
  CHECK(log.stats().bytes == tail.text.size());
  CHECK(log_test::read_text(tail.active) == tail.text);  // opening did not change it
  CHECK(log.count(lg::LogQuery().where("i", "eq", Json(2))) == 1);
}

TEST_CASE("log 13.1: the next put terminates the open tail first", "[log][torn][13.1]") {
  log_test::Scratch scratch;
  OpenTail tail = make_open_tail(scratch, 2);
  {
    lg::SegmentedLog log(scratch.path(), "c", kOptions);
    tail.ids.push_back(log.put(Json{{"i", 2}}).id);
    const std::string text = log_test::read_text(tail.active);
    CHECK(well_formed(text));
    CHECK(text.substr(0, tail.text.size() + 1) == tail.text + "\n");
    check_serves(log, tail.ids);
    CHECK(log.stats().bytes == text.size());
  }
  lg::SegmentedLog reopened(scratch.path(), "c", kOptions);
  check_serves(reopened, tail.ids);
}

TEST_CASE("log 13.1: a delete after an open tail lands on its own line", "[log][torn][13.1]") {
  log_test::Scratch scratch;
  const OpenTail tail = make_open_tail(scratch, 2);
  {
    lg::SegmentedLog log(scratch.path(), "c", kOptions);
    log.remove(tail.ids[0]);
    CHECK(well_formed(log_test::read_text(tail.active)));
  }
  lg::SegmentedLog reopened(scratch.path(), "c", kOptions);
  CHECK(reopened.count() == 1);
  CHECK_FALSE(reopened.get(tail.ids[0]));
  REQUIRE(reopened.get(tail.ids[1]));
  CHECK(reopened.get(tail.ids[1])->data == Json{{"i", 1}});
  CHECK(reopened.verify().ok);
}

TEST_CASE("log 13.1: a batch after an open tail terminates it first", "[log][torn][13.1]") {
  log_test::Scratch scratch;
  OpenTail tail = make_open_tail(scratch, 2);
  {
    lg::SegmentedLog log(scratch.path(), "c", kOptions);
    std::vector<Json> rows{Json{{"i", 2}}, Json{{"i", 3}}};
    for (const Record& record : log.append_many(std::move(rows))) tail.ids.push_back(record.id);
    CHECK(well_formed(log_test::read_text(tail.active)));
    check_serves(log, tail.ids);
  }
  lg::SegmentedLog reopened(scratch.path(), "c", kOptions);
  check_serves(reopened, tail.ids);
}

TEST_CASE("log 13.1: reads through the record cache agree after the LF is added",
          "[log][torn][13.1][cache]") {
  log_test::Scratch scratch;
  OpenTail tail = make_open_tail(scratch, 2);
  lg::SegmentedLog log(scratch.path(), "c", kOptions);
  CHECK(streamed_ids(log) == tail.ids);  // fills the cache with the open tail
  tail.ids.push_back(log.put(Json{{"i", 2}}).id);
  check_serves(log, tail.ids);
  log.recover();  // compares the cache with the files
  check_serves(log, tail.ids);
}

TEST_CASE("log 13.1: compaction writes the open tail with its LF", "[log][torn][13.1]") {
  log_test::Scratch scratch;
  const OpenTail tail = make_open_tail(scratch, 3);
  {
    lg::SegmentedLog log(scratch.path(), "c", kOptions);
    log.compact();
    const lg::Manifest manifest = log.manifest();
    REQUIRE(manifest.sealed.size() == 1);
    CHECK(well_formed(log_test::read_text(log.directory() / "segments" / manifest.sealed[0].file)));
    check_serves(log, tail.ids);
  }
  lg::SegmentedLog reopened(scratch.path(), "c", kOptions);
  check_serves(reopened, tail.ids);
}

TEST_CASE("log 13.1: a final line without its LF and with a bad checksum is still cut",
          "[log][torn][13.1]") {
  log_test::Scratch scratch;
  OpenTail tail = make_open_tail(scratch, 2);
  const std::size_t last = tail.text.rfind('\n') + 1;
  std::string text = tail.text;
  text[last + 5] = text[last + 5] == '0' ? '1' : '0';  // a checksum digit
  log_test::write_text(tail.active, text);
  lg::SegmentedLog log(scratch.path(), "c", kOptions);
  CHECK(log_test::read_text(tail.active) == tail.text.substr(0, last));
  tail.ids.pop_back();
  check_serves(log, tail.ids);
}
