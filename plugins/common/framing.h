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

#include "common/text_out.h"

namespace storh::engines {

// Appends one framed line, LF included, to `out`.
void append_frame(std::string& out, std::string_view json);
// The framed line for `json`, LF included.
std::string frame(std::string_view json);
// The size append_frame adds for `json`.
std::size_t frame_size(std::string_view json) noexcept;

// Appends one framed line, LF included, whose JSON write_json(TextOut&) writes straight
// into its place in `out`: no copy of the JSON in between. Returns the offset of the
// JSON in `out`. The length field is given room for the digits of `expected_json_size`;
// a JSON whose length has another number of digits is moved once. If write_json
// throws, `out` may hold part of the line. `out` is a std::basic_string<char> with any
// allocator (as TextOut takes).
template <typename String, typename WriteJson>
std::size_t append_frame_with(String& out, std::size_t expected_json_size,
                              const WriteJson& write_json);

// The parts of append_frame_with: the size of "<len>\t<xxh32>\t" for a JSON of
// `json_size` bytes, and the completion of a line whose JSON was written at `json_at`
// after `head_size` bytes of room from `line_at` (moving it when its head takes another
// size); returns the JSON's final offset.
std::size_t frame_head_size(std::size_t json_size) noexcept;
std::size_t finish_frame(TextOut& text, std::size_t line_at, std::size_t json_at);

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

template <typename String, typename WriteJson>
std::size_t append_frame_with(String& out, std::size_t expected_json_size,
                              const WriteJson& write_json) {
  const std::size_t line_at = out.size();
  TextOut text(out);
  const std::size_t head_size = frame_head_size(expected_json_size);
  text.room(head_size);
  text.advance(head_size);  // filled in by finish_frame, once the JSON's length is known
  const std::size_t json_at = text.size();
  write_json(text);
  return finish_frame(text, line_at, json_at);
}

}  // namespace storh::engines
