// log_replay.h: applying a run of queue.log lines to a QueueState (engine-spec.md section
// 6.3). Used for the replay on open and repair, for catching up with other processes'
// events before each operation, and for verify()'s independent replay.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "queue/queue_state.h"

namespace storh::engines::queue {

struct ReplayOutcome {
  // Bytes of `bytes` consumed by applied lines: the first bad line, if any, starts here.
  std::uint64_t applied_bytes = 0;
  std::uint64_t applied_lines = 0;
  bool stopped_at_bad_line = false;  // true when bytes remain after applied_bytes
  std::string error;  // why that line is bad, in PHP's words ("Torn log queue line.")
};

// Decodes and applies the lines of `bytes` in order and stops at the first line that
// fails to decode (section 6.3: missing LF, bad framing or checksum, bad JSON, not an
// object, invalid id, unknown op). `now` is the ts of events without one. Never throws
// for bad lines; they are data.
ReplayOutcome apply_log_lines(std::string_view bytes, std::int64_t now, QueueState& state);

}  // namespace storh::engines::queue
