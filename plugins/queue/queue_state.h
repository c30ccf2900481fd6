// queue_state.h: the in-memory state of a queue (engine-spec.md section 6.2), rebuilt from
// the log on open and kept up to date by applying events.
//
// Each job id is in at most one of pending, processing and done; a job may also hold a
// payload (from enqueue until complete or purge). Per job the state keeps the payload
// text, the claim or completion time, and a sequence number: the order in which jobs
// entered their current status. The pending FIFO is a sequence of (slot, sequence) entries
// with lazy deduplication: an entry is live only while its job is pending with that
// sequence, so a re-enqueued or requeued job counts at its latest position (the
// "effective pending order" of section 6.2) and stale entries are dropped as the front
// reaches them. The entries are kept as runs: jobs that became pending one after the
// other in consecutive slots (a batch of new jobs) are one run of (first slot, first
// sequence, count), so a 10,000-job batch adds one deque element, not 10,000.
//
// Costs: apply_* and counts() are O(1) (an IdMap); claiming walks only stale entries at
// the front of the FIFO; ids_with() scans every job.
//
// Not thread-safe; LogQueue serialises access under its file lock.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/huge_pages.h"
#include "common/id_map.h"
#include "common/shared_text.h"
#include "queue/queue_event.h"

namespace storh::engines::queue {

enum class JobStatus : std::uint8_t { none, pending, processing, done };

struct JobEntry {
  SharedText payload;     // canonical JSON of the payload, if has_payload; shared with claims
  std::int64_t ts = 0;    // claim time (processing) or completion time (done), Unix seconds
  std::uint64_t seq = 0;  // when the job entered `status` (orders FIFO, processing, done)
  JobStatus status = JobStatus::none;
  bool has_payload = false;
};

struct QueueCounts {
  std::uint64_t pending = 0;
  std::uint64_t processing = 0;
  std::uint64_t done = 0;
  bool operator==(const QueueCounts& other) const noexcept = default;
};

class QueueState {
 public:
  void clear();
  // Hints the number of jobs to come (replay, batches). Payload texts go to `spare` first
  // when given (memory another buffer lends, huge_pages.h). Returns what the job table
  // leaves of its new huge block, if it made one, for the batch's returned ids.
  LentMemory reserve(std::size_t jobs, LentMemory spare = {});

  // The effects of section 6.2. Ids must be 36 characters (decode_event_line and the
  // LogQueue write path validate them).
  void apply(const QueueEvent& event);
  void apply_enqueue(std::string_view id, std::string_view payload);
  // Starts loading the index bucket apply_enqueue(id, ...) reads first and returns at
  // once: a batch calls it before it encodes the job's line, so the cache miss overlaps
  // that work instead of stalling the insert.
  void prefetch(std::string_view id) const { jobs_.prefetch_bucket(Jobs::hash(id)); }
  void apply_claim(std::string_view id, std::int64_t ts);
  void apply_complete(std::string_view id, bool done, std::int64_t ts);
  void apply_requeue(std::string_view id);
  void apply_purge(std::string_view id);

  // Claims up to `limit` pending jobs in effective FIFO order at time `ts` (as
  // apply_claim would, one lookup each) and calls on_claim(id, entry) for each, in
  // order; returns how many. The claimed jobs' FIFO entries are dropped.
  template <typename OnClaim>
  std::size_t claim_front(std::size_t limit, std::int64_t ts, OnClaim&& on_claim);
  // Applies complete(id, done, ts) if the job is processing and returns true; otherwise
  // changes nothing and returns false (LogQueue's complete() contract). One lookup.
  bool complete_if_processing(std::string_view id, bool done, std::int64_t ts);

  QueueCounts counts() const noexcept { return counts_; }
  // The job, or nullptr when the state has never seen it (or forgot it).
  const JobEntry* find(std::string_view id) const;
  JobStatus status(std::string_view id) const;

  // Calls fn(id, entry) for pending jobs in effective FIFO order until fn returns false.
  // Drops stale entries it passes at the front (hence not const).
  void for_each_pending(const std::function<bool(std::string_view, const JobEntry&)>& fn);
  // The effective pending order, front first.
  std::vector<std::string> effective_pending_order() const;
  // Ids in `status` for which keep(entry) holds, in the order they entered it.
  std::vector<std::string> ids_with(JobStatus status,
                                    const std::function<bool(const JobEntry&)>& keep) const;

  // Empty when both states hold the same payloads, pending, processing (with claim
  // times), done (with completion times) and effective pending order; otherwise what
  // differs first, e.g. "job <id>: processing here, pending in the log".
  std::string difference(const QueueState& other) const;

  // Test hook (invariant Q2): forgets every pending job, keeping payloads, so the state
  // drifts from the log.
  void forget_pending_for_tests();

 private:
  // A FIFO entry: the job's slot in jobs_ and its sequence number when it became pending
  // (claiming follows the slot, no id lookup).
  struct OrderEntry {
    std::uint64_t seq;
    std::uint32_t slot;
  };
  // `count` entries in a row: entry k is (first_slot + k, first_seq + k).
  struct OrderRun {
    std::uint64_t first_seq;
    std::uint32_t first_slot;
    std::uint32_t count;
    OrderEntry entry(std::uint32_t k) const noexcept { return {first_seq + k, first_slot + k}; }
  };

  using Jobs = IdMap<JobEntry>;

  void complete_job(std::string_view id, JobEntry& job, bool done, std::int64_t ts);
  void set_status(JobEntry& job, JobStatus status);
  void push_pending(std::uint32_t slot, JobEntry& job);
  bool live(const OrderEntry& entry) const;
  void push_order(const OrderEntry& entry);
  OrderEntry pop_order_front();
  // Calls fn(entry) for every FIFO entry, front first, until fn returns false.
  template <typename Fn>
  void for_each_order_entry(Fn&& fn) const;
  void compact_order();

  Jobs jobs_;
  // The payloads' characters, in shared blocks rather than one allocation each: a job
  // pins its block (16 KiB) until its payload is dropped everywhere; jobs leave in FIFO
  // order, so blocks go whole.
  SharedTextArena payload_arena_;
  std::deque<OrderRun> order_;
  std::size_t order_entries_ = 0;  // entries in all of order_'s runs, stale ones included
  QueueCounts counts_;
  std::uint64_t next_seq_ = 1;
};

template <typename OnClaim>
std::size_t QueueState::claim_front(std::size_t limit, std::int64_t ts, OnClaim&& on_claim) {
  std::size_t claimed = 0;
  while (claimed < limit && !order_.empty()) {
    // Claimed or stale: either way no longer a live FIFO entry.
    const OrderEntry front = pop_order_front();
    if (!live(front)) continue;
    Jobs::Slot& slot = jobs_.at(front.slot);
    set_status(slot.value, JobStatus::processing);
    slot.value.ts = ts;
    on_claim(slot.id(), static_cast<const JobEntry&>(slot.value));
    ++claimed;
  }
  return claimed;
}

template <typename Fn>
void QueueState::for_each_order_entry(Fn&& fn) const {
  for (const OrderRun& run : order_) {
    for (std::uint32_t k = 0; k < run.count; ++k) {
      if (!fn(run.entry(k))) return;
    }
  }
}

}  // namespace storh::engines::queue
