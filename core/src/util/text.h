// util/text.h: small text helpers every part of the host shares.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace storh {

// `text` without leading and trailing white space (std::isspace: space, tab, CR, LF,
// vertical tab, form feed). A view into `text`.
std::string_view trim(std::string_view text);

// The one way the host reads a number from text (command-line flags, the worker's
// arguments, suite overrides): the whole of `text`, with std::from_chars, so the locale
// never matters. nullopt for empty text, anything left over ("10x", " 10"), a value out
// of range and, for a decimal, infinity or NaN. Callers check their own bounds and word
// their own errors.
std::optional<double> parse_decimal(std::string_view text);       // "10", "2.5", "1e-3", "-1"
std::optional<std::uint64_t> parse_whole(std::string_view text);  // digits only: "0", "42"

}  // namespace storh
