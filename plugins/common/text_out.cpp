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
  out_.resize(written);  // shrinking: no allocation, cannot throw
  end_ = out_.data() + written;
  limit_ = end_;
}

void TextOut::grow(std::size_t n) {
  const std::size_t written = size();
  // resize() zero-fills the new room; std::string doubles its capacity as it grows.
  out_.resize(written + std::max(n, kMinGrowth));
  end_ = out_.data() + written;
  limit_ = out_.data() + out_.size();
}

}  // namespace storh::engines
