// The doc engine's key-value store (plugins/doc/bench/doc_kv.cpp), through its plugin
// module as the host loads it: the checks every key-value engine shares (kv_checks.h),
// its durability words, and what a record is on disk.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "doc/doc_store.h"
#include "kv/kv_checks.h"
#include "scratch_dir.h"

namespace kv = storh_test::kv;
namespace doc = storh::engines::doc;

namespace {

kv::Params doc_params(const std::string& durability) {
  return {{"durability", durability}};
}

// The one record file of the store at `dir` (doc_kv.cpp's collection).
doc::DocStore doc_raw_store(const std::filesystem::path& dir) {
  doc::DocStoreOptions options;
  options.sync = storh::engines::Sync::none;
  return doc::DocStore(dir / "doc", "ycsb", options);
}

}  // namespace

TEST_CASE("doc kv: the record checks every key-value engine passes", "[doc_kv]") {
  kv::every_record_check(kv::KvPlugin(STORH_TEST_DOC_PLUGIN), doc_params("os"), 2);
}

TEST_CASE("doc kv: every durability word stores and keeps writes across a reopen", "[doc_kv]") {
  kv::KvPlugin plugin(STORH_TEST_DOC_PLUGIN);
  for (const std::string durability : {"none", "os", "fsync", "durable"}) {
    INFO("durability " << durability);
    storh::test::ScratchDir dir;
    kv::stores_and_keeps(plugin, dir.path(), doc_params(durability), true);
    kv::remove_then_not_found(plugin, dir.path() / "remove", doc_params(durability));
  }
}

TEST_CASE("doc kv: a record is a JSON document of its key and fields, under a UUIDv7 id",
          "[doc_kv]") {
  kv::KvPlugin plugin(STORH_TEST_DOC_PLUGIN);
  storh::test::ScratchDir dir;
  {
    kv::OpenStore open(plugin, dir.path(), doc_params("os"));
    auto session = open.session();
    REQUIRE(session->insert("user7", {{"field1", "b"}, {"field0", "a"}}).ok());
    session.reset();
    REQUIRE(open.close().ok());
  }
  doc::DocStore raw = doc_raw_store(dir.path());
  const std::vector<std::string> ids = raw.record_ids();
  REQUIRE(ids.size() == 1);
  const auto record = raw.get(ids[0]);
  REQUIRE(record.has_value());
  CHECK(record->data.dump() == R"({"key":"user7","fields":{"field1":"b","field0":"a"}})");
}

TEST_CASE("doc kv: a document that is not a record is an error, not a crash", "[doc_kv]") {
  kv::KvPlugin plugin(STORH_TEST_DOC_PLUGIN);
  storh::test::ScratchDir dir;
  {
    kv::OpenStore open(plugin, dir.path(), doc_params("os"));
    auto session = open.session();
    REQUIRE(session->insert("damaged", kv::record("a", 1)).ok());
    session.reset();
    REQUIRE(open.close().ok());
  }
  {
    doc::DocStore raw = doc_raw_store(dir.path());
    const std::string id = raw.record_ids().at(0);
    raw.put(storh::engines::Json{{"key", "damaged"}, {"fields", 5}}, id);
  }
  kv::damaged_value_is_an_error(plugin, dir.path(), doc_params("os"));
}

TEST_CASE("doc plugin: one durability parameter for the scenario and the key-value store",
          "[doc_kv]") {
  kv::KvPlugin plugin(STORH_TEST_DOC_PLUGIN);
  const storh::EngineInfo info = plugin.loaded().engine->describe();
  const auto durability =
      std::find_if(info.params.begin(), info.params.end(),
                   [](const auto& param) { return param.name == "durability"; });
  REQUIRE(durability != info.params.end());
  CHECK(std::get<std::string>(durability->default_value) == "durable");
  std::vector<std::string> allowed;
  for (const auto& value : durability->allowed) allowed.push_back(std::get<std::string>(value));
  CHECK(allowed == std::vector<std::string>{"durable", "none", "os", "fsync"});
}
