#include "common/shared_text.h"

#include <cstring>
#include <ostream>
#include <utility>

#include "common/huge_pages.h"

namespace storh::engines {

SharedText::SharedText(std::string_view text) : size_(text.size()) {
  if (text.empty()) return;
  // _for_overwrite: the characters are copied in next, so they need no zeroing first.
  std::shared_ptr<char[]> chars = std::make_shared_for_overwrite<char[]>(text.size());
  std::memcpy(chars.get(), text.data(), text.size());
  chars_ = std::move(chars);
}

SharedText SharedTextArena::copy(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > kLargeText) return SharedText(text);
  if (block_ == nullptr || block_size_ - used_ < text.size()) {
    // The old block lives on in the texts made from it, and goes with the last of them.
    block_ = std::make_shared_for_overwrite<char[]>(kBlockBytes);
    block_size_ = kBlockBytes;
    used_ = 0;
  }
  char* const chars = block_.get() + used_;
  std::memcpy(chars, text.data(), text.size());
  used_ += text.size();
  // Aliasing: this text's characters, the block's reference count.
  return SharedText(std::shared_ptr<const char[]>(block_, chars), text.size());
}

void SharedTextArena::reserve(std::size_t bytes) {
  const std::size_t room = block_ == nullptr ? 0 : block_size_ - used_;
  if (room >= bytes || !worth_huge_block(bytes - room)) return;
  block_size_ = huge_block_size(bytes);
  block_ = allocate_huge_block(block_size_);
  used_ = 0;
}

void SharedTextArena::adopt(LentMemory lent) {
  if (lent.chars == nullptr || lent.bytes == 0) return;
  block_ = std::move(lent.chars);
  block_size_ = lent.bytes;
  used_ = 0;
}

std::ostream& operator<<(std::ostream& out, const SharedText& text) {
  return out << text.view();
}

}  // namespace storh::engines
