// segment_line.h: the records of a log segment (engine-spec.md section 5.2).
//
// Each line is a frame (common/framing.h) around a canonical JSON envelope:
//
//     put     {"op":"put","id":"<id>","data":<data>}
//     delete  {"op":"delete","id":"<id>"}
//
// Reading recognises the envelopes storh itself writes by position, without a JSON parse
// (only the frame's length and checksum are verified); anything else is parsed fully and
// must be an object with a string "op" of "put" or "delete" and a string "id" that is a
// valid UUIDv7 (this port's choice: the state index keys ids as 36 bytes, and every
// storh writer validates ids, so other ids cannot come from a storh log).
//
// All functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/record.h"

namespace storh::engines::log {

enum class LineOp { put, remove };

// Appends the framed put line (LF included) for (id, data) to `out`. Returns its size.
std::size_t append_put_line(std::string& out, std::string_view id, const Json& data);
// Appends the framed delete line for `id`. Returns its size.
std::size_t append_delete_line(std::string& out, std::string_view id);

enum class LineStatus {
  ok,
  malformed,     // framing broken: "Malformed segmented log line"
  corrupt,       // checksum mismatch: "Corrupt segmented log line"
  not_envelope,  // JSON is not a record envelope
};

// One decoded line. Views point into the line given to decode_line.
struct LineView {
  LineStatus status = LineStatus::malformed;
  LineOp op = LineOp::put;
  std::string_view id;
  std::string_view json;       // the whole envelope
  std::string_view data_json;  // canonical puts only: the bytes of <data>; else empty
  bool canonical = false;      // recognised by position (no parse was needed)
};

// Decodes `line` given WITHOUT its LF (one trailing CR is ignored, as in storh).
LineView decode_line(std::string_view line) noexcept;

// The record data of a put line: parses data_json when the line is canonical, else the
// whole envelope (its "data" member, or [] when absent). Throws nlohmann's parse_error
// only for a non-canonical line that decode_line accepted (never happens).
Json line_data(const LineView& line);

// Human text: "Malformed segmented log line", "Corrupt segmented log line", ...
std::string_view describe(LineStatus status) noexcept;

}  // namespace storh::engines::log
