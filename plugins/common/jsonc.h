// jsonc.h: the tolerant JSON-object reader and the two object writers of engine-spec.md
// section 1.3.
//
// decode_object: trimmed text that looks like an object is strict-parsed first; on
// failure comments (// and /* */, outside strings) and trailing commas are stripped and
// the result is parsed again. The result must be a JSON object.
//
// Deliberate divergence (section 1.3 quirk): storh rejects objects with an integer-like
// key ({"0":1}) because PHP turns such keys into integers. We accept them: they are
// valid JSON objects and nothing in the formats depends on rejecting them.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "common/record.h"

namespace storh::engines {

class JsoncError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws JsoncError ("Jsonc: must decode to an object", or the parser's message).
Json decode_object(std::string_view text);

// The comment and trailing-comma strippers, exposed for tests. Both track string
// literals (a backslash escapes the next character inside one).
std::string strip_comments(std::string_view text);
std::string strip_trailing_commas(std::string_view text);

// Pretty form (4-space indent, ": ") plus "\n"; an empty input is "{}\n".
std::string encode_object(const Json& value);
// Canonical compact JSON plus "\n"; an empty input is "{}\n".
std::string encode_compact_object(const Json& value);

}  // namespace storh::engines
