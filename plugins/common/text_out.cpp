#include "common/text_out.h"

#include <algorithm>

namespace storh::engines {
namespace {

// Room a TextOut asks for at least when it grows its string: a typical canonical record
// or queue event line, so that one resize serves a whole line.
constexpr std::size_t kMinGrowth = 256;

}  // namespace

void TextOut::finish() noexcept {
  const std::size_t written = size();
  begin_ = resize_(out_, written);  // shrinking: no allocation, cannot throw
  end_ = begin_ + written;
  limit_ = end_;
}

void TextOut::grow(std::size_t n) {
  const std::size_t written = size();
  // resize() zero-fills the new room; std::string doubles its capacity as it grows.
  const std::size_t size = written + std::max(n, kMinGrowth);
  begin_ = resize_(out_, size);
  end_ = begin_ + written;
  limit_ = begin_ + size;
}

}  // namespace storh::engines
