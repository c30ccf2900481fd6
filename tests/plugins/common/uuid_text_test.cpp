// UuidText: the 36 characters of an id held inline; another length is refused.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/uuid_text.h"

using storh::engines::UuidText;

namespace {
constexpr std::string_view kId = "018bcfe5-6800-7000-8000-000000000000";
}  // namespace

TEST_CASE("uuid text: holds the id's 36 characters and compares with text", "[uuid_text]") {
  const UuidText id(kId);
  CHECK(id.view() == kId);
  CHECK(id == kId);
  CHECK(id.str() == std::string(kId));
  CHECK(id == UuidText(kId));
  CHECK_FALSE(id == UuidText("018bcfe5-6800-7000-8000-000000000001"));
  const std::string_view viewed = id;
  CHECK(viewed.data() != kId.data());  // a copy, not a view of the source
  std::ostringstream out;
  out << id;
  CHECK(out.str() == kId);
}

TEST_CASE("uuid text: another length is refused and the default matches no id", "[uuid_text]") {
  CHECK_THROWS_AS(UuidText("018bcfe5"), std::invalid_argument);
  CHECK_THROWS_AS(UuidText(std::string(kId) + "0"), std::invalid_argument);
  CHECK_THROWS_WITH(UuidText(""), "a UUID text is 36 characters, not 0");
  const UuidText none;
  CHECK(none.view().size() == UuidText::kSize);
  CHECK_FALSE(none == kId);
}
