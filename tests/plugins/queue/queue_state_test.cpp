// QueueState's pending FIFO (plugins/queue/queue_state.h) against a plain model of the
// effective pending order: through the compaction of stale entries, and through long runs
// of claims with batches that reserve room between them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <random>
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
