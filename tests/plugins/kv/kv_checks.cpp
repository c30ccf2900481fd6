// kv_checks.cpp: the engine-neutral key-value checks (kv_checks.h).
#include "kv/kv_checks.h"

#include <catch2/catch.hpp>
#include <thread>

#include "scratch_dir.h"

namespace storh_test::kv {

namespace {

using storh::KvCode;
using storh::KvRecord;

std::string key_of(int thread, int i) {
  return "t" + std::to_string(thread) + "-" + std::to_string(1000 + i);
}

// The record read back from `session` (REQUIREd to be there).
KvRecord read_all(storh::KeyValueSession& session, const std::string& key,
                  const std::vector<std::string>& fields = {}) {
  KvRecord out;
  KvCode code = KvCode::not_found;
  const storh::Status status = session.read(key, fields, out, code);
  INFO(key << ": " << status.message());
  REQUIRE(status.ok());
  REQUIRE(code == KvCode::ok);
  return out;
}

void insert(storh::KeyValueSession& session, const std::string& key, const KvRecord& fields) {
  const storh::Status status = session.insert(key, fields);
  INFO(key << ": " << status.message());
  REQUIRE(status.ok());
}

bool same(const KvRecord& a, const KvRecord& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].value != b[i].value) return false;
  }
  return true;
}

}  // namespace

KvPlugin::KvPlugin(const std::string& module_path)
    : plugin_(module_path),
      factory_(plugin_.library.get_alias<storh::KeyValueFactory>(storh::kKeyValueSymbol)) {}

std::unique_ptr<storh::KeyValueStore> KvPlugin::make() const {
  std::unique_ptr<storh::KeyValueStore> store = factory_();
  REQUIRE(store != nullptr);
  return store;
}

OpenStore::OpenStore(const KvPlugin& plugin, const std::filesystem::path& dir, const Params& params)
    : ctx(1), store(plugin.make()) {
  ctx.set_work_dir(dir);
  for (const auto& [name, value] : params) ctx.set_param(name, value);
  const storh::Status status = store->open(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
}

OpenStore::~OpenStore() {
  if (!closed) static_cast<void>(store->close());  // a test that failed first: its error is the one
}

std::unique_ptr<storh::KeyValueSession> OpenStore::session(std::uint32_t client) {
  std::unique_ptr<storh::KeyValueSession> out;
  const storh::Status status = store->open_session(client, out);
  INFO(status.message());
  REQUIRE(status.ok());
  REQUIRE(out != nullptr);
  return out;
}

storh::Status OpenStore::close() {
  closed = true;
  return store->close();
}

KvRecord record(const std::string& prefix, int count) {
  KvRecord fields;
  for (int i = 0; i < count; ++i) {
    fields.push_back({"field" + std::to_string(i), prefix + "-" + std::to_string(i)});
  }
  return fields;
}

void read_returns_fields(const KvPlugin& plugin, const std::filesystem::path& dir,
                         const Params& params) {
  OpenStore open(plugin, dir, params);
  auto session = open.session();
  insert(*session, "user1", record("a", 4));
  CHECK(same(read_all(*session, "user1"), record("a", 4)));
  const KvRecord some = read_all(*session, "user1", {"field3", "field1", "field9"});
  CHECK(same(some, KvRecord{{"field1", "a-1"}, {"field3", "a-3"}}));  // stored order, none absent

  KvRecord out{{"stale", "x"}};
  KvCode code = KvCode::ok;
  REQUIRE(session->read("user2", {}, out, code).ok());
  CHECK(code == KvCode::not_found);
  CHECK(out.empty());
  session.reset();
  REQUIRE(open.close().ok());
}

void update_keeps_other_fields(const KvPlugin& plugin, const std::filesystem::path& dir,
                               const Params& params) {
  OpenStore open(plugin, dir, params);
  auto session = open.session();
  insert(*session, "user1", record("a", 3));
  KvCode code = KvCode::not_found;
  REQUIRE(session->update("user1", {{"field1", "new"}, {"field7", "added"}}, code).ok());
  CHECK(code == KvCode::ok);
  CHECK(
      same(read_all(*session, "user1"),
           KvRecord{{"field0", "a-0"}, {"field1", "new"}, {"field2", "a-2"}, {"field7", "added"}}));

  REQUIRE(session->update("absent", record("b", 1), code).ok());
  CHECK(code == KvCode::not_found);
  KvRecord out;
  REQUIRE(session->read("absent", {}, out, code).ok());
  CHECK(code == KvCode::not_found);  // the update wrote nothing
  session.reset();
  REQUIRE(open.close().ok());
}

void insert_overwrites(const KvPlugin& plugin, const std::filesystem::path& dir,
                       const Params& params) {
  OpenStore open(plugin, dir, params);
  auto session = open.session();
  insert(*session, "user1", record("a", 3));
  insert(*session, "user1", record("b", 1));
  CHECK(same(read_all(*session, "user1"), record("b", 1)));
  session.reset();
  REQUIRE(open.close().ok());
}

void scan_in_key_order(const KvPlugin& plugin, const std::filesystem::path& dir,
                       const Params& params) {
  OpenStore open(plugin, dir, params);
  auto session = open.session();
  for (const char* key : {"k30", "k10", "k50", "k20", "k40"}) insert(*session, key, record(key, 2));
  std::vector<storh::KvRow> rows{{"stale", {}}};
  auto keys = [&] {
    std::vector<std::string> out;
    out.reserve(rows.size());
    for (const auto& row : rows) out.push_back(row.key);
    return out;
  };

  REQUIRE(session->scan("k20", 2, {}, rows).ok());
  CHECK(keys() == std::vector<std::string>{"k20", "k30"});
  CHECK(same(rows[1].fields, record("k30", 2)));
  REQUIRE(session->scan("k25", 10, {"field1"}, rows).ok());  // starts between keys, subset
  CHECK(keys() == std::vector<std::string>{"k30", "k40", "k50"});
  CHECK(same(rows[0].fields, KvRecord{{"field1", "k30-1"}}));
  REQUIRE(session->scan("", 100, {}, rows).ok());
  CHECK(keys() == std::vector<std::string>{"k10", "k20", "k30", "k40", "k50"});
  REQUIRE(session->scan("k51", 5, {}, rows).ok());
  CHECK(rows.empty());
  REQUIRE(session->scan("k10", 0, {}, rows).ok());
  CHECK(rows.empty());
  session.reset();
  REQUIRE(open.close().ok());
}

void remove_then_not_found(const KvPlugin& plugin, const std::filesystem::path& dir,
                           const Params& params) {
  OpenStore open(plugin, dir, params);
  auto session = open.session();
  insert(*session, "user1", record("a", 2));
  insert(*session, "user2", record("b", 2));
  KvCode code = KvCode::not_found;
  REQUIRE(session->remove("user1", code).ok());
  CHECK(code == KvCode::ok);
  KvRecord out;
  REQUIRE(session->read("user1", {}, out, code).ok());
  CHECK(code == KvCode::not_found);
  REQUIRE(session->remove("user1", code).ok());
  CHECK(code == KvCode::not_found);
  CHECK(same(read_all(*session, "user2"), record("b", 2)));
  session.reset();
  REQUIRE(open.close().ok());
}

void stores_and_keeps(const KvPlugin& plugin, const std::filesystem::path& dir,
                      const Params& params, bool reopen) {
  {
    OpenStore open(plugin, dir, params);
    auto session = open.session();
    insert(*session, "user1", record("kept", 3));
    CHECK(same(read_all(*session, "user1"), record("kept", 3)));
    session.reset();
    REQUIRE(open.close().ok());
  }
  if (!reopen) return;
  OpenStore again(plugin, dir, params);
  auto session = again.session();
  CHECK(same(read_all(*session, "user1"), record("kept", 3)));
  session.reset();
  REQUIRE(again.close().ok());
}

void concurrent_sessions(const KvPlugin& plugin, const std::filesystem::path& dir,
                         const Params& params, int threads) {
  constexpr int kKeys = 25;
  OpenStore open(plugin, dir, params);
  std::vector<std::string> failures(threads);
  std::vector<std::thread> clients;
  clients.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      // Catch2's assertions are not thread-safe: each thread notes its first failure.
      auto fail = [&](const std::string& what) {
        if (failures[t].empty()) failures[t] = what;
      };
      std::unique_ptr<storh::KeyValueSession> session;
      if (auto s = open.store->open_session(static_cast<std::uint32_t>(t), session); !s.ok()) {
        return fail(s.message());
      }
      for (int i = 0; i < kKeys; ++i) {
        if (auto s = session->insert(key_of(t, i), record(key_of(t, i), 2)); !s.ok())
          fail(s.message());
      }
      for (int i = 0; i < kKeys; ++i) {
        KvRecord out;
        KvCode code = KvCode::not_found;
        if (auto s = session->read(key_of(t, i), {}, out, code); !s.ok()) fail(s.message());
        if (code != KvCode::ok || !same(out, record(key_of(t, i), 2)))
          fail("read back " + key_of(t, i));
      }
      std::vector<storh::KvRow> rows;
      if (auto s = session->scan(key_of(t, 0), kKeys, {}, rows); !s.ok()) fail(s.message());
      if (rows.size() != kKeys || rows.back().key != key_of(t, kKeys - 1)) fail("scan of own keys");
      session.reset();  // on its own thread: a session may hold a write lock of that thread
    });
  }
  for (auto& client : clients) client.join();
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t << ": " << failures[t]);
    CHECK(failures[t].empty());
  }
  auto session = open.session();
  std::vector<storh::KvRow> rows;
  REQUIRE(session->scan("", 1000, {}, rows).ok());
  CHECK(rows.size() == static_cast<std::size_t>(threads * kKeys));
  session.reset();
  REQUIRE(open.close().ok());
}

void damaged_value_is_an_error(const KvPlugin& plugin, const std::filesystem::path& dir,
                               const Params& params) {
  OpenStore open(plugin, dir, params);
  auto session = open.session();
  KvRecord out;
  KvCode code = KvCode::not_found;
  const storh::Status read = session->read("damaged", {}, out, code);
  CHECK_FALSE(read.ok());
  CHECK_THAT(read.message(), Catch::Contains("damaged") && Catch::Contains("not a record"));
  std::vector<storh::KvRow> rows;
  const storh::Status scan = session->scan("", 10, {}, rows);
  CHECK_FALSE(scan.ok());
  CHECK_THAT(scan.message(), Catch::Contains("not a record"));
  const storh::Status update = session->update("damaged", record("x", 1), code);
  CHECK_FALSE(update.ok());
  session.reset();
  REQUIRE(open.close().ok());
}

void every_record_check(const KvPlugin& plugin, const Params& params, int threads) {
  using Check = void (*)(const KvPlugin&, const std::filesystem::path&, const Params&);
  for (const Check check : {&read_returns_fields, &update_keeps_other_fields, &insert_overwrites,
                            &scan_in_key_order, &remove_then_not_found}) {
    storh::test::ScratchDir dir;
    check(plugin, dir.path(), params);
  }
  storh::test::ScratchDir dir;
  concurrent_sessions(plugin, dir.path(), params, threads);
}

void describes(const KvPlugin& plugin, const std::string& name,
               const std::vector<std::string>& operations, const std::vector<std::string>& params) {
  CHECK(std::string(plugin.loaded().manifest->name) == name);
  const storh::EngineInfo info = plugin.loaded().engine->describe();
  std::vector<std::string> described;
  for (const auto& op : info.operations) described.push_back(op.name);
  CHECK(described == operations);
  described.clear();
  for (const auto& param : info.params) described.push_back(param.name);
  CHECK(described == params);
}

void step_alone_runs(const KvPlugin& plugin, const std::string& step, const Params& params) {
  storh::test::ScratchDir dir;
  FakeRunContext ctx(50, {step});
  ctx.set_work_dir(dir.path());
  for (const auto& [name, value] : params) ctx.set_param(name, value);
  const storh::Status status = plugin.loaded().engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  REQUIRE(ctx.measurements.size() == 1);
  CHECK(ctx.measurements[0].operation == step);
}

void every_durability_keeps(const KvPlugin& plugin,
                            const std::function<Params(const std::string&)>& params_of,
                            bool none_keeps) {
  for (const std::string durability : {"none", "os", "fsync"}) {
    INFO("durability " << durability);
    storh::test::ScratchDir dir;
    stores_and_keeps(plugin, dir.path(), params_of(durability), none_keeps || durability != "none");
  }
}

void damaged_value_is_an_error(const KvPlugin& plugin, const Params& params, const RawPut& put) {
  storh::test::ScratchDir dir;
  put(dir.path(), "damaged",
      std::string("\x05\x05"
                  "ab"));
  damaged_value_is_an_error(plugin, dir.path(), params);
}

std::vector<std::string> run_scenario(const KvPlugin& plugin, const std::filesystem::path& dir,
                                      std::uint64_t n, const Params& params) {
  FakeRunContext ctx(n);
  ctx.set_work_dir(dir);
  for (const auto& [name, value] : params) ctx.set_param(name, value);
  const storh::Status status = plugin.loaded().engine->run(ctx);
  INFO(status.message());
  REQUIRE(status.ok());
  std::vector<std::string> names;
  for (const Measurement& m : ctx.measurements) {
    names.push_back(m.operation);
    CHECK(m.items == n);
  }
  return names;
}

}  // namespace storh_test::kv
