// uuid_text.h: UuidText, the 36 characters of a UUID held inline, for ids an engine hands
// out by the thousand (the queue's claimed jobs).
//
// Why not std::string: 36 characters are past libstdc++'s 15-character inline buffer, so
// each id was a heap chunk of its own; in a fresh process those chunks were page faults,
// a fifth of a claim_many of 10,000 jobs. IdMap keeps ids the same way.
//
// Contract: holds exactly the text it was built from, which must be 36 characters (the
// engines validate ids before they store them; another length throws
// std::invalid_argument). A default-constructed UuidText is 36 NUL characters, never
// equal to a valid id. A plain value: copyable, no allocation, thread-compatible.
#pragma once

#include <array>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

namespace storh::engines {

class UuidText {
 public:
  static constexpr std::size_t kSize = 36;

  UuidText() = default;
  explicit UuidText(std::string_view text);

  std::string_view view() const noexcept { return {chars_.data(), chars_.size()}; }
  operator std::string_view() const noexcept { return view(); }
  std::string str() const { return std::string(view()); }

  friend bool operator==(const UuidText& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const UuidText& a, const UuidText& b) noexcept {
    return a.chars_ == b.chars_;
  }

 private:
  std::array<char, kSize> chars_{};
};

// Writes the text (test failure messages print it).
std::ostream& operator<<(std::ostream& out, const UuidText& text);

}  // namespace storh::engines
