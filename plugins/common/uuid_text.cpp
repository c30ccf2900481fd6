#include "common/uuid_text.h"

#include <ostream>
#include <stdexcept>

namespace storh::engines {

UuidText::UuidText(std::string_view text) {
  if (text.size() != kSize) {
    throw std::invalid_argument("a UUID text is 36 characters, not " + std::to_string(text.size()));
  }
  text.copy(chars_.data(), kSize);
}

std::ostream& operator<<(std::ostream& out, const UuidText& text) {
  return out << text.view();
}

}  // namespace storh::engines
