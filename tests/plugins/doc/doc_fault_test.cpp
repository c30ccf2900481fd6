// The document store with a fault (EIO, ENOSPC, kill) at every write
// boundary of put (new and replacing), put_many and put_stream keeps every
// acknowledged record, shows no failed write in part, and verifies ok after reopen
// (tests/plugins/fault_harness.h). Once without indexes, once with the benchmark's
// schema (an equality, a unique and a range index).
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/schema.h"
#include "common/uuid_v7.h"
#include "doc/doc_store.h"
#include "fault_harness.h"
#include "scratch_dir.h"

namespace doc = storh::engines::doc;
namespace uuid_v7 = storh::engines::uuid_v7;
using fault_test::Op;
using storh::engines::Json;
using storh::engines::Schema;
using storh::engines::Sync;

namespace {

Json row(int i, int version = 0) {
  return Json{{"kind", i % 2 == 0 ? "page" : "post"},
              {"slug", "item-" + std::to_string(i) + "-" + std::to_string(version)},
              {"publishedAt", 1700000000000 + i}};
}

// `streamed` rows go through put_stream in batches of `batch_size`: 4 in 2 by default
// (two batches, each fsynced file by file); 16 in 16 is one batch made durable by syncfs
// where open_for_syncfs trusts it (file by file elsewhere).
fault_test::Tally run_doc_faults(const std::string& engine, std::optional<Schema> schema,
                                 int streamed = 4, std::size_t batch_size = 2) {
  fault_test::Scratch scratch;
  std::vector<std::string> ids;
  const int after_stream = 5 + streamed;
  for (int i = 0; i <= after_stream; ++i) ids.push_back(uuid_v7::generate());
  doc::DocStoreOptions options;
  options.sync = Sync::durable;
  options.schema = std::move(schema);
  options.batch_size = batch_size;

  fault_test::Subject<doc::DocStore> subject;
  subject.engine = engine;
  subject.reset = [&] { std::filesystem::remove_all(scratch.path() / "docs"); };
  subject.open = [&] { return std::make_unique<doc::DocStore>(scratch.path(), "docs", options); };
  subject.setup = [&](doc::DocStore& store) {
    store.put(row(0), ids[0]);
    store.put(row(1), ids[1]);
  };
  subject.ops = [&] {
    std::vector<Op<doc::DocStore>> ops;
    ops.push_back({"put 2", {{ids[2], std::nullopt, row(2)}}, [&](doc::DocStore& store) {
                     store.put(row(2), ids[2]);
                   }});
    ops.push_back({"put 0 (replace)", {{ids[0], row(0), row(0, 1)}}, [&](doc::DocStore& store) {
                     store.put(row(0, 1), ids[0]);
                   }});
    ops.push_back({"put_many 3-4",
                   {{ids[3], std::nullopt, row(3)}, {ids[4], std::nullopt, row(4)}},
                   [&](doc::DocStore& store) {
                     store.put_many({Json{{"id", ids[3]}, {"data", row(3)}},
                                     Json{{"id", ids[4]}, {"data", row(4)}}});
                   },
                   true});
    std::vector<fault_test::Effect> stream;
    for (int i = 5; i < after_stream; ++i) stream.push_back({ids[i], std::nullopt, row(i)});
    ops.push_back({"put_stream 5-" + std::to_string(after_stream - 1), std::move(stream),
                   [&](doc::DocStore& store) {
                     std::vector<Json> rows;
                     for (int i = 5; i < after_stream; ++i) {
                       rows.push_back(Json{{"id", ids[i]}, {"data", row(i)}});
                     }
                     store.put_stream(std::move(rows));
                   },
                   true});
    ops.push_back({"put " + std::to_string(after_stream),
                   {{ids[after_stream], std::nullopt, row(after_stream)}},
                   [&](doc::DocStore& store) { store.put(row(after_stream), ids[after_stream]); }});
    ops.push_back({"(setup record 1)", {{ids[1], row(1), row(1)}}, [](doc::DocStore&) {}});
    return ops;
  };
  subject.read = [](doc::DocStore& store, const std::string& id) -> fault_test::Value {
    auto record = store.get(id);
    if (!record) return std::nullopt;
    return record->data;
  };
  subject.verify = [](doc::DocStore& store) {
    doc::VerifyResult report = store.verify();
    if (report.ok) return std::vector<std::string>{};
    return report.errors.empty() ? std::vector<std::string>{"not ok"} : report.errors;
  };
  if (options.schema) {
    // Indexes trail their records after a crash or a failed index write (engine-spec.md
    // 4.8, as storh): verify() reports the drift and repair() rebuilds them.
    subject.repair = [](doc::DocStore& store) { store.repair(); };
  }
  return fault_test::run_all(subject);
}

}  // namespace

TEST_CASE("doc faults: every write boundary of put, put_many and put_stream loses nothing",
          "[doc][fault]") {
  const fault_test::Tally tally = run_doc_faults("doc", std::nullopt);
  CHECK(tally.boundaries >= 10);
  fault_test::require_clean(tally);
}

TEST_CASE("doc faults: a put_stream batch made durable by syncfs loses nothing", "[doc][fault]") {
  const fault_test::Tally tally = run_doc_faults("doc (syncfs batch)", std::nullopt, 16, 16);
  CHECK(tally.boundaries >= 40);
  fault_test::require_clean(tally);
}

TEST_CASE("doc faults: the same with equality, unique and range indexes", "[doc][fault][index]") {
  const Schema schema = storh::engines::bench_schema();
  const fault_test::Tally tally = run_doc_faults("doc (indexed)", schema);
  CHECK(tally.boundaries >= 10);
  fault_test::require_clean(tally);
}
