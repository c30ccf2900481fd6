// util/text.h: small text helpers every part of the host shares.
#pragma once

#include <string_view>

namespace storh {

// `text` without leading and trailing white space (std::isspace: space, tab, CR, LF,
// vertical tab, form feed). A view into `text`.
std::string_view trim(std::string_view text);

}  // namespace storh
