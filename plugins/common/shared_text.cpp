#include "common/shared_text.h"

#include <cstring>
#include <ostream>
#include <utility>

namespace storh::engines {

SharedText::SharedText(std::string_view text) : size_(text.size()) {
  if (text.empty()) return;
  // _for_overwrite: the characters are copied in next, so they need no zeroing first.
  std::shared_ptr<char[]> chars = std::make_shared_for_overwrite<char[]>(text.size());
  std::memcpy(chars.get(), text.data(), text.size());
  chars_ = std::move(chars);
}

std::ostream& operator<<(std::ostream& out, const SharedText& text) {
  return out << text.view();
}

}  // namespace storh::engines
