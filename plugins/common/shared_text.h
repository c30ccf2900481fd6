// shared_text.h: SharedText, an immutable string shared by reference count, for text an
// engine keeps and also hands out (the queue's job payloads): a copy is a reference, not
// a copy of the characters.
//
// Why not std::string: a claim_many of 10,000 jobs copied every payload (about 130 bytes
// each) into a fresh heap chunk; in a fresh process those copies were page faults, and
// together with the id strings a large part of the call. Why not
// std::shared_ptr<const std::string>: that is two allocations (the control block with the
// string object, then its characters); here one allocation holds the count and the text.
//
// Contract: the characters never change after construction, so any number of threads
// may read one SharedText and copy or destroy their own copies concurrently (the count
// is std::shared_ptr's, atomic). A default-constructed SharedText is empty and allocates
// nothing; so is a moved-from one. The view a SharedText gives stays valid while any copy
// of it lives.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "common/huge_pages.h"

namespace storh::engines {

class SharedText {
 public:
  SharedText() = default;
  // One allocation holding a copy of `text` (none when it is empty).
  explicit SharedText(std::string_view text);
  SharedText(const SharedText&) = default;
  SharedText& operator=(const SharedText&) = default;
  // The source is left empty (size 0 too, so its view stays valid).
  SharedText(SharedText&& other) noexcept
      : chars_(std::move(other.chars_)), size_(std::exchange(other.size_, 0)) {}
  SharedText& operator=(SharedText&& other) noexcept {
    chars_ = std::move(other.chars_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  ~SharedText() = default;

  std::string_view view() const noexcept { return {chars_.get(), size_}; }
  operator std::string_view() const noexcept { return view(); }
  std::string str() const { return std::string(view()); }
  // Not NUL-terminated; nullptr when empty.
  const char* data() const noexcept { return chars_.get(); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Whether both are the same characters in memory (one is a copy of the other), not
  // only equal text; two empty texts share none.
  bool same_storage(const SharedText& other) const noexcept {
    return chars_ != nullptr && chars_ == other.chars_;
  }

  friend bool operator==(const SharedText& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const SharedText& a, const SharedText& b) noexcept {
    return a.view() == b.view();
  }

 private:
  friend class SharedTextArena;
  SharedText(std::shared_ptr<const char[]> chars, std::size_t size) noexcept
      : chars_(std::move(chars)), size_(size) {}

  std::shared_ptr<const char[]> chars_;
  std::size_t size_ = 0;
};

// Makes SharedTexts that share blocks of kBlockBytes instead of taking one allocation
// each, for a table that takes thousands of texts in a row (the queue's job payloads):
// a text then costs a copy and a reference count, not a malloc and later a free.
//
// Contract: a text made here is a SharedText like any other (immutable, shared by
// reference count, valid after the arena is gone), but it keeps its whole block alive
// while it or a copy of it lives: up to kBlockBytes for a text of a few bytes. A text
// larger than kLargeText gets an allocation of its own. After reserve(bytes) of a large
// batch the next texts share one huge-page block (huge_pages.h) of about that size: a
// text may then keep up to that block alive; so may a text made in memory adopt()ed from
// another owner. Not thread-safe (the texts it makes are, as
// any SharedText).
class SharedTextArena {
 public:
  static constexpr std::size_t kBlockBytes = 16 * 1024;
  static constexpr std::size_t kLargeText = kBlockBytes / 8;

  SharedText copy(std::string_view text);
  // Room for about `bytes` of texts to come in one block, when what the current block
  // has left falls short by enough to be worth a huge-page block; otherwise (and once it
  // is full) texts take kBlockBytes blocks as before.
  void reserve(std::size_t bytes);
  // Makes `lent` the current block (texts go there next, and keep its owner alive); a
  // no-op when it is empty.
  void adopt(LentMemory lent);

 private:
  std::shared_ptr<char[]> block_;
  std::size_t block_size_ = 0;  // bytes of block_
  std::size_t used_ = 0;        // bytes of block_ taken by texts
};

// Writes the text (test failure messages print it).
std::ostream& operator<<(std::ostream& out, const SharedText& text);

}  // namespace storh::engines
