// util/shorten.h: values quoted in messages, cut to a readable length.
//
// An error quotes the value it rejects, and a suite or flag can hold a 4 MB string: the
// message keeps the value's start and says how long it was.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace storh {

inline constexpr std::size_t kMaxQuotedBytes = 80;

// `text` itself when it has at most `max_bytes` bytes; else its first bytes (never
// splitting a UTF-8 sequence) followed by "... (N bytes)".
std::string shorten(std::string_view text, std::size_t max_bytes = kMaxQuotedBytes);

}  // namespace storh
