// The log with a fault (EIO, ENOSPC, kill) at every write boundary of its
// appends, rolls, batches and deletes keeps every acknowledged write, shows no failed
// write in part, and verifies ok after reopen (tests/plugins/fault_harness.h).
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "fault_harness.h"
#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
namespace uuid_v7 = storh::engines::uuid_v7;
using fault_test::Effect;
using fault_test::Op;
using storh::engines::Json;
using storh::engines::Sync;

namespace {

Json row(int i) {
  return Json{{"i", i}, {"s", std::string(static_cast<std::size_t>(20 + i), 'x')}};
}

}  // namespace

TEST_CASE("log faults: every write boundary of put, roll, batch, delete and compact loses nothing",
          "[log][fault]") {
  fault_test::Scratch scratch;
  std::vector<std::string> ids;
  ids.reserve(60);
  for (int i = 0; i < 60; ++i) ids.push_back(uuid_v7::generate());
  // 512-byte segments: ~90-byte lines, so the puts and the batch roll segments.
  const lg::LogOptions options{512, 2, Sync::durable};

  fault_test::Subject<lg::SegmentedLog> subject;
  subject.engine = "log";
  subject.reset = [&] { std::filesystem::remove_all(scratch.path() / "c"); };
  subject.open = [&] { return std::make_unique<lg::SegmentedLog>(scratch.path(), "c", options); };
  subject.setup = [&](lg::SegmentedLog& log) {
    log.put(row(0), ids[0]);
    log.put(row(1), ids[1]);
  };
  subject.ops = [&] {
    std::vector<Op<lg::SegmentedLog>> ops;
    for (int i = 2; i < 7; ++i) {
      ops.push_back({"put " + std::to_string(i),
                     {{ids[i], std::nullopt, row(i)}},
                     [&, i](lg::SegmentedLog& log) { log.put(row(i), ids[i]); }});
    }
    ops.push_back({"append_many 7-10",
                   {{ids[7], std::nullopt, row(7)},
                    {ids[8], std::nullopt, row(8)},
                    {ids[9], std::nullopt, row(9)},
                    {ids[10], std::nullopt, row(10)}},
                   [&](lg::SegmentedLog& log) {
                     std::vector<Json> rows;
                     for (int i = 7; i <= 10; ++i)
                       rows.push_back(Json{{"id", ids[i]}, {"data", row(i)}});
                     log.append_many(std::move(rows));
                   },
                   true});
    // 48 rows roll about 9 segments: a sync pass of 16 files or more, one syncfs (and the
    // compaction below writes as many), so a fault lands on it too.
    std::vector<fault_test::Effect> big;
    for (int i = 12; i < 60; ++i) big.push_back({ids[i], std::nullopt, row(i)});
    ops.push_back({"append_many 12-59", std::move(big),
                   [&](lg::SegmentedLog& log) {
                     std::vector<Json> rows;
                     for (int i = 12; i < 60; ++i) {
                       rows.push_back(Json{{"id", ids[i]}, {"data", row(i)}});
                     }
                     log.append_many(std::move(rows));
                   },
                   true});
    ops.push_back({"remove 0", {{ids[0], row(0), std::nullopt}}, [&](lg::SegmentedLog& log) {
                     log.remove(ids[0]);
                   }});
    ops.push_back({"put 11", {{ids[11], std::nullopt, row(11)}}, [&](lg::SegmentedLog& log) {
                     log.put(row(11), ids[11]);
                   }});
    // Rewrites every sealed segment; changes no record.
    ops.push_back({"compact", {}, [](lg::SegmentedLog& log) { log.compact(); }});
    // Untouched by the operations: must hold through every fault.
    ops.push_back({"(setup record 1)", {{ids[1], row(1), row(1)}}, [](lg::SegmentedLog&) {}});
    return ops;
  };
  subject.read = [](lg::SegmentedLog& log, const std::string& id) -> fault_test::Value {
    auto record = log.get(id);
    if (!record) return std::nullopt;
    return record->data;
  };
  subject.verify = [](lg::SegmentedLog& log) {
    lg::VerifyReport report = log.verify();
    if (report.ok) return std::vector<std::string>{};
    return report.errors.empty() ? std::vector<std::string>{"not ok"} : report.errors;
  };

  const fault_test::Tally tally = fault_test::run_all(subject);
  CHECK(tally.boundaries >= 10);
  fault_test::require_clean(tally);
}
