// index_lines.h: an index file's '\n'-terminated lines, read forwards from an offset or
// backwards from a line boundary, from the file (pread in growing blocks) or from its
// cached text. The range index reads its windows with them (index_range.cpp).
//
// Contract: visit(std::string_view line) is called for each non-empty line in order
// and returns false to stop; a line view is valid only during its call. A last line
// without '\n' is visited too. Read errors throw StoreError naming the path.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/durable_io.h"
#include "common/store_error.h"

namespace storh::engines::doc {

inline constexpr std::size_t kForwardBlock = std::size_t{64} * 1024;
inline constexpr std::size_t kBackwardBlock = std::size_t{8} * 1024;

// Calls visit(line) for each '\n'-terminated line from `offset`; stops when visit
// returns false. Returns the number of bytes read.
template <typename Visit>
std::uint64_t read_lines_forward(int fd, std::uint64_t offset, const std::filesystem::path& path,
                                 Visit&& visit) {
  std::string buffer;
  // A narrow window is a few KB: start small, double up to kForwardBlock.
  std::string block(kForwardBlock / 8, '\0');
  std::uint64_t read = 0;
  for (;;) {
    if (read > 0 && block.size() < kForwardBlock) block.resize(block.size() * 2);
    const std::size_t got = pread_some(fd, block.data(), block.size(), offset, path);
    if (got == 0) break;
    offset += got;
    read += got;
    buffer.append(block.data(), got);
    std::size_t start = 0;
    for (;;) {
      const std::size_t end = buffer.find('\n', start);
      if (end == std::string::npos) break;
      if (end > start && !visit(std::string_view(buffer).substr(start, end - start))) return read;
      start = end + 1;
    }
    buffer.erase(0, start);
  }
  if (!buffer.empty()) visit(std::string_view(buffer));
  return read;
}

// Same, backwards from `end` (a line boundary) towards the file start.
template <typename Visit>
std::uint64_t read_lines_backward(int fd, std::uint64_t end, const std::filesystem::path& path,
                                  Visit&& visit) {
  std::string buffer;  // bytes [pos, end) not yet visited
  std::uint64_t pos = end;
  std::string block(kBackwardBlock, '\0');
  for (;;) {
    if (!buffer.empty()) {
      const std::size_t body = buffer.back() == '\n' ? buffer.size() - 1 : buffer.size();
      const std::size_t nl = body == 0 ? std::string::npos : buffer.rfind('\n', body - 1);
      if (nl != std::string::npos || pos == 0) {
        const std::size_t start = nl == std::string::npos ? 0 : nl + 1;
        const std::string line = buffer.substr(start, body - start);
        buffer.resize(start);
        if (!line.empty() && !visit(std::string_view(line))) return end - pos;
        continue;
      }
    }
    if (pos == 0) return end;
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(pos, kBackwardBlock));
    pos -= want;
    const std::size_t got = pread_some(fd, block.data(), want, pos, path);
    if (got != want) throw StoreError("short read of " + path.string());
    buffer.insert(0, block.data(), got);
  }
}

// read_lines_forward / read_lines_backward over the cached text of the whole file.
template <typename Visit>
void text_lines_forward(std::string_view text, std::uint64_t offset, Visit&& visit) {
  std::size_t start = static_cast<std::size_t>(std::min<std::uint64_t>(offset, text.size()));
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start && !visit(text.substr(start, end - start))) return;
    start = end + 1;
  }
}

template <typename Visit>
void text_lines_backward(std::string_view text, std::uint64_t end, Visit&& visit) {
  std::size_t stop = static_cast<std::size_t>(std::min<std::uint64_t>(end, text.size()));
  while (stop > 0) {
    const std::size_t body = text[stop - 1] == '\n' ? stop - 1 : stop;
    const std::size_t nl = body == 0 ? std::string_view::npos : text.rfind('\n', body - 1);
    const std::size_t start = nl == std::string_view::npos ? 0 : nl + 1;
    if (body > start && !visit(text.substr(start, body - start))) return;
    stop = start;
  }
}

}  // namespace storh::engines::doc
