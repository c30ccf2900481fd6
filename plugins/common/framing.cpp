#include "common/framing.h"

#include <charconv>

#include "common/hashes.h"
#include "common/hex.h"

namespace storh::engines {
namespace {

std::size_t decimal_digits(std::size_t value) noexcept {
  std::size_t digits = 1;
  while (value >= 10) {
    value /= 10;
    ++digits;
  }
  return digits;
}

}  // namespace

std::size_t frame_size(std::string_view json) noexcept {
  return decimal_digits(json.size()) + 1 + 8 + 1 + json.size() + 1;
}

void append_frame(std::string& out, std::string_view json) {
  char length[24];
  const auto [end, ec] = std::to_chars(length, length + sizeof length, json.size());
  (void)ec;  // 24 characters hold any size_t
  char checksum[8];
  xxh32_hex_to(xxh32(json), checksum);
  out.reserve(out.size() + frame_size(json));
  out.append(length, end);
  out.push_back('\t');
  out.append(checksum, sizeof checksum);
  out.push_back('\t');
  out.append(json);
  out.push_back('\n');
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
