// fuzz/queue_log_fuzz.cpp: the queue engine's queue.log replay on arbitrary bytes, as
// opening a queue runs it: apply_log_lines into a fresh QueueState (decoding every line
// with decode_event_line until the first bad one), then the state's views. A bad line
// is data (ReplayOutcome); any exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "queue/log_replay.h"
#include "queue/queue_state.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace queue = storh::engines::queue;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  constexpr std::int64_t kNow = 1'700'000'000;
  queue::QueueState state;
  const queue::ReplayOutcome outcome = queue::apply_log_lines(bytes, kNow, state);
  if (outcome.applied_bytes > bytes.size()) __builtin_trap();
  (void)state.counts();
  (void)state.effective_pending_order();
  (void)state.claim_front(2, kNow, [](std::string_view, const queue::JobEntry&) {});
  return 0;
}
