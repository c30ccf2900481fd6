#include "queue/queue_state.h"

#include <algorithm>
#include <utility>

namespace storh::engines::queue {
namespace {

// Stale FIFO entries are dropped in one pass once they outnumber live ones by this much.
constexpr std::size_t kCompactSlack = 4096;

std::string_view status_name(JobStatus status) {
  switch (status) {
    case JobStatus::none:
      return "absent";
    case JobStatus::pending:
      return "pending";
    case JobStatus::processing:
      return "processing";
    case JobStatus::done:
      return "done";
  }
  return "absent";
}

}  // namespace

void QueueState::clear() {
  jobs_.clear();
  order_.clear();
  order_entries_ = 0;
  counts_ = {};
  next_seq_ = 1;
}

LentMemory QueueState::reserve(std::size_t jobs, LentMemory spare) {
  // A typical payload's canonical JSON, rounded up (the benchmark's rows take 85-90
  // bytes): room in the payload arena for a batch of such jobs.
  constexpr std::size_t kTypicalPayloadBytes = 128;
  LentMemory rest = jobs_.reserve(jobs_.size() + jobs);
  payload_arena_.adopt(std::move(spare));
  payload_arena_.reserve(jobs * kTypicalPayloadBytes);
  return rest;
}

void QueueState::set_status(JobEntry& job, JobStatus status) {
  const auto count = [this](JobStatus s) -> std::uint64_t* {
    switch (s) {
      case JobStatus::pending:
        return &counts_.pending;
      case JobStatus::processing:
        return &counts_.processing;
      case JobStatus::done:
        return &counts_.done;
      case JobStatus::none:
        break;
    }
    return nullptr;
  };
  if (std::uint64_t* before = count(job.status)) --*before;
  if (std::uint64_t* after = count(status)) ++*after;
  job.status = status;
  job.seq = next_seq_++;
}

bool QueueState::live(const OrderEntry& order_entry) const {
  // Sequence numbers are never reused: a matching one is this job, still in that place.
  const Jobs::Slot& slot = jobs_.at(order_entry.slot);
  return slot.live && slot.value.status == JobStatus::pending && slot.value.seq == order_entry.seq;
}

void QueueState::push_order(const OrderEntry& entry) {
  ++order_entries_;
  if (!order_.empty()) {
    OrderRun& back = order_.back();
    if (back.count < std::numeric_limits<std::uint32_t>::max() &&
        entry.seq == back.first_seq + back.count && entry.slot == back.first_slot + back.count) {
      ++back.count;
      return;
    }
  }
  order_.push_back({entry.seq, entry.slot, 1});
}

QueueState::OrderEntry QueueState::pop_order_front() {
  OrderRun& front = order_.front();
  const OrderEntry entry = front.entry(0);
  --order_entries_;
  if (--front.count == 0) {
    order_.pop_front();
  } else {
    ++front.first_seq;
    ++front.first_slot;
  }
  return entry;
}

void QueueState::push_pending(std::uint32_t slot, JobEntry& job) {
  set_status(job, JobStatus::pending);
  push_order({job.seq, slot});
  if (order_entries_ > 2 * counts_.pending + kCompactSlack) compact_order();
}

void QueueState::compact_order() {
  std::deque<OrderRun> runs = std::move(order_);
  order_.clear();
  order_entries_ = 0;
  for (const OrderRun& run : runs) {
    for (std::uint32_t k = 0; k < run.count; ++k) {
      if (live(run.entry(k))) push_order(run.entry(k));
    }
  }
}

void QueueState::apply_enqueue(std::string_view id, std::string_view payload) {
  const auto placed = jobs_.emplace(id);
  JobEntry& job = placed.slot->value;
  job.payload = payload_arena_.copy(payload);
  job.has_payload = true;
  job.ts = 0;
  push_pending(placed.index, job);
}

void QueueState::apply_claim(std::string_view id, std::int64_t ts) {
  JobEntry* job = jobs_.find(id);
  if (job == nullptr || job->status != JobStatus::pending) return;
  set_status(*job, JobStatus::processing);
  job->ts = ts;
}

void QueueState::apply_complete(std::string_view id, bool done, std::int64_t ts) {
  JobEntry* job = jobs_.find(id);
  if (job == nullptr) {
    if (!done) return;
    job = &jobs_.emplace(id).slot->value;
  }
  complete_job(id, *job, done, ts);
}

bool QueueState::complete_if_processing(std::string_view id, bool done, std::int64_t ts) {
  JobEntry* job = jobs_.find(id);
  if (job == nullptr || job->status != JobStatus::processing) return false;
  complete_job(id, *job, done, ts);
  return true;
}

void QueueState::complete_job(std::string_view id, JobEntry& job, bool done, std::int64_t ts) {
  job.payload = {};  // a completed job keeps no payload (claimed copies keep theirs)
  job.has_payload = false;
  if (done) {
    set_status(job, JobStatus::done);
    job.ts = ts;
  } else {
    set_status(job, JobStatus::none);
    jobs_.erase(id);
  }
}

void QueueState::apply_requeue(std::string_view id) {
  const std::uint32_t slot = jobs_.index_of(id);
  if (slot == FlatIndex::kNone) return;
  JobEntry& job = jobs_.at(slot).value;
  if (job.status != JobStatus::processing) return;
  job.ts = 0;
  push_pending(slot, job);
}

void QueueState::apply_purge(std::string_view id) {
  JobEntry* job = jobs_.find(id);
  if (job == nullptr) return;
  job->payload = {};
  job->has_payload = false;
  if (job->status == JobStatus::done) set_status(*job, JobStatus::none);
  if (job->status == JobStatus::none) jobs_.erase(id);
}

void QueueState::apply(const QueueEvent& event) {
  switch (event.op) {
    case EventOp::enqueue:
      apply_enqueue(event.id, event.payload);
      return;
    case EventOp::claim:
      apply_claim(event.id, event.ts);
      return;
    case EventOp::complete:
      apply_complete(event.id, event.done, event.ts);
      return;
    case EventOp::requeue:
      apply_requeue(event.id);
      return;
    case EventOp::purge:
      apply_purge(event.id);
      return;
  }
}

const JobEntry* QueueState::find(std::string_view id) const {
  return jobs_.find(id);
}

JobStatus QueueState::status(std::string_view id) const {
  const JobEntry* job = find(id);
  return job == nullptr ? JobStatus::none : job->status;
}

void QueueState::for_each_pending(
    const std::function<bool(std::string_view, const JobEntry&)>& fn) {
  while (!order_.empty() && !live(order_.front().entry(0))) pop_order_front();
  for_each_order_entry([&](const OrderEntry& order_entry) {
    if (!live(order_entry)) return true;
    const Jobs::Slot& slot = jobs_.at(order_entry.slot);
    return fn(slot.id(), slot.value);
  });
}

std::vector<std::string> QueueState::effective_pending_order() const {
  std::vector<std::string> ids;
  ids.reserve(counts_.pending);
  for_each_order_entry([&](const OrderEntry& order_entry) {
    if (live(order_entry)) ids.emplace_back(jobs_.at(order_entry.slot).id());
    return true;
  });
  return ids;
}

std::vector<std::string> QueueState::ids_with(
    JobStatus status, const std::function<bool(const JobEntry&)>& keep) const {
  std::vector<std::pair<std::uint64_t, std::string_view>> selected;
  for (const Jobs::Slot& slot : jobs_.slots()) {
    if (slot.live && slot.value.status == status && keep(slot.value)) {
      selected.emplace_back(slot.value.seq, slot.id());
    }
  }
  std::sort(selected.begin(), selected.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ids;
  ids.reserve(selected.size());
  for (const auto& [seq, id] : selected) ids.emplace_back(id);
  return ids;
}

std::string QueueState::difference(const QueueState& other) const {
  const auto describe_job = [](const JobEntry* job) -> std::string {
    if (job == nullptr) return "absent";
    std::string text(status_name(job->status));
    if (job->status == JobStatus::processing || job->status == JobStatus::done) {
      text += " at " + std::to_string(job->ts);
    }
    text += job->has_payload ? " with payload " + job->payload.str() : " without payload";
    return text;
  };
  const auto same = [](const JobEntry* a, const JobEntry* b) {
    const JobEntry empty;
    if (a == nullptr) a = &empty;
    if (b == nullptr) b = &empty;
    if (a->status != b->status || a->has_payload != b->has_payload) return false;
    if (a->has_payload && a->payload != b->payload) return false;
    const bool timed = a->status == JobStatus::processing || a->status == JobStatus::done;
    return !timed || a->ts == b->ts;
  };
  const auto compare_all = [&](const QueueState& from, const QueueState& to,
                               bool from_is_this) -> std::string {
    for (const Jobs::Slot& slot : from.jobs_.slots()) {
      if (!slot.live) continue;
      const JobEntry* twin = to.find(slot.id());
      if (!same(&slot.value, twin)) {
        const JobEntry* here = from_is_this ? &slot.value : twin;
        const JobEntry* there = from_is_this ? twin : &slot.value;
        return "job " + std::string(slot.id()) + ": " + describe_job(here) + " in memory, " +
               describe_job(there) + " in the log";
      }
    }
    return {};
  };
  if (std::string diff = compare_all(*this, other, true); !diff.empty()) return diff;
  if (std::string diff = compare_all(other, *this, false); !diff.empty()) return diff;
  if (effective_pending_order() != other.effective_pending_order()) {
    return "the pending order differs";
  }
  return {};
}

void QueueState::forget_pending_for_tests() {
  for (Jobs::Slot& slot : jobs_.slots()) {
    if (slot.live && slot.value.status == JobStatus::pending) {
      set_status(slot.value, JobStatus::none);
    }
  }
}

}  // namespace storh::engines::queue
