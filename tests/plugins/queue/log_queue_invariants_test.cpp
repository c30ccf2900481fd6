// LogQueue's invariants (docs/engine-spec.md section 6, Q1-Q8): torn and foreign tails,
// state drift, requeue order, other writers, replay normalisation and large batches.
#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/framing.h"
#include "queue/log_queue.h"
#include "queue/queue_event.h"
#include "queue_test_support.h"

namespace fs = std::filesystem;
namespace q = storh::engines::queue;
using queue_test::append_text;
using queue_test::claimed_id;
using queue_test::kId;
using queue_test::log_file;
using queue_test::payload_of;
using queue_test::rows;
using queue_test::ScratchDir;
using storh::engines::Json;
using storh::engines::LogQueue;
using storh::engines::QueueCounts;

TEST_CASE("Q1: a torn tail is truncated on reopen and the next claim is right", "[queue][Q1]") {
  ScratchDir dir;
  std::uintmax_t clean_size = 0;
  std::string second;
  {
    LogQueue queue(dir.path(), "q");
    queue.enqueue(payload_of(1));
    second = queue.enqueue(payload_of(2));
    claimed_id(queue);
    clean_size = fs::file_size(queue.log_path());
  }
  append_text(log_file(dir.path()), "{\"op\":\"enqueue\"");
  LogQueue queue(dir.path(), "q");
  CHECK(fs::file_size(queue.log_path()) == clean_size);
  CHECK(queue.counts() == QueueCounts{1, 1, 0});
  CHECK(queue.verify().ok);
  auto job = queue.claim();
  REQUIRE(job);
  CHECK(job->id == second);
  CHECK(job->payload == R"({"n":2})");
}

TEST_CASE("Q2: state drift is reported by verify and fixed by repair", "[queue][Q2]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  queue.enqueue(payload_of(1));
  const std::string second = queue.enqueue(payload_of(2));
  const std::string third = queue.enqueue(payload_of(3));
  claimed_id(queue);
  queue.state_for_tests().forget_pending_for_tests();
  const auto report = queue.verify();
  CHECK_FALSE(report.ok);
  REQUIRE_FALSE(report.errors.empty());
  CHECK(report.errors.front().find("state drift") != std::string::npos);
  const auto repaired = queue.repair(3600);
  CHECK(repaired.ok);
  CHECK(repaired.requeued == 0);
  CHECK(queue.counts() == QueueCounts{2, 1, 0});
  CHECK(queue.verify().ok);
  CHECK(claimed_id(queue) == second);
  CHECK(claimed_id(queue) == third);
}

TEST_CASE("Q3: a requeued job goes behind every pending job, also after reopen", "[queue][Q3]") {
  ScratchDir dir;
  std::string a, b, c;
  {
    LogQueue queue(dir.path(), "q");
    a = queue.enqueue(payload_of(1));
    b = queue.enqueue(payload_of(2));
    c = queue.enqueue(payload_of(3));
    CHECK(claimed_id(queue) == a);
    CHECK(queue.requeue_timed_out(3600) == 0);
    CHECK(queue.requeue_timed_out(0) == 1);
    CHECK(queue.counts() == QueueCounts{3, 0, 0});
  }
  LogQueue queue(dir.path(), "q");
  CHECK(claimed_id(queue) == b);
  CHECK(claimed_id(queue) == c);
  CHECK(claimed_id(queue) == a);
}

TEST_CASE("queue: repair requeues jobs processing longer than its timeout", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const std::string a = queue.enqueue(payload_of(1));
  queue.enqueue(payload_of(2));
  CHECK(claimed_id(queue) == a);
  CHECK(queue.repair(3600).requeued == 0);
  const auto report = queue.repair(0);
  CHECK(report.ok);
  CHECK(report.requeued == 1);
  CHECK(queue.counts() == QueueCounts{2, 0, 0});
}

TEST_CASE("Q5: another writer's events are seen by the next call, truncation empties",
          "[queue][Q5]") {
  ScratchDir dir;
  LogQueue mine(dir.path(), "q");
  LogQueue theirs(dir.path(), "q");
  const std::string id = theirs.enqueue(payload_of(1));
  CHECK(mine.counts() == QueueCounts{1, 0, 0});

  // A line appended by something that is not a LogQueue at all.
  std::string line;
  std::string scratch;
  q::append_enqueue_line(line, scratch, kId, R"({"x":1})", 1700000000);
  append_text(log_file(dir.path()), line);
  CHECK(mine.counts() == QueueCounts{2, 0, 0});
  CHECK(claimed_id(mine) == id);
  auto job = theirs.claim();
  REQUIRE(job);
  CHECK(job->id == kId);
  CHECK(job->payload == R"({"x":1})");

  fs::resize_file(log_file(dir.path()), 0);
  CHECK(mine.counts() == QueueCounts{0, 0, 0});
  CHECK_FALSE(mine.claim().has_value());
}

TEST_CASE("Q6: garbage and unsupported-op tails are cut, the next append is clean", "[queue][Q6]") {
  const std::string unsupported =
      storh::engines::frame(std::string(R"({"op":"explode","id":")") + kId + R"(","ts":1})");
  for (const std::string& tail : {std::string("broken\n"), unsupported}) {
    ScratchDir dir;
    std::string clean;
    {
      LogQueue queue(dir.path(), "q");
      queue.enqueue(payload_of(1));
      clean = queue_test::read_text(queue.log_path());
      append_text(queue.log_path(), tail);
      const auto report = queue.verify();
      CHECK_FALSE(report.ok);
      REQUIRE(report.errors.size() == 1);
      CHECK(report.errors.front().rfind("line 2: ", 0) == 0);
      CHECK(queue.repair().ok);
      CHECK(queue.verify().ok);
      CHECK(queue_test::read_text(queue.log_path()) == clean);
      append_text(queue.log_path(), tail);  // again, for the reopen below
    }
    LogQueue queue(dir.path(), "q");
    CHECK(queue_test::read_text(queue.log_path()) == clean);
    queue.enqueue(payload_of(2));
    const std::string after = queue_test::read_text(queue.log_path());
    CHECK(after.substr(0, clean.size()) == clean);
    CHECK(after.find('\0') == std::string::npos);
    CHECK(after.find("broken") == std::string::npos);
    CHECK(after.find("explode") == std::string::npos);
    CHECK(queue.verify().ok);
    CHECK(queue.counts() == QueueCounts{2, 0, 0});
  }
}

TEST_CASE("queue: a live writer cuts a dead writer's torn tail before appending", "[queue][Q6]") {
  // Without the cut, the new line would sit behind the torn one and the next open would
  // truncate it: an acknowledged enqueue lost.
  ScratchDir dir;
  std::string acknowledged;
  {
    LogQueue queue(dir.path(), "q");
    queue.enqueue(payload_of(1));
    append_text(queue.log_path(), "57\t0000");      // a torn line from a writer killed mid-write
    CHECK(queue.counts() == QueueCounts{1, 0, 0});  // reads leave the tail alone
    acknowledged = queue.enqueue(payload_of(2));
  }
  LogQueue queue(dir.path(), "q");
  CHECK(queue.counts() == QueueCounts{2, 0, 0});
  CHECK(queue.verify().ok);
  claimed_id(queue);
  CHECK(claimed_id(queue) == acknowledged);
}

TEST_CASE("Q7: replay normalises payloads, complete done:false forgets a done job", "[queue][Q7]") {
  ScratchDir dir;
  fs::create_directories(dir.path() / "q");
  const std::string id2 = "018bcfe5-6800-76fb-95af-d92c554e7dce";
  std::string log;
  log += storh::engines::frame(std::string(R"({"op":"enqueue","id":")") + kId +
                               R"(","payload":"text","ts":1})");
  log += storh::engines::frame(std::string(R"({"op":"enqueue","id":")") + id2 +
                               R"(","payload":{"0":"a","b":1},"ts":1})");
  append_text(log_file(dir.path()), log);
  {
    LogQueue queue(dir.path(), "q");
    auto first = queue.claim();
    REQUIRE(first);
    CHECK(first->payload == "[]");
    auto second = queue.claim();
    REQUIRE(second);
    CHECK(second->payload == R"({"b":1})");
    CHECK(queue.complete(kId));
    CHECK(queue.counts() == QueueCounts{0, 1, 1});
  }
  std::string more;
  q::append_complete_line(more, kId, false, 2);
  append_text(log_file(dir.path()), more);
  LogQueue queue(dir.path(), "q");
  CHECK(queue.counts() == QueueCounts{0, 1, 0});
  CHECK(queue.verify().ok);
}

TEST_CASE("Q8: batches over 1 MiB (13,000 jobs) round-trip in FIFO order", "[queue][Q8]") {
  constexpr std::size_t kJobs = 13000;
  ScratchDir dir;
  storh::engines::QueueJobIds ids;
  {
    LogQueue queue(dir.path(), "q");
    ids = queue.enqueue_many(rows(kJobs));
    REQUIRE(ids.size() == kJobs);
    CHECK(fs::file_size(queue.log_path()) > 2 * LogQueue::kChunkBytes);
  }
  LogQueue queue(dir.path(), "q");
  CHECK(queue.counts() == QueueCounts{kJobs, 0, 0});
  const auto jobs = queue.claim_many(kJobs + 5);
  REQUIRE(jobs.size() == kJobs);
  for (std::size_t i = 0; i < kJobs; ++i) {
    if (jobs[i].id != ids[i]) FAIL("job " << i << " out of FIFO order");
  }
  CHECK(jobs[12345].payload_json() == storh::engines::bench_row(12345));
  std::vector<std::string> to_complete(ids.begin(), ids.end());
  to_complete.push_back(ids.front().str());  // a duplicate
  to_complete.push_back(kId);                // never enqueued
  CHECK(queue.complete_many(to_complete) == kJobs);
  CHECK(queue.complete_many(ids) == 0);
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.counts() == QueueCounts{0, 0, kJobs});
  CHECK(reopened.verify().ok);
}
