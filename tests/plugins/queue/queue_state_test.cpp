// QueueState's pending FIFO (plugins/queue/queue_state.h) against a plain model of the
// effective pending order: through the compaction of stale entries, through long runs
// of claims with batches that reserve room between them, and through random events that
// split its runs (claims by id, requeues, completes that free slots for new jobs).
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "queue/queue_state.h"

namespace {

using storh::engines::queue::QueueState;
namespace uuid_v7 = storh::engines::uuid_v7;

// The state and the order it must keep: a job re-enqueued while pending moves to the back.
struct ModelledQueue {
  QueueState state;
  std::deque<std::string> order;

  void enqueue(const std::string& id) {
    state.apply_enqueue(id, "{}");
    order.erase(std::remove(order.begin(), order.end(), id), order.end());
    order.push_back(id);
  }

  // Claims up to `limit` jobs; checks each against the model's front.
  void claim(std::size_t limit) {
    std::vector<std::string> claimed;
    const std::size_t count = state.claim_front(
        limit, 1, [&](std::string_view id, const auto&) { claimed.emplace_back(id); });
    REQUIRE(count == claimed.size());
    REQUIRE(count == std::min(limit, order.size()));
    for (const std::string& id : claimed) {
      REQUIRE(id == order.front());
      order.pop_front();
    }
  }

  void check() const {
    const std::vector<std::string> expected(order.begin(), order.end());
    CHECK(state.effective_pending_order() == expected);
    CHECK(state.counts().pending == order.size());
  }
};

std::vector<std::string> new_ids(std::size_t n) {
  std::vector<std::string> ids;
  ids.reserve(n);
  for (std::size_t i = 0; i < n; ++i) ids.push_back(uuid_v7::generate());
  return ids;
}

}  // namespace

TEST_CASE("queue state: re-enqueued jobs keep their latest place through compaction",
          "[queue][fifo]") {
  ModelledQueue queue;
  const std::vector<std::string> ids = new_ids(100);
  for (const std::string& id : ids) queue.enqueue(id);
  std::mt19937 random(20261206);
  // Each round leaves 100 stale entries; past 4,096 of them the FIFO is compacted.
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> shuffled = ids;
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    for (const std::string& id : shuffled) queue.enqueue(id);
    if (round % 20 == 19) queue.check();
  }
  queue.claim(30);
  queue.check();
  queue.claim(100);
  queue.check();
}

TEST_CASE("queue state: long runs of claims between batches keep FIFO order", "[queue][fifo]") {
  ModelledQueue queue;
  for (const std::string& id : new_ids(12000)) queue.enqueue(id);
  // Claims of 1,000 consume the front while batches of 300, each reserving room first,
  // go on at the back.
  for (int round = 0; round < 15; ++round) {
    queue.claim(1000);
    queue.state.reserve(300);
    for (const std::string& id : new_ids(300)) queue.enqueue(id);
    if (round % 5 == 4) queue.check();
  }
  queue.claim(100000);  // everything left: the FIFO empties
  queue.check();
  CHECK(queue.state.counts().processing == 12000 + 15 * 300);
  queue.enqueue(uuid_v7::generate());
  queue.check();
}

TEST_CASE("queue state: random events keep FIFO order and counts", "[queue][fifo]") {
  ModelledQueue queue;
  std::set<std::string> processing;
  std::size_t done = 0;
  std::vector<std::string> pool = new_ids(300);
  std::mt19937 random(61206);
  const auto pick = [&](const auto& ids) {
    auto at = ids.begin();
    std::advance(at, std::uniform_int_distribution<std::size_t>(0, ids.size() - 1)(random));
    return *at;
  };
  for (int step = 0; step < 20000; ++step) {
    const int event = std::uniform_int_distribution<int>(0, 9)(random);
    if (event <= 2) {
      // Enqueue: a burst of fresh jobs (one run) or one job from the pool, wherever it is.
      if (event == 0) {
        for (const std::string& id : new_ids(20)) queue.enqueue(id);
      } else {
        const std::string id = pick(pool);
        if (queue.state.status(id) == storh::engines::queue::JobStatus::done) --done;
        processing.erase(id);
        queue.enqueue(id);
      }
    } else if (event == 3 && !queue.order.empty()) {
      // A claim of one job by id (a log line of another process), out of FIFO order.
      const std::string id = pick(queue.order);
      queue.state.apply_claim(id, 1);
      queue.order.erase(std::find(queue.order.begin(), queue.order.end(), id));
      processing.insert(id);
    } else if (event <= 5) {
      std::vector<std::string> claimed;
      queue.state.claim_front(3, 1,
                              [&](std::string_view id, const auto&) { claimed.emplace_back(id); });
      for (const std::string& id : claimed) {
        REQUIRE(id == queue.order.front());
        queue.order.pop_front();
        processing.insert(id);
      }
    } else if (event == 6 && !processing.empty()) {
      const std::string id = pick(processing);
      queue.state.apply_requeue(id);
      processing.erase(id);
      queue.order.push_back(id);
    } else if (event >= 7 && !processing.empty()) {
      // Completed and forgotten (its slot goes to a later job) or kept as done.
      const std::string id = pick(processing);
      const bool keep = event == 9;
      REQUIRE(queue.state.complete_if_processing(id, keep, 2));
      processing.erase(id);
      done += keep ? 1 : 0;
    }
    if (step % 1000 == 999) {
      queue.check();
      CHECK(queue.state.counts().processing == processing.size());
      CHECK(queue.state.counts().done == done);
    }
  }
}

TEST_CASE("queue state: compaction keeps the live jobs of a long run in order", "[queue][fifo]") {
  ModelledQueue queue;
  const std::vector<std::string> ids = new_ids(10000);
  queue.state.reserve(ids.size());
  for (const std::string& id : ids) queue.enqueue(id);  // one run of 10,000 entries
  // Claims by id, out of FIFO order, leave 9,000 stale entries inside that run.
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i % 10 == 3) continue;
    queue.state.apply_claim(ids[i], 1);
    queue.order.erase(std::find(queue.order.begin(), queue.order.end(), ids[i]));
  }
  queue.check();
  // The next job makes the FIFO (10,001 entries) outgrow twice the 1,001 pending by
  // more than the slack: it is compacted down to the live ones, runs split apart.
  queue.enqueue(uuid_v7::generate());
  queue.check();
  queue.claim(600);
  queue.check();
  queue.claim(5000);
  queue.check();
}
