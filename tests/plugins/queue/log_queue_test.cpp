// LogQueue in one process (engine-spec.md sections 6 and 10.3): the API, FIFO order and
// the exact size of the log. The invariants Q1-Q3 and Q5-Q8 are in
// log_queue_invariants_test.cpp; Q4 and the crash test fork real processes in
// queue_process_test.cpp.
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

TEST_CASE("queue: jobs are claimed in FIFO order with their payloads", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  CHECK_FALSE(queue.claim().has_value());
  const std::string a = queue.enqueue(payload_of(1));
  const std::string b = queue.enqueue(payload_of(2));
  CHECK(queue.counts() == QueueCounts{2, 0, 0});
  auto job = queue.claim();
  REQUIRE(job);
  CHECK(job->id == a);
  CHECK(job->payload == R"({"n":1})");
  CHECK(job->payload_json() == payload_of(1));
  CHECK(claimed_id(queue) == b);
  CHECK_FALSE(queue.claim().has_value());
  CHECK(queue.counts() == QueueCounts{0, 2, 0});
  CHECK(queue.complete(a));
  CHECK_FALSE(queue.complete(a));  // no longer processing: a no-op
  CHECK(queue.counts() == QueueCounts{0, 1, 1});
  CHECK(queue.complete(b, /*keep_done=*/false));
  CHECK(queue.counts() == QueueCounts{0, 0, 1});
}

TEST_CASE("queue: ids are validated, a supplied id is used", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  CHECK(queue.enqueue(payload_of(1), kId) == kId);
  CHECK_THROWS_AS(queue.enqueue(payload_of(1), "nope"), std::invalid_argument);
  CHECK_THROWS_AS(queue.complete("nope"), std::invalid_argument);
  CHECK_THROWS_AS(queue.complete_many({kId, "nope"}), std::invalid_argument);
  CHECK_THROWS_AS(queue.claim_many(0), std::invalid_argument);
  CHECK(queue.complete_many({}) == 0);
  CHECK(queue.counts() == QueueCounts{1, 0, 0});
}

TEST_CASE("queue: no-op calls write nothing", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const std::string id = queue.enqueue(payload_of(1));
  const auto size = fs::file_size(queue.log_path());
  CHECK_FALSE(queue.complete(id));  // pending, not processing
  CHECK(queue.complete_many({id, kId}) == 0);
  CHECK(queue.requeue_timed_out(0) == 0);
  CHECK(queue.purge_done() == 0);
  CHECK(fs::file_size(queue.log_path()) == size);
  CHECK(queue.stats().bytes == size);
}

TEST_CASE("queue: re-enqueueing an id moves it to the back", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const std::string a = queue.enqueue(payload_of(1));
  const std::string b = queue.enqueue(payload_of(2));
  queue.enqueue(payload_of(3), a);
  CHECK(queue.counts() == QueueCounts{2, 0, 0});
  CHECK(claimed_id(queue) == b);
  auto job = queue.claim();
  REQUIRE(job);
  CHECK(job->id == a);
  CHECK(job->payload == R"({"n":3})");
}

TEST_CASE("queue: enqueue_many follows the envelope rules with the key payload", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const auto ids =
      queue.enqueue_many({Json{{"id", kId}, {"payload", payload_of(1)}}, Json{{"a", 1}},
                          Json{{"id", "018bcfe5-6800-76fb-95af-d92c554e7dce"}, {"b", 2}}});
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] == kId);
  CHECK(ids[2] == "018bcfe5-6800-76fb-95af-d92c554e7dce");
  const auto jobs = queue.claim_many(10);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].payload == R"({"n":1})");
  CHECK(jobs[1].payload == R"({"a":1})");
  CHECK(jobs[2].payload == R"({"id":"018bcfe5-6800-76fb-95af-d92c554e7dce","b":2})");
  CHECK_THROWS_AS(queue.enqueue_many({Json{{"id", "bad"}}}), std::invalid_argument);
  CHECK(queue.counts() == QueueCounts{0, 3, 0});
}

// enqueue_many reads each row in place (row_parts) rather than splitting it: the same
// envelope rules, including the cases where a key is there but does not count.
TEST_CASE("queue: enqueue_many keeps rows whose id or payload key does not count whole",
          "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const auto ids = queue.enqueue_many({Json{{"id", 5}, {"payload", "text"}},
                                       Json{{"payload", Json::array({1})}, {"id", kId}},
                                       Json::array({1, 2}), Json{{"payload", Json::object()}}});
  REQUIRE(ids.size() == 4);
  CHECK(ids[0] != kId);
  CHECK(ids[1] == kId);
  const auto jobs = queue.claim_many(10);
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].id == ids[0]);
  CHECK(jobs[0].payload == R"({"id":5,"payload":"text"})");  // neither key counts: whole
  CHECK(jobs[1].payload == "[]");                            // a list payload normalises to []
  CHECK(jobs[2].payload == "[]");  // not an object: whole, and normalised to []
  CHECK(jobs[3].payload == "[]");
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.verify().ok);
  CHECK(reopened.counts() == QueueCounts{0, 4, 0});
}

TEST_CASE("queue: enqueue_many from a source writes the same log as from a vector", "[queue]") {
  ScratchDir dir;
  LogQueue from_vector(dir.path(), "vector");
  LogQueue from_source(dir.path(), "source");
  from_vector.enqueue_many(rows(20));
  std::uint64_t next = 0;
  const auto ids = from_source.enqueue_many([&]() -> std::optional<Json> {
    if (next == 20) return std::nullopt;
    return storh::engines::bench_row(next++);
  });
  REQUIRE(ids.size() == 20);
  CHECK(fs::file_size(from_source.log_path()) == fs::file_size(from_vector.log_path()));
  const auto jobs = from_source.claim_many(20);
  REQUIRE(jobs.size() == 20);
  CHECK(jobs[0].id == ids[0]);
  CHECK(jobs[19].payload_json() == storh::engines::bench_row(19));
  CHECK(from_source.enqueue_many([]() -> std::optional<Json> { return std::nullopt; }).empty());
}

TEST_CASE("queue: an invalid id late in a batch leaves the log and the state untouched",
          "[queue]") {
  // The chunks before the bad id were already written and applied in memory: the log
  // is cut back to where the batch began and the instance rebuilds its state from it.
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const std::string first = queue.enqueue(payload_of(1));
  const auto size = fs::file_size(queue.log_path());
  std::vector<Json> jobs = rows(6000);  // over 1 MiB of lines: more than one chunk
  jobs.push_back(Json{{"id", "bad"}, {"payload", payload_of(2)}});
  CHECK_THROWS_AS(queue.enqueue_many(std::move(jobs)), std::invalid_argument);
  CHECK(fs::file_size(queue.log_path()) == size);
  CHECK(queue.counts() == QueueCounts{1, 0, 0});
  CHECK(claimed_id(queue) == first);
  CHECK_FALSE(queue.claim().has_value());
  CHECK(queue.verify().ok);
}

TEST_CASE("queue: claim_many skips stale FIFO entries of re-enqueued and requeued jobs",
          "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const std::string a = queue.enqueue(payload_of(1));
  const std::string b = queue.enqueue(payload_of(2));
  const std::string c = queue.enqueue(payload_of(3));
  queue.enqueue(payload_of(4), a);  // a moves behind c
  CHECK(claimed_id(queue) == b);
  CHECK(queue.requeue_timed_out(0) == 1);  // b goes behind a
  const auto jobs = queue.claim_many(2);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == c);
  CHECK(jobs[1].id == a);
  CHECK(jobs[1].payload == R"({"n":4})");
  const auto rest = queue.claim_many(5);
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].id == b);
  CHECK(queue.counts() == QueueCounts{0, 3, 0});
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.verify().ok);
}

TEST_CASE("queue: a claimed payload is shared with the queue and outlives the job", "[queue]") {
  ScratchDir dir;
  storh::engines::QueueJobs jobs;
  {
    LogQueue queue(dir.path(), "q");
    queue.enqueue_many({payload_of(1), Json::object(), payload_of(3)});
    jobs = queue.claim_many(3);
    REQUIRE(jobs.size() == 3);
    // Claiming hands out the state's own text, not a copy of it.
    const auto* entry = queue.state_for_tests().find(jobs[0].id);
    REQUIRE(entry != nullptr);
    CHECK(jobs[0].payload.same_storage(entry->payload));
    CHECK(jobs[1].payload == "[]");  // an empty payload, as PHP writes an empty array
    CHECK(queue.complete_many({jobs[0].id.str(), jobs[1].id.str()}) == 2);
    CHECK(queue.purge_done() == 2);
    CHECK(queue.state_for_tests().find(jobs[0].id) == nullptr);
  }
  // Completed, purged, and the queue gone: each job still holds its payload.
  CHECK(jobs[0].payload == R"({"n":1})");
  CHECK(jobs[0].payload_json() == payload_of(1));
  CHECK(jobs[1].payload == "[]");
  CHECK(jobs[2].payload == R"({"n":3})");
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.counts() == QueueCounts{0, 1, 0});
  CHECK(reopened.verify().ok);
}

TEST_CASE("queue: a pending job whose payload a purge event dropped is claimed with []",
          "[queue]") {
  ScratchDir dir;
  std::string id;
  {
    LogQueue queue(dir.path(), "q");
    id = queue.enqueue(payload_of(7));
  }
  // storh applies a purge to any job: a pending one keeps its place and loses its payload.
  std::string line;
  q::append_id_line(line, q::EventOp::purge, id, 1700000000);
  append_text(log_file(dir.path()), line);
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.counts() == QueueCounts{1, 0, 0});
  auto job = reopened.claim();
  REQUIRE(job);
  CHECK(job->id == id);
  CHECK(job->payload == "[]");
  CHECK(job->payload_json() == Json::array());
  CHECK(reopened.verify().ok);
}

TEST_CASE("queue: complete and complete_many touch only processing jobs", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const std::string pending = queue.enqueue(payload_of(1));
  const std::string claimed = queue.enqueue(payload_of(2));
  queue.enqueue(payload_of(3));
  CHECK(claimed_id(queue) == pending);  // pending is now processing
  CHECK(claimed_id(queue) == claimed);
  const auto size = fs::file_size(queue.log_path());
  CHECK_FALSE(queue.complete(kId));  // never enqueued
  CHECK(fs::file_size(queue.log_path()) == size);
  CHECK(queue.complete(pending, /*keep_done=*/false));
  CHECK_FALSE(queue.complete(pending));  // forgotten, no longer processing
  CHECK(queue.complete_many({claimed, claimed, pending}) == 1);
  CHECK(queue.counts() == QueueCounts{1, 0, 1});
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.counts() == QueueCounts{1, 0, 1});
  CHECK(reopened.verify().ok);
}

TEST_CASE("queue: purge_done forgets done jobs, all or only old ones", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  queue.enqueue_many(rows(3));
  const auto jobs = queue.claim_many(3);
  std::vector<std::string> ids;
  ids.reserve(jobs.size());
  for (const auto& job : jobs) ids.push_back(job.id.str());
  CHECK(queue.complete_many(ids) == 3);
  CHECK(queue.purge_done(3600) == 0);  // completed just now
  CHECK(queue.purge_done() == 3);
  CHECK(queue.counts() == QueueCounts{0, 0, 0});
  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.counts() == QueueCounts{0, 0, 0});
  CHECK(reopened.verify().ok);
}

TEST_CASE("queue: 1000 jobs through enqueue, claim and complete make a 381,554-byte log",
          "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  const auto ids = queue.enqueue_many(rows(1000));
  const auto jobs = queue.claim_many(1000);
  REQUIRE(jobs.size() == 1000);
  CHECK(queue.complete_many(ids) == 1000);
  CHECK(fs::file_size(queue.log_path()) == 381554);
  CHECK(queue.stats().bytes == 381554);

  // Single calls write the same lines as batches.
  LogQueue single(dir.path(), "single");
  for (int i = 0; i < 10; ++i) single.enqueue(storh::engines::bench_row(static_cast<unsigned>(i)));
  for (int i = 0; i < 10; ++i) single.complete(claimed_id(single));
  LogQueue batch(dir.path(), "batch");
  const auto batch_ids = batch.enqueue_many(rows(10));
  batch.claim_many(10);
  batch.complete_many(batch_ids);
  CHECK(fs::file_size(single.log_path()) == fs::file_size(batch.log_path()));
}

TEST_CASE("queue: a 10,000-job batch's ids outlive the queue, moved, copied and grown", "[queue]") {
  // At this size the ids go into the rest of the job table's huge page (log_queue.h).
  constexpr std::size_t kJobs = 10000;
  ScratchDir dir;
  storh::engines::QueueJobIds ids;
  storh::engines::QueueJobIds copy;
  {
    LogQueue queue(dir.path(), "q");
    storh::engines::QueueJobIds made = queue.enqueue_many(rows(kJobs));
    copy = made;
    ids = std::move(made);
    CHECK(queue.complete_many(ids) == 0);  // none is processing yet
  }
  REQUIRE(ids.size() == kJobs);
  CHECK(copy == ids);
  CHECK(copy.data() != ids.data());
  LogQueue queue(dir.path(), "q");
  const auto jobs = queue.claim_many(kJobs);
  REQUIRE(jobs.size() == kJobs);
  for (std::size_t i = 0; i < kJobs; ++i) {
    if (jobs[i].id != ids[i]) FAIL("job " << i << " is not the id enqueue_many returned");
  }
  ids.push_back(ids.front());  // grows out of the lent memory, contents kept
  CHECK(ids.size() == kJobs + 1);
  CHECK(ids[kJobs - 1] == copy.back());
  CHECK(queue.complete_many(ids) == kJobs);
}

TEST_CASE("queue: verify reports an unreadable log", "[queue]") {
  ScratchDir dir;
  LogQueue queue(dir.path(), "q");
  queue.enqueue(payload_of(1));
  fs::remove(queue.log_path());
  const auto report = queue.verify();
  CHECK_FALSE(report.ok);
  REQUIRE_FALSE(report.errors.empty());
  CHECK(report.errors.front() == "Could not read log queue file.");
}

TEST_CASE("queue: durability none writes the same log", "[queue]") {
  ScratchDir dir;
  LogQueue fast(dir.path(), "fast", storh::engines::Sync::none);
  const auto ids = fast.enqueue_many(rows(100));
  fast.claim_many(100);
  CHECK(fast.complete_many(ids) == 100);
  LogQueue reopened(dir.path(), "fast");
  CHECK(reopened.counts() == QueueCounts{0, 0, 100});
}
