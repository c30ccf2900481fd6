#include "common/framing.h"

#include <charconv>
#include <cstring>

#include "common/hashes.h"
#include "common/hex.h"

namespace storh::engines {
namespace {

constexpr std::size_t kChecksumDigits = 8;

std::size_t decimal_digits(std::size_t value) noexcept {
  std::size_t digits = 1;
  while (value >= 10) {
    value /= 10;
    ++digits;
  }
  return digits;
}

}  // namespace

std::size_t frame_head_size(std::size_t json_size) noexcept {
  return decimal_digits(json_size) + 1 + kChecksumDigits + 1;
}

std::size_t frame_size(std::string_view json) noexcept {
  return frame_head_size(json.size()) + json.size() + 1;
}

std::size_t finish_frame(TextOut& text, std::size_t line_at, std::size_t json_at) {
  const std::size_t json_size = text.size() - json_at;
  const std::size_t head_size = frame_head_size(json_size);
  if (line_at + head_size != json_at) {
    const std::size_t moved_to = line_at + head_size;
    if (moved_to > json_at) text.room(moved_to - json_at);
    std::memmove(text.at(moved_to), text.at(json_at), json_size);
    text.set_end(text.at(moved_to + json_size));
    json_at = moved_to;
  }
  char* const head = text.at(line_at);
  char* const tab = std::to_chars(head, head + head_size, json_size).ptr;
  tab[0] = '\t';
  xxh32_hex_to(xxh32({text.at(json_at), json_size}), tab + 1);
  tab[1 + kChecksumDigits] = '\t';
  text.put('\n');
  return json_at;
}

void append_frame(std::string& out, std::string_view json) {
  append_frame_with(out, json.size(), [json](TextOut& text) { text.put(json); });
}

std::string frame(std::string_view json) {
  std::string out;
  append_frame(out, json);
  return out;
}

DecodedFrame decode_frame(std::string_view line) noexcept {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t first_tab = line.find('\t');
  if (first_tab == 0 || first_tab == std::string_view::npos || first_tab > 20) return {};
  std::size_t length = 0;
  for (std::size_t i = 0; i < first_tab; ++i) {
    const char c = line[i];
    if (c < '0' || c > '9') return {};
    length = length * 10 + static_cast<std::size_t>(c - '0');
  }
  const std::size_t checksum_at = first_tab + 1;
  if (line.size() < checksum_at + 9 || line[checksum_at + 8] != '\t') return {};
  std::uint32_t expected = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    const unsigned digit = hex_digit(line[checksum_at + i]);
    if (digit == kNotHex) return {};
    expected = (expected << 4) | digit;
  }
  const std::string_view json = line.substr(checksum_at + 9);
  if (json.size() != length) return {};
  if (xxh32(json) != expected) return {FrameStatus::corrupt, {}};
  return {FrameStatus::ok, json};
}

std::string_view describe(FrameStatus status) noexcept {
  switch (status) {
    case FrameStatus::ok:
      return "valid line";
    case FrameStatus::malformed:
      return "malformed line";
    case FrameStatus::corrupt:
      return "corrupt line";
  }
  return "malformed line";
}

}  // namespace storh::engines
