// The example key-value engine (examples/kv_minimal, the one docs/ycsb.md shows): the
// checks every key-value engine passes (kv_checks.h) and its scenario, through its
// plugin module; and the SDK's KeyValueAdapter (storh/key_value.h) it is made with.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_run_context.h"
#include "kv/kv_checks.h"
#include "scratch_dir.h"
#include "storh/key_value.h"

namespace kv = storh_test::kv;

TEST_CASE("kv_minimal: the example passes the checks every key-value engine passes",
          "[kv_minimal]") {
  kv::every_record_check(kv::KvPlugin(STORH_TEST_KV_MINIMAL_PLUGIN), {});
}

TEST_CASE("kv_minimal: the example's scenario inserts and reads back every record",
          "[kv_minimal]") {
  kv::KvPlugin plugin(STORH_TEST_KV_MINIMAL_PLUGIN);
  const storh::EngineInfo info = plugin.loaded().engine->describe();
  CHECK(info.description == "example: a std::map with the key-value capability (YCSB)");
  storh::test::ScratchDir dir;
  storh_test::FakeRunContext ctx(50);
  ctx.set_work_dir(dir.path());
  const storh::Status status = plugin.loaded().engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  CHECK(ctx.measured() == std::vector<std::string>{"insert", "read"});
  for (const auto& m : ctx.measurements) CHECK(m.items == 50);
}

namespace {

// A store whose every call throws, and which counts its open and close.
struct ThrowingStore {
  int opened = 0;
  int closed = 0;
  void open(storh::RunContext& /*ctx*/) { ++opened; }
  void close() { ++closed; }
  bool read(std::string_view, const std::vector<std::string>&, storh::KvRecord&) {
    throw std::runtime_error("disk on fire");
  }
  void scan(std::string_view, std::size_t, const std::vector<std::string>&,
            std::vector<storh::KvRow>&) {
    throw std::runtime_error("disk on fire");
  }
  bool update(std::string_view, const storh::KvRecord&) { return false; }
  void insert(std::string_view, const storh::KvRecord&) {}
  bool remove(std::string_view) { return false; }
};

// "name=value" per field, in order.
std::vector<std::string> texts(const storh::KvRecord& record) {
  std::vector<std::string> out;
  for (const storh::KvField& field : record) out.push_back(field.name + "=" + field.value);
  return out;
}

}  // namespace

TEST_CASE(
    "key-value adapter: a store's exception is an error naming the engine and the call, "
    "false is not_found",
    "[kv_minimal]") {
  storh::KeyValueAdapter<ThrowingStore> adapter("demo");
  storh_test::FakeRunContext ctx(1);
  REQUIRE(adapter.open(ctx).ok());
  CHECK(adapter.store().opened == 1);
  std::unique_ptr<storh::KeyValueSession> session;
  REQUIRE(adapter.open_session(0, session).ok());
  storh::KvRecord record{{"stale", "x"}};
  storh::KvCode code = storh::KvCode::ok;
  const storh::Status read = session->read("k", {}, record, code);
  CHECK(read.message() == "demo read: disk on fire");
  CHECK(record.empty());  // cleared before the store's call
  CHECK(session->update("k", {{"f", "v"}}, code).ok());
  CHECK(code == storh::KvCode::not_found);
  CHECK(session->remove("k", code).ok());
  CHECK(code == storh::KvCode::not_found);
  session.reset();
  REQUIRE(adapter.close().ok());
  CHECK(adapter.store().closed == 1);
}

TEST_CASE("key-value adapter: kv_select keeps the record's order and kv_merge appends new fields",
          "[kv_minimal]") {
  const storh::KvRecord record{{"a", "1"}, {"b", "2"}, {"c", "3"}};
  CHECK(texts(storh::kv_select(record, {"c", "a", "z"})) == std::vector<std::string>{"a=1", "c=3"});
  CHECK(texts(storh::kv_select(record, {})) == texts(record));
  storh::KvRecord merged = record;
  storh::kv_merge(merged, {{"b", "two"}, {"d", "4"}});
  CHECK(texts(merged) == std::vector<std::string>{"a=1", "b=two", "c=3", "d=4"});
}
