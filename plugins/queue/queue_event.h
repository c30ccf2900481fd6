// queue_event.h: the five events of the queue log (engine-spec.md section 6.1), their exact
// bytes and their decoding.
//
// A queue.log line is the section 5.2 framing `<len>\t<xxh32>\t<json>\n` around one
// event, written with keys in this order (`ts` is Unix seconds):
//
//   {"op":"enqueue","id":"<id>","payload":<object>,"ts":<int>}
//   {"op":"claim","id":"<id>","ts":<int>}
//   {"op":"complete","id":"<id>","done":true|false,"ts":<int>}
//   {"op":"requeue","id":"<id>","ts":<int>}
//   {"op":"purge","id":"<id>","ts":<int>}
//
// The encoders write these bytes exactly as storh's PHP LogQueue does, so a queue written
// by either implementation opens in the other. The decoder accepts what PHP accepts:
// any key order, any JSON spacing, a missing `ts` (taken as "now"), and it rejects what
// PHP rejects: a line without its LF, bad framing or checksum, JSON that is not an
// object or has an integer-like key (PHP arrays turn "0" into 0; section 13.7), an
// id that is not a UUIDv7, an empty op, and an op other than the five above.
//
// Payloads are kept as text: the canonical JSON of the normalised payload object
// (section 6.2: a non-object becomes {}, integer-like keys are dropped; an empty
// payload is written "[]", as PHP writes an empty array).
//
// All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/huge_pages.h"
#include "common/record.h"
#include "common/text_out.h"

namespace storh::engines::queue {

enum class EventOp : std::uint8_t { enqueue, claim, complete, requeue, purge };

std::string_view op_name(EventOp op) noexcept;

// The log queue's buffer of event lines for a batch: a string whose chunk-sized capacity
// is one huge-page block (a SpareLendingResource, huge_pages.h), not 256 pages that each
// fault in. The writers below append to it or to a plain std::string (`Out` is one of
// the two).
using LineBuffer = std::pmr::string;

// One decoded event. `id` and `payload` view into the decoded line or into
// `payload_storage`; copy them before the line goes away.
struct QueueEvent {
  EventOp op = EventOp::enqueue;
  std::string_view id;
  std::string_view payload;  // enqueue only: canonical JSON of the normalised payload
  bool done = false;         // complete only
  std::int64_t ts = 0;
  std::string payload_storage;  // owns the payload text when it had to be re-encoded
};

// Appends one framed event line, LF included, to `out`. `payload_json` must be the
// canonical text normalised_payload() returns. The line is written straight into `out`;
// `scratch` is not used (it stays for the callers of this older form).
template <class Out>
void append_enqueue_line(Out& out, std::string_view id, std::string_view payload_json,
                         std::int64_t ts);
inline void append_enqueue_line(std::string& out, std::string& /*scratch*/, std::string_view id,
                                std::string_view payload_json, std::int64_t ts) {
  append_enqueue_line(out, id, payload_json, ts);
}
// The bytes append_enqueue_line writes for normalised_payload(payload), with the payload
// value normalised and encoded straight into its place in the line: no copy of the payload's text
// in between (enqueue_many's path). Returns the payload's text as it stands in `out`, valid until
// `out` next changes. Throws std::invalid_argument for a payload JSON cannot encode (a NaN); `out`
// may then hold part of the line.
template <class Out>
std::string_view encode_enqueue_line(Out& out, std::string_view id, const Json& payload,
                                     std::int64_t ts);

// The lines of the events that carry only an id (claim, requeue, purge, and complete
// with its `done`) for one op, `done` and ts, as a batch writes them: everything but the
// id and the checksum is formatted once, here, and append() writes a line straight into
// `out` (a claim_many of 10,000 jobs spent a fifth of its time formatting the same ts
// and length again). Throws std::invalid_argument for EventOp::enqueue.
class IdLines {
 public:
  IdLines(EventOp op, std::int64_t ts, bool done = false);
  // Appends the framed line for `id`, LF included.
  template <class Out>
  void append(Out& out, std::string_view id) const;

 private:
  std::string json_head_;    // {"op":"<op>","id":"
  std::string json_tail_;    // ","ts":<ts>}  or  ","done":<done>,"ts":<ts>}
  std::string length_head_;  // "<len>\t" of a line whose id is a UUID (36 characters)
};

// One line, for a single event.
template <class Out>
void append_id_line(Out& out, EventOp op, std::string_view id,
                    std::int64_t ts);  // claim, requeue, purge
template <class Out>
void append_complete_line(Out& out, std::string_view id, bool done, std::int64_t ts);

// The payload as the queue stores it: the canonical compact JSON of `payload` if it is
// an object, with integer-like keys dropped; "[]" for anything else or an empty object.
std::string normalised_payload(const Json& payload);
// Same, appended to `out`.
void append_normalised_payload(std::string& out, const Json& payload);
void write_normalised_payload(TextOut& out, const Json& payload);

// Whether PHP would turn this object key into an integer: "0", "-7", "123", within the
// 64-bit range; not "007", "-0", "+1", "1.0" or " 1".
bool is_integer_like_key(std::string_view key) noexcept;

enum class DecodeStatus { ok, torn, malformed, corrupt, not_object, invalid_event, unsupported };

// Decodes one line given WITH its LF (a line without one is `torn`). On failure
// `error` says why, in PHP's words ("Torn log queue line.", "Corrupt log queue line.",
// "Unsupported log queue event: <op>", ...). `now` is the ts of an event without an
// integer `ts`. Canonical claim/complete/requeue/purge lines decode without a JSON parse.
DecodeStatus decode_event_line(std::string_view line, std::int64_t now, QueueEvent& event,
                               std::string& error);

}  // namespace storh::engines::queue
