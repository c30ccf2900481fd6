// fast_json.h: a parser for the JSON our engines read most (record files, JSONL lines),
// several times faster than nlohmann's, with nlohmann as the judge of everything else.
//
// nlohmann::json::parse builds its values through a generic SAX layer and costs ~4 us
// for a 150-byte record: more than the open, read and close of the file together
// (docs/engines/cache.md). This parser builds the same ordered_json directly, for the
// common subset:
//   * objects, arrays, true, false, null;
//   * integers: without '-' as number_unsigned, with '-' as number_integer, as nlohmann
//     types them (an integer that does not fit 64 bits is out of the subset);
//   * strings of well-formed UTF-8 without control characters, with the escapes
//     \" \\ \/ \b \f \n \r \t.
// Anything else (a fraction or exponent, \u escapes, malformed UTF-8, a repeated object
// key, nesting deeper than kMaxDepth) and every malformed text is outside the subset:
// the function returns false and the caller parses with nlohmann, which either yields
// the value or reports the error as before. So the result is always exactly the value
// nlohmann would build, and only the time differs.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/record.h"

namespace storh::engines {

// Parses `text` (one JSON value, surrounded by optional whitespace) into `out`; false,
// with `out` unspecified, when the text is outside the subset above or malformed.
bool parse_json_fast(std::string_view text, Json& out);

// parse_json_fast, falling back to nlohmann::json::parse (no exceptions: a malformed
// text yields a discarded value, as Json::parse(..., nullptr, false) does).
Json parse_json(std::string_view text);
// The same, but a malformed text throws nlohmann::json::parse_error, as Json::parse does.
Json parse_json_or_throw(std::string_view text);

inline constexpr std::size_t kMaxFastJsonDepth = 256;

}  // namespace storh::engines
