// shared_text.h: SharedText, an immutable string shared by reference count, for text an
// engine keeps and also hands out (the queue's job payloads): a copy is a reference, not
// a copy of the characters.
//
// Why not std::string: a claim_many of 10,000 jobs copied every payload (about 130 bytes
// each) into a fresh heap chunk; in a fresh process those copies were page faults, and
// together with the id strings they were 39% of the call (perf, 2026-12-04). Why not
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
  // Whether both share one allocation (a copy of the other), not only equal text; two
  // empty texts share none.
  bool same_storage(const SharedText& other) const noexcept {
    return chars_ != nullptr && chars_ == other.chars_;
  }

  friend bool operator==(const SharedText& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const SharedText& a, const SharedText& b) noexcept {
    return a.view() == b.view();
  }

 private:
  std::shared_ptr<const char[]> chars_;
  std::size_t size_ = 0;
};

// Writes the text (test failure messages print it).
std::ostream& operator<<(std::ostream& out, const SharedText& text);

}  // namespace storh::engines
