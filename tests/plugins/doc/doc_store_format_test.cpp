// Record files are byte-exact (engine-spec.md 4.1, 4.2) and hand-edited files stay readable
// (1.3), so a store written by the PHP library opens here and back.
#include <regex>

#include "common/store_error.h"
#include "doc/record_file.h"
#include "doc/record_writer.h"
#include "doc_test_util.h"

using namespace doc_test;
using storh::engines::StoreError;
using storh::test::read_text;
using storh::test::ScratchDir;
using storh::test::write_text;

namespace {
std::vector<std::string> g_temp_names;
fs::path g_watch_dir;

void capture_temp_names(storh::engines::doc::WriteStep step) {
  if (step != storh::engines::doc::WriteStep::temp_created) return;
  for (const auto& path : temp_files(g_watch_dir)) g_temp_names.push_back(path.filename());
}
}  // namespace

TEST_CASE("doc format: a put writes {\"id\",\"data\"} canonical JSON plus LF in data/<s>/",
          "[doc][format]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const std::string id = "018bcfe5-6800-7000-8000-2d5dba6274da";
  store.put(Json::parse(R"({"kind":"page","n":1,"path":"a/b","text":"é\u2028\n","f":1.0,"e":{}})"),
            id);
  const fs::path file = dir.path() / "docs" / "data" / "2d" / (id + ".jsonc");
  REQUIRE(fs::exists(file));
  CHECK(read_text(file) ==
        "{\"id\":\"018bcfe5-6800-7000-8000-2d5dba6274da\",\"data\":{\"kind\":\"page\",\"n\":1,"
        "\"path\":\"a/b\",\"text\":\"\xc3\xa9\\u2028\\n\",\"f\":1.0,\"e\":[]}}\n");
}

TEST_CASE("doc format: empty data is written as []", "[doc][format]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const Record record = store.put(Json::object());
  CHECK(read_text(record_file(dir.path(), "docs", record.id)) ==
        "{\"id\":\"" + record.id + "\",\"data\":[]}\n");
}

TEST_CASE("doc format: a file written by the PHP library reads back", "[doc][format]") {
  ScratchDir dir;
  const std::string id = "018bcfe5-6800-7000-8000-000041c64e6d";
  write_text(record_file(dir.path(), "docs", id),
             "{\"id\":\"" + id +
                 "\",\"data\":{\"kind\":\"page\",\"status\":\"draft\",\"bucket\":0,"
                 "\"slug\":\"item-0\",\"publishedAt\":1700000000000}}\n");
  DocStore store(dir.path(), "docs");
  auto record = store.get(id);
  REQUIRE(record);
  CHECK(
      record->data.dump() ==
      R"({"kind":"page","status":"draft","bucket":0,"slug":"item-0","publishedAt":1700000000000})");
  CHECK(store.stream_all().size() == 1);
}

TEST_CASE(
    "doc format: hand-edited JSONC with comments and trailing commas is read, and the "
    "next put rewrites it canonically",
    "[doc][format][jsonc]") {
  ScratchDir dir;
  const std::string id = "018bcfe5-6800-7000-8000-aa0000000001";
  const fs::path file = record_file(dir.path(), "docs", id);
  write_text(file,
             "// edited by hand\n{\n  \"id\": \"" + id +
                 "\", /* the id */\n  \"data\": {\"url\": \"https://x//y\", \"n\": 2,},\n}\n");
  DocStore store(dir.path(), "docs");
  auto record = store.get(id);
  REQUIRE(record);
  CHECK(record->data["url"] == "https://x//y");
  CHECK(record->data["n"] == 2);
  store.put(record->data, id);
  CHECK(read_text(file) == "{\"id\":\"" + id + "\",\"data\":{\"url\":\"https://x//y\",\"n\":2}}\n");
}

TEST_CASE("doc format: a record whose id does not match its file name is an error",
          "[doc][format]") {
  ScratchDir dir;
  const std::string id = "018bcfe5-6800-7000-8000-aa0000000001";
  const std::string other = "018bcfe5-6800-7000-8000-aa0000000002";
  write_text(record_file(dir.path(), "docs", id), "{\"id\":\"" + other + "\",\"data\":{}}\n");
  DocStore store(dir.path(), "docs");
  CHECK_THROWS_WITH(store.get(id), Catch::Contains("Storage record id does not match its path"));
}

TEST_CASE("doc format: non-container data reads as empty", "[doc][format]") {
  ScratchDir dir;
  const std::string id = "018bcfe5-6800-7000-8000-aa0000000001";
  write_text(record_file(dir.path(), "docs", id), "{\"id\":\"" + id + "\",\"data\":5}\n");
  DocStore store(dir.path(), "docs");
  auto record = store.get(id);
  REQUIRE(record);
  CHECK(record->data == Json::array());
}

TEST_CASE("doc format: temp files are .<pid>.<hex8>.<counter>.tmp beside the record",
          "[doc][format]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const std::string id = "018bcfe5-6800-7000-8000-2d5dba6274da";
  g_temp_names.clear();
  g_watch_dir = dir.path() / "docs" / "data" / "2d";
  storh::engines::doc::set_write_step_hook(&capture_temp_names);
  store.put(Json{{"a", 1}}, id);
  store.put(Json{{"a", 2}}, id);
  storh::engines::doc::set_write_step_hook(nullptr);
  REQUIRE(g_temp_names.size() == 2);
  const std::regex pattern(R"(^\.(\d+)\.([0-9a-f]{8})\.(\d+)\.tmp$)");
  std::smatch first;
  std::smatch second;
  REQUIRE(std::regex_match(g_temp_names[0], first, pattern));
  REQUIRE(std::regex_match(g_temp_names[1], second, pattern));
  CHECK(first[1] == std::to_string(::getpid()));
  CHECK(first[1].str() + "." + first[2].str() == store.writer_prefix());
  CHECK(std::stoll(second[3]) == std::stoll(first[3]) + 1);
  CHECK(temp_files(dir.path()).empty());
}

TEST_CASE("doc format: supplied ids must be UUIDv7", "[doc][format]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  CHECK_THROWS_AS(store.put(Json{{"a", 1}}, std::string("not-an-id")), StoreError);
  CHECK_THROWS_WITH(store.get("018bcfe5-6800-6000-8000-2d5dba6274da"),
                    Catch::Contains("Invalid UUIDv7 value."));
  CHECK_THROWS_AS(store.put(Json(5)), StoreError);
}

TEST_CASE("doc format: upper-case ids are distinct keys with upper-case file names",
          "[doc][format]") {
  ScratchDir dir;
  DocStore store(dir.path(), "docs");
  const std::string lower = "018bcfe5-6800-7000-8000-abcdef000001";
  const std::string upper = "018BCFE5-6800-7000-8000-ABCDEF000001";
  store.put(Json{{"v", "lower"}}, lower);
  store.put(Json{{"v", "upper"}}, upper);
  CHECK(fs::exists(dir.path() / "docs" / "data" / "AB" / (upper + ".jsonc")));
  CHECK(store.get(lower)->data["v"] == "lower");
  CHECK(store.get(upper)->data["v"] == "upper");
  CHECK(store.count() == 2);
}

TEST_CASE("doc format: ShardDirs keeps one descriptor per shard, hex digits or any other name",
          "[doc][format]") {
  using storh::engines::doc::ShardDirs;
  ScratchDir dir;
  ShardDirs dirs(dir.path() / "data");
  // Not there, not created: -1, and no descriptor is kept (a later create makes it).
  CHECK(dirs.get("ab", false) == -1);
  CHECK(dirs.get("AB", false) == -1);
  for (const std::string shard : {"00", "0f", "a9", "ff", "AB", "g0", "abc"}) {
    INFO(shard);
    const int fd = dirs.get(shard, true);
    REQUIRE(fd >= 0);
    CHECK(fs::is_directory(dir.path() / "data" / shard));
    CHECK(dirs.get(shard, false) == fd);  // the same descriptor, not reopened
    struct stat by_fd {};
    struct stat by_path {};
    REQUIRE(::fstat(fd, &by_fd) == 0);
    REQUIRE(::stat((dir.path() / "data" / shard).c_str(), &by_path) == 0);
    CHECK(by_fd.st_ino == by_path.st_ino);
  }
  // "ab" and "AB" are different directories with different descriptors.
  CHECK(dirs.get("ab", true) != dirs.get("AB", false));
  // forget() and clear() drop descriptors; get() opens the directory again.
  const int before = dirs.get("a9", false);
  dirs.forget("a9");
  CHECK(::fcntl(before, F_GETFD) == -1);  // closed
  CHECK(dirs.get("a9", false) >= 0);
  dirs.forget("g0");
  CHECK(dirs.get("g0", false) >= 0);
  dirs.clear();
  fs::remove(dir.path() / "data" / "ff");
  CHECK(dirs.get("ff", false) == -1);
  CHECK(dirs.get("00", false) >= 0);
}

// parse_record reads a file framed as storh writes it by parsing only the data's text;
// every other file goes the general way. Both must give the same answer on any bytes.
TEST_CASE("doc format: parse_record answers framed and unusual files alike", "[doc][format]") {
  using storh::engines::doc::parse_record;
  const std::string id = "018bcfe5-6800-7000-8000-2d5dba6274da";
  const std::string head = R"({"id":")" + id + R"(","data":)";
  const std::vector<std::pair<std::string, Json>> files = {
      {head + R"({"b":1,"a":[2,"x"]})" + "}\n", Json::parse(R"({"b":1,"a":[2,"x"]})")},
      {head + R"({ "v" : 10 })" + "}", Json{{"v", 10}}},
      {head + R"({"f":1.5,"u":"\u00e9"})" + "}\n", Json::parse(R"({"f":1.5,"u":"\u00e9"})")},
      {head + R"({"v":20},"z":1})" + "\n", Json{{"v", 20}}},     // a member after "data"
      {head + R"([1],"data":{"v":2}})" + "\n", Json{{"v", 2}}},  // "data" twice: the last
      {head + "5}\n", Json::array()},                            // not a container
      {head + R"("text"})" + "\n", Json::array()},
      {"{\"data\":[3],\"id\":\"" + id + "\"}", Json::array({3})},  // members swapped
      {"{ \"id\" : \"" + id + "\", \"data\" : [4] }", Json::array({4})},
  };
  for (const auto& [bytes, data] : files) {
    INFO(bytes);
    CHECK(parse_record(bytes, id, "file") == data);
  }
  // The framing matches only the id it is asked for, and that id must be a UUIDv7.
  CHECK_THROWS_AS(parse_record(head + "[1]}\n", "018bcfe5-6800-7000-8000-2d5dba6274db", "file"),
                  StoreError);
  const std::string not_v7 = "018bcfe5-6800-4000-8000-2d5dba6274da";
  CHECK_THROWS_AS(parse_record(R"({"id":")" + not_v7 + R"(","data":[1]})", not_v7, "file"),
                  StoreError);
  CHECK_THROWS_AS(parse_record(head + "[1}\n", id, "file"), StoreError);
}
