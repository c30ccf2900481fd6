#include "queue/log_replay.h"

#include <cstring>

namespace storh::engines::queue {

ReplayOutcome apply_log_lines(std::string_view bytes, std::int64_t now, QueueState& state) {
  ReplayOutcome outcome;
  QueueEvent event;
  std::size_t at = 0;
  while (at < bytes.size()) {
    const void* newline = std::memchr(bytes.data() + at, '\n', bytes.size() - at);
    const std::size_t end =
        newline == nullptr
            ? bytes.size()
            : static_cast<std::size_t>(static_cast<const char*>(newline) - bytes.data()) + 1;
    const std::string_view line = bytes.substr(at, end - at);
    if (decode_event_line(line, now, event, outcome.error) != DecodeStatus::ok) {
      outcome.stopped_at_bad_line = true;
      break;
    }
    state.apply(event);
    at = end;
    ++outcome.applied_lines;
  }
  outcome.applied_bytes = at;
  return outcome;
}

}  // namespace storh::engines::queue
