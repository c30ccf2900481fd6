// The queue with a fault (EIO, ENOSPC, kill) at every write boundary of
// enqueue, claim, complete and enqueue_many keeps every acknowledged event, shows no
// failed event in part, and verifies ok after reopen (tests/plugins/fault_harness.h).
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "fault_harness.h"
#include "queue/log_queue.h"

namespace uuid_v7 = storh::engines::uuid_v7;
using fault_test::Op;
using storh::engines::Json;
using storh::engines::LogQueue;
using storh::engines::Sync;
using storh::engines::queue::JobStatus;

namespace {

Json payload(int i) {
  return Json{{"n", i}, {"task", "job-" + std::to_string(i)}};
}

// What the state keeps of a job: done jobs keep no payload.
Json job(const std::string& status, int i) {
  if (status == "done") return Json{{"status", status}};
  return Json{{"status", status}, {"payload", payload(i)}};
}

}  // namespace

TEST_CASE("queue faults: every write boundary of enqueue, claim and complete loses nothing",
          "[queue][fault]") {
  fault_test::Scratch scratch;
  constexpr int kJobs = 6;
  std::vector<std::string> ids;
  ids.reserve(kJobs);
  for (int i = 0; i < kJobs; ++i) ids.push_back(uuid_v7::generate());

  fault_test::Subject<LogQueue> subject;
  subject.engine = "queue";
  subject.reset = [&] { std::filesystem::remove_all(scratch.path() / "q"); };
  subject.open = [&] { return std::make_unique<LogQueue>(scratch.path(), "q", Sync::durable); };
  subject.setup = [&](LogQueue& queue) {
    for (int i = 0; i < 3; ++i) queue.enqueue(payload(i), ids[i]);
    REQUIRE(queue.claim()->id == ids[0]);
  };
  subject.ops = [&] {
    std::vector<Op<LogQueue>> ops;
    ops.push_back({"enqueue 3", {{ids[3], std::nullopt, job("pending", 3)}}, [&](LogQueue& queue) {
                     queue.enqueue(payload(3), ids[3]);
                   }});
    ops.push_back(
        {"claim (1)", {{ids[1], job("pending", 1), job("processing", 1)}}, [&](LogQueue& queue) {
           auto claimed = queue.claim();
           if (!claimed || claimed->id != ids[1]) throw std::logic_error("wrong job");
         }});
    ops.push_back(
        {"complete 0", {{ids[0], job("processing", 0), job("done", 0)}}, [&](LogQueue& queue) {
           if (!queue.complete(ids[0])) throw std::logic_error("not processing");
         }});
    ops.push_back(
        {"enqueue_many 4-5",
         {{ids[4], std::nullopt, job("pending", 4)}, {ids[5], std::nullopt, job("pending", 5)}},
         [&](LogQueue& queue) {
           queue.enqueue_many({Json{{"id", ids[4]}, {"payload", payload(4)}},
                               Json{{"id", ids[5]}, {"payload", payload(5)}}});
         },
         true});
    ops.push_back(
        {"(setup job 2)", {{ids[2], job("pending", 2), job("pending", 2)}}, [](LogQueue&) {}});
    return ops;
  };
  subject.read = [](LogQueue& queue, const std::string& id) -> fault_test::Value {
    queue.counts();  // brings the state up to the log
    const auto* entry = queue.state_for_tests().find(id);
    if (entry == nullptr || entry->status == JobStatus::none) return std::nullopt;
    if (entry->status == JobStatus::done) return Json{{"status", "done"}};
    const char* status = entry->status == JobStatus::pending ? "pending" : "processing";
    return Json{{"status", status},
                {"payload", entry->has_payload ? Json::parse(entry->payload.view()) : Json()}};
  };
  subject.verify = [](LogQueue& queue) {
    auto report = queue.verify();
    if (report.ok) return std::vector<std::string>{};
    return report.errors.empty() ? std::vector<std::string>{"not ok"} : report.errors;
  };

  const fault_test::Tally tally = fault_test::run_all(subject);
  CHECK(tally.boundaries >= 8);
  fault_test::require_clean(tally);
}

TEST_CASE("queue faults: a batch whose undo fails too reports both failures, its own first",
          "[queue][fault]") {
  namespace fault = storh::engines::fault;
  fault_test::Scratch scratch;
  // Over 1 MiB of lines, so a chunk is written before the bad id ends the batch and
  // the batch must take the log back; the undo's sync is the batch's last boundary.
  const auto batch = [] {
    std::vector<Json> jobs;
    jobs.reserve(20001);
    for (int i = 0; i < 20000; ++i) jobs.push_back(Json{{"payload", payload(i)}});
    jobs.push_back(Json{{"id", "bad"}, {"payload", payload(0)}});
    return jobs;
  };
  LogQueue queue(scratch.path(), "q", Sync::durable);
  fault::count_only();
  CHECK_THROWS_AS(queue.enqueue_many(batch()), std::invalid_argument);
  const std::uint64_t boundaries = fault::crossed();
  REQUIRE(boundaries >= 2);  // a chunk's write, then the undo's sync

  fault::arm(boundaries, fault::Action::fail, EIO);
  std::string message;
  try {
    queue.enqueue_many(batch());
  } catch (const std::exception& e) {
    message = e.what();
  }
  fault::disarm();
  INFO(message);
  CHECK(message.rfind("Invalid UUIDv7 value.", 0) == 0);  // the batch's own failure, first
  CHECK(message.find("; and the log could not be taken back to where the batch began: ") !=
        std::string::npos);
  CHECK(message.find("Input/output error") != std::string::npos);
}
