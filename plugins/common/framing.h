// framing.h: the checksummed line framing of log segments and the queue log
// (engine-spec.md sections 5.2 and 6.1):
//
//     <decimal byte length of JSON> TAB <xxh32 hex of JSON> TAB <JSON> LF
//
// The length counts the JSON bytes only; the checksum is xxh32 (seed 0) of the JSON
// bytes, 8 lower-case hex characters. The framing knows nothing of the JSON inside.
//
// Whether the final LF is required differs by engine (the log tolerates a missing LF,
// the queue does not; engine-spec.md section 13), so decode_frame takes the line WITHOUT its
// LF and callers decide what an unterminated last line means.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace storh::engines {

// Appends one framed line, LF included, to `out`.
void append_frame(std::string& out, std::string_view json);
// The framed line for `json`, LF included.
std::string frame(std::string_view json);
// The size append_frame adds for `json`.
std::size_t frame_size(std::string_view json) noexcept;

enum class FrameStatus {
  ok,
  malformed,  // not "<digits>\t<8 hex>\t<json>", or the length differs from the JSON's
  corrupt,    // well formed, but the checksum differs from xxh32 of the JSON
};

struct DecodedFrame {
  FrameStatus status = FrameStatus::malformed;
  std::string_view json;  // the JSON bytes inside `line` when status == ok
};

// Decodes one line given without its LF. One trailing CR is dropped first (as storh
// does). The length field must be all ASCII digits, the checksum field exactly 8 hex
// digits (either case is accepted on read). The returned view points into `line`.
DecodedFrame decode_frame(std::string_view line) noexcept;

// Human text for a status, for error messages: "malformed line", "corrupt line".
std::string_view describe(FrameStatus status) noexcept;

}  // namespace storh::engines
