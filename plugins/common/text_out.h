// text_out.h: TextOut, appending to a std::string through a raw pointer, for encoders
// that write many short pieces (canonical JSON, the queue's event lines).
//
// Why not std::string::append and push_back: each piece was a call with its own
// capacity check and size update; encoding a five-field payload made some 40 of them
// and that was most of the queue's enqueue_many. Here an encoder asks for
// room once per value (room(n)), writes through the pointer it gets and moves the end
// forward (advance, or set_end for a pointer it carried along).
//
// Contract: while a TextOut lives it owns its string's tail: the string's size() then
// also counts room not yet written (zero-filled by resize), and nothing else may use
// the string. finish() (or the destructor) cuts it back to what was written; the
// characters the string held before are never changed unless the encoder writes to
// them through at(). A pointer from room() or at() is valid until the next room(). Not
// thread-safe, like the string.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace storh::engines {

class TextOut {
 public:
  // `out` is a std::basic_string<char> with any allocator (the queue's chunk buffer maps
  // huge pages, huge_pages.h); only growing and finishing go through its type.
  template <class String>
  explicit TextOut(String& out) noexcept
      : out_(&out),
        resize_(&resize_string<String>),
        begin_(out.data()),
        end_(begin_ + out.size()),
        limit_(end_) {}
  ~TextOut() { finish(); }
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;

  // Where the next `n` characters go; write at most `n`, then advance() or set_end().
  char* room(std::size_t n) {
    if (static_cast<std::size_t>(limit_ - end_) < n) grow(n);
    return end_;
  }
  void advance(std::size_t n) noexcept { end_ += n; }
  // `end` is a pointer into the room last asked for, past what was written there.
  void set_end(char* end) noexcept { end_ = end; }

  void put(char c) {
    *room(1) = c;
    ++end_;
  }
  void put(std::string_view text) {
    std::memcpy(room(text.size()), text.data(), text.size());
    end_ += text.size();
  }

  // Characters of the string written so far, those it held before included.
  std::size_t size() const noexcept { return static_cast<std::size_t>(end_ - begin_); }
  // The character at `offset` (< size()), to fill in or move what was written.
  char* at(std::size_t offset) noexcept { return begin_ + offset; }

  // Cuts the string back to size(). The TextOut may go on writing afterwards.
  void finish() noexcept;

 private:
  using Resize = char* (*)(void* string, std::size_t size);
  // Resizes the string (zero-filling what it adds) and returns its characters.
  template <class String>
  static char* resize_string(void* string, std::size_t size) {
    auto& out = *static_cast<String*>(string);
    out.resize(size);
    return out.data();
  }

  void grow(std::size_t n);

  void* out_;      // the string, a String of the constructor
  Resize resize_;  // resize_string<String>
  char* begin_;    // the string's characters
  char* end_;      // the end of what was written
  char* limit_;    // the end of the room: begin_ + the string's size()
};

}  // namespace storh::engines
