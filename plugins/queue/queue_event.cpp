#include "queue/queue_event.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/framing.h"
#include "common/hashes.h"
#include "common/uuid_v7.h"

namespace storh::engines::queue {
namespace {

constexpr std::size_t kIdSize = uuid_v7::kTextSize;
constexpr std::size_t kMaxIntChars = 20;  // "-9223372036854775808"

template <class Out>
void append_int(Out& out, std::int64_t value) {
  char digits[kMaxIntChars];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  (void)ec;  // 20 characters hold any int64
  out.append(digits, end);
}

// Parses a JSON integer that fits in int64 (PHP's is_int); false otherwise.
bool parse_int(std::string_view text, std::int64_t& value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // Canonical decimals only: no leading zeros, no "-0".
  if ((text.size() > 1 && text[0] == '0') || text.substr(0, 2) == "-0") return false;
  return ec == std::errc() && end == text.data() + text.size();
}

// `{"op":"<op>","id":"<36>"` + middle + `"ts":<int>}` by position, without a JSON parse.
// Only exact canonical lines qualify; anything else goes to the full parser.
bool decode_canonical_id_event(std::string_view json, QueueEvent& event) {
  constexpr std::string_view kOpPrefix = "{\"op\":\"";
  if (json.substr(0, kOpPrefix.size()) != kOpPrefix) return false;
  const std::size_t op_end = json.find('"', kOpPrefix.size());
  if (op_end == std::string_view::npos) return false;
  const std::string_view op = json.substr(kOpPrefix.size(), op_end - kOpPrefix.size());
  if (op == "claim") {
    event.op = EventOp::claim;
  } else if (op == "complete") {
    event.op = EventOp::complete;
  } else if (op == "requeue") {
    event.op = EventOp::requeue;
  } else if (op == "purge") {
    event.op = EventOp::purge;
  } else {
    return false;
  }
  std::string_view rest = json.substr(op_end);
  constexpr std::string_view kIdKey = "\",\"id\":\"";
  if (rest.substr(0, kIdKey.size()) != kIdKey) return false;
  rest.remove_prefix(kIdKey.size());
  if (rest.size() < kIdSize + 1 || rest[kIdSize] != '"') return false;
  const std::string_view id = rest.substr(0, kIdSize);
  rest.remove_prefix(kIdSize + 1);
  event.done = false;
  if (event.op == EventOp::complete) {
    constexpr std::string_view kDoneTrue = ",\"done\":true";
    constexpr std::string_view kDoneFalse = ",\"done\":false";
    if (rest.substr(0, kDoneTrue.size()) == kDoneTrue) {
      event.done = true;
      rest.remove_prefix(kDoneTrue.size());
    } else if (rest.substr(0, kDoneFalse.size()) == kDoneFalse) {
      rest.remove_prefix(kDoneFalse.size());
    } else {
      return false;
    }
  }
  constexpr std::string_view kTsKey = ",\"ts\":";
  if (rest.substr(0, kTsKey.size()) != kTsKey || rest.back() != '}') return false;
  rest.remove_prefix(kTsKey.size());
  rest.remove_suffix(1);
  if (!uuid_v7::is_valid(id) || !parse_int(rest, event.ts)) return false;
  event.id = id;
  event.payload = {};
  return true;
}

DecodeStatus fail(DecodeStatus status, std::string& error, std::string message) {
  error = std::move(message);
  return status;
}

// The slow path: a full parse with PHP's rules (LogQueue::decode_line + apply_event).
DecodeStatus decode_parsed_event(std::string_view json, std::int64_t now, QueueEvent& event,
                                 std::string& error) {
  const Json decoded = parse_json(json);
  if (decoded.is_discarded()) return fail(DecodeStatus::malformed, error, "Syntax error");
  // PHP: an empty array decodes like an empty object (and then has no op).
  const bool empty_array = decoded.is_array() && decoded.empty();
  if (!decoded.is_object() && !empty_array) {
    return fail(DecodeStatus::not_object, error, "Log queue event must be an object.");
  }
  if (decoded.is_object()) {
    for (const auto& item : decoded.items()) {
      if (is_integer_like_key(item.key())) {
        return fail(DecodeStatus::not_object, error, "Log queue event must be an object.");
      }
    }
  }
  const auto field = [&](const char* key) -> const Json* {
    if (!decoded.is_object()) return nullptr;
    const auto found = decoded.find(key);
    return found == decoded.end() ? nullptr : &*found;
  };
  const Json* op = field("op");
  const Json* id = field("id");
  const std::string* op_text = op != nullptr ? op->get_ptr<const std::string*>() : nullptr;
  const std::string* id_text = id != nullptr ? id->get_ptr<const std::string*>() : nullptr;
  if (op_text == nullptr || op_text->empty() || id_text == nullptr ||
      !uuid_v7::is_valid(*id_text)) {
    return fail(DecodeStatus::invalid_event, error, "Invalid log queue event.");
  }
  if (*op_text == "enqueue") {
    event.op = EventOp::enqueue;
  } else if (*op_text == "claim") {
    event.op = EventOp::claim;
  } else if (*op_text == "complete") {
    event.op = EventOp::complete;
  } else if (*op_text == "requeue") {
    event.op = EventOp::requeue;
  } else if (*op_text == "purge") {
    event.op = EventOp::purge;
  } else {
    return fail(DecodeStatus::unsupported, error, "Unsupported log queue event: " + *op_text);
  }
  const Json* ts = field("ts");
  if (ts != nullptr && ts->is_number_integer() &&
      !(ts->is_number_unsigned() &&
        ts->get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
    event.ts = ts->get<std::int64_t>();
  } else {
    event.ts = now;
  }
  const Json* done = field("done");
  event.done = done != nullptr && done->is_boolean() && done->get<bool>();
  // The id text lives in `decoded`; keep it and the payload in payload_storage.
  event.payload_storage.clear();
  if (event.op == EventOp::enqueue) {
    const Json* payload = field("payload");
    if (payload != nullptr) {
      append_normalised_payload(event.payload_storage, *payload);
    } else {
      event.payload_storage = "[]";
    }
  }
  const std::size_t payload_size = event.payload_storage.size();
  event.payload_storage += *id_text;
  event.payload = std::string_view(event.payload_storage).substr(0, payload_size);
  event.id = std::string_view(event.payload_storage).substr(payload_size);
  return DecodeStatus::ok;
}

// The JSON size of a typical enqueue line (a payload of ~100 bytes): the frame leaves
// room for the digits of this length; a line whose length has another number of digits
// is moved once (append_frame_with).
constexpr std::size_t kTypicalEnqueueJsonBytes = 180;

// Appends the framed enqueue line for `id` and `ts`, with write_payload(out) writing the
// payload's JSON in its place; returns the payload's text in `out`.
template <class Out, typename WritePayload>
std::string_view write_enqueue_line(Out& out, std::string_view id, std::int64_t ts,
                                    const WritePayload& write_payload) {
  constexpr std::string_view kHead = "{\"op\":\"enqueue\",\"id\":\"";
  constexpr std::string_view kPayloadKey = "\",\"payload\":";
  constexpr std::string_view kTsKey = ",\"ts\":";
  const std::size_t payload_in_json = kHead.size() + id.size() + kPayloadKey.size();
  std::size_t payload_size = 0;
  const std::size_t json_at = append_frame_with(out, kTypicalEnqueueJsonBytes, [&](TextOut& text) {
    text.put(kHead);
    text.put(id);
    text.put(kPayloadKey);
    const std::size_t payload_at = text.size();
    write_payload(text);
    payload_size = text.size() - payload_at;
    text.put(kTsKey);
    char* const ts_at = text.room(kMaxIntChars);
    text.set_end(std::to_chars(ts_at, ts_at + kMaxIntChars, ts).ptr);
    text.put('}');
  });
  return std::string_view(out).substr(json_at + payload_in_json, payload_size);
}

}  // namespace

std::string_view op_name(EventOp op) noexcept {
  switch (op) {
    case EventOp::enqueue:
      return "enqueue";
    case EventOp::claim:
      return "claim";
    case EventOp::complete:
      return "complete";
    case EventOp::requeue:
      return "requeue";
    case EventOp::purge:
      return "purge";
  }
  return "enqueue";
}

template <class Out>
void append_enqueue_line(Out& out, std::string_view id, std::string_view payload_json,
                         std::int64_t ts) {
  write_enqueue_line(out, id, ts, [payload_json](TextOut& text) { text.put(payload_json); });
}

template <class Out>
std::string_view encode_enqueue_line(Out& out, std::string_view id, const Json& payload,
                                     std::int64_t ts) {
  return write_enqueue_line(out, id, ts,
                            [&payload](TextOut& text) { write_normalised_payload(text, payload); });
}

IdLines::IdLines(EventOp op, std::int64_t ts, bool done) {
  if (op == EventOp::enqueue) throw std::invalid_argument("IdLines: enqueue carries a payload");
  json_head_.assign("{\"op\":\"").append(op_name(op)).append("\",\"id\":\"");
  json_tail_.assign("\",");
  if (op == EventOp::complete) json_tail_.append(done ? "\"done\":true," : "\"done\":false,");
  json_tail_.append("\"ts\":");
  append_int(json_tail_, ts);
  json_tail_.push_back('}');
  append_int(length_head_,
             static_cast<std::int64_t>(json_head_.size() + kIdSize + json_tail_.size()));
  length_head_.push_back('\t');
}

template <class Out>
void IdLines::append(Out& out, std::string_view id) const {
  if (id.size() == kIdSize) {
    out.append(length_head_);
  } else {
    append_int(out, static_cast<std::int64_t>(json_head_.size() + id.size() + json_tail_.size()));
    out.push_back('\t');
  }
  const std::size_t checksum_at = out.size();
  out.append("00000000\t");
  const std::size_t json_at = out.size();
  out.append(json_head_).append(id).append(json_tail_);
  const std::string_view json = std::string_view(out).substr(json_at);
  xxh32_hex_to(xxh32(json), out.data() + checksum_at);
  out.push_back('\n');
}

template <class Out>
void append_id_line(Out& out, EventOp op, std::string_view id, std::int64_t ts) {
  IdLines(op, ts).append(out, id);
}

template <class Out>
void append_complete_line(Out& out, std::string_view id, bool done, std::int64_t ts) {
  IdLines(EventOp::complete, ts, done).append(out, id);
}

// The writers for both kinds of buffer: a std::string and the log queue's LineBuffer.
template void append_enqueue_line(std::string&, std::string_view, std::string_view, std::int64_t);
template void append_enqueue_line(LineBuffer&, std::string_view, std::string_view, std::int64_t);
template std::string_view encode_enqueue_line(std::string&, std::string_view, const Json&,
                                              std::int64_t);
template std::string_view encode_enqueue_line(LineBuffer&, std::string_view, const Json&,
                                              std::int64_t);
template void IdLines::append(std::string&, std::string_view) const;
template void IdLines::append(LineBuffer&, std::string_view) const;
template void append_id_line(std::string&, EventOp, std::string_view, std::int64_t);
template void append_id_line(LineBuffer&, EventOp, std::string_view, std::int64_t);
template void append_complete_line(std::string&, std::string_view, bool, std::int64_t);
template void append_complete_line(LineBuffer&, std::string_view, bool, std::int64_t);

bool is_integer_like_key(std::string_view key) noexcept {
  std::int64_t value = 0;
  if (key.empty() || key.size() > 20) return false;
  const char first = key[0];
  if (first != '-' && (first < '0' || first > '9')) return false;
  return parse_int(key, value);
}

void write_normalised_payload(TextOut& out, const Json& payload) {
  if (!payload.is_object() || payload.empty()) {
    out.put("[]");
    return;
  }
  const Json::object_t& members = payload.get_ref<const Json::object_t&>();
  const bool has_integer_key = std::any_of(members.begin(), members.end(), [](const auto& member) {
    return is_integer_like_key(member.first);
  });
  if (!has_integer_key) {
    write_compact(out, payload);
    return;
  }
  Json kept = Json::object();
  for (const auto& [key, value] : members) {
    if (!is_integer_like_key(key)) kept[key] = value;
  }
  write_compact(out, kept);  // an empty object is written "[]"
}

void append_normalised_payload(std::string& out, const Json& payload) {
  TextOut text(out);
  write_normalised_payload(text, payload);
}

std::string normalised_payload(const Json& payload) {
  std::string out;
  append_normalised_payload(out, payload);
  return out;
}

DecodeStatus decode_event_line(std::string_view line, std::int64_t now, QueueEvent& event,
                               std::string& error) {
  if (line.empty() || line.back() != '\n') {
    return fail(DecodeStatus::torn, error, "Torn log queue line.");
  }
  line.remove_suffix(1);
  const DecodedFrame frame = decode_frame(line);
  if (frame.status == FrameStatus::malformed) {
    return fail(DecodeStatus::malformed, error, "Malformed log queue line.");
  }
  if (frame.status == FrameStatus::corrupt) {
    return fail(DecodeStatus::corrupt, error, "Corrupt log queue line.");
  }
  if (decode_canonical_id_event(frame.json, event)) return DecodeStatus::ok;
  return decode_parsed_event(frame.json, now, event, error);
}

}  // namespace storh::engines::queue
