// The SQL mirror with a fault (EIO, ENOSPC, kill) at every write boundary of
// push and pull: its own (pull's writes to the document store) and SQLite's (xWrite, xTruncate,
// xSync, xDelete through sqlite_fault_vfs.h). After reopening, every acknowledged record
// and row is there, a failed push left the table wholly old or wholly new (one
// transaction), a failed pull left each record old or new, the stores verify ok, SQLite's
// integrity check is ok, and pushing and pulling again brings mirror.verify() to ok.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "doc/doc_store.h"
#include "fault_harness.h"
#include "mirror/sql_mirror.h"
#include "mirror/sqlite.h"
#include "sqlite_fault_vfs.h"

namespace doc = storh::engines::doc;
namespace mirror = storh::engines::mirror;
namespace uuid_v7 = storh::engines::uuid_v7;
using fault_test::Op;
using storh::engines::Json;
using storh::engines::Sync;

namespace {

// Two collections over one database: "docs" is pushed, "inbox" is pulled into.
struct World {
  World(const std::filesystem::path& root, const doc::DocStoreOptions& options)
      : docs(root, "docs", options),
        inbox(root, "inbox", options),
        db(root / "mirror.db"),
        sql(db, "bench_") {
    sql.collection(docs, "docs");
    sql.collection(inbox, "inbox");
    sql.install();
  }
  doc::DocStore docs;
  doc::DocStore inbox;
  mirror::Database db;
  mirror::SqlMirror sql;
};

Json row(int i, int version = 0) {
  return Json{{"kind", "page"}, {"i", i}, {"v", version}};
}

fault_test::Value read_row(World& world, const std::string& table, const std::string& id) {
  mirror::Statement select =
      world.db.prepare("SELECT \"data\" FROM \"" + table + "\" WHERE \"id\" = ?");
  select.bind_text(1, id);
  if (!select.step()) return std::nullopt;
  return Json::parse(select.column_text(0));
}

fault_test::Value read_doc(doc::DocStore& store, const std::string& id) {
  auto record = store.get(id);
  if (!record) return std::nullopt;
  return record->data;
}

}  // namespace

TEST_CASE("mirror faults: every write boundary of push and pull, SQLite's included",
          "[mirror][fault]") {
  mirror_test::fault_vfs::install();
  fault_test::Scratch scratch;
  std::vector<std::string> ids;
  ids.reserve(8);
  for (int i = 0; i < 8; ++i) ids.push_back(uuid_v7::generate());
  doc::DocStoreOptions options;
  options.sync = Sync::durable;
  const std::filesystem::path root = scratch.path() / "w";

  fault_test::Subject<World> subject;
  subject.engine = "mirror";
  subject.reset = [&] {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  };
  subject.open = [&] { return std::make_unique<World>(root, options); };
  subject.setup = [&](World& world) {
    world.docs.put(row(0), ids[0]);
    world.docs.put(row(1), ids[1]);
    world.sql.push("docs");
    // Rows for pull, as another writer of the database would leave them.
    for (int i = 5; i <= 7; ++i) {
      mirror::Statement insert = world.db.prepare(
          "INSERT INTO \"bench_inbox\" (\"id\", \"hash\", \"data\") VALUES (?, ?, ?)");
      const std::string data = row(i).dump();
      insert.bind_text(1, ids[i]);
      insert.bind_text(2, "0");
      insert.bind_text(3, data);
      insert.run();
    }
    // The store changes the push under test sends.
    world.docs.put(row(2), ids[2]);
    world.docs.put(row(0, 1), ids[0]);
    world.docs.remove(ids[1]);
  };
  subject.ops = [&] {
    std::vector<Op<World>> ops;
    // One transaction: all three row changes or none.
    ops.push_back({"push (insert 2, update 0, delete 1)",
                   {{"row:" + ids[2], std::nullopt, row(2)},
                    {"row:" + ids[0], row(0), row(0, 1)},
                    {"row:" + ids[1], row(1), std::nullopt}},
                   [&](World& world) {
                     const mirror::PushResult result = world.sql.push("docs");
                     if (result.inserted != 1 || result.updated != 1 || result.deleted != 1) {
                       throw std::logic_error("unexpected push counts");
                     }
                   }});
    // Not transactional: each record old or new.
    ops.push_back({"pull",
                   {{"inbox:" + ids[5], std::nullopt, row(5)},
                    {"inbox:" + ids[6], std::nullopt, row(6)},
                    {"inbox:" + ids[7], std::nullopt, row(7)}},
                   [&](World& world) { world.sql.pull("inbox"); },
                   true});
    return ops;
  };
  subject.read = [](World& world, const std::string& key) -> fault_test::Value {
    const std::size_t colon = key.find(':');
    const std::string kind = key.substr(0, colon);
    const std::string id = key.substr(colon + 1);
    if (kind == "docs") return read_doc(world.docs, id);
    if (kind == "inbox") return read_doc(world.inbox, id);
    return read_row(world, "bench_docs", id);
  };
  subject.verify = [](World& world) {
    std::vector<std::string> errors;
    for (doc::DocStore* store : {&world.docs, &world.inbox}) {
      const doc::VerifyResult report = store->verify();
      if (!report.ok) errors.push_back(report.errors.empty() ? "store not ok" : report.errors[0]);
    }
    mirror::Statement check = world.db.prepare("PRAGMA integrity_check");
    if (!check.step() || check.column_text(0) != "ok") errors.emplace_back("integrity_check");
    // A sync interrupted anywhere converges when run again.
    world.sql.push("docs");
    world.sql.pull("inbox");
    const mirror::MirrorVerifyResult mirrored = world.sql.verify();
    for (const std::string& error : mirrored.errors) {
      // The hand-written inbox rows carry no real hash: only "docs" must be exact.
      if (error.rfind("inbox", 0) != 0) errors.push_back(error);
    }
    return errors;
  };

  const fault_test::Tally tally = fault_test::run_all(subject);
  CHECK(tally.boundaries >= 10);
  fault_test::require_clean(tally);
}
