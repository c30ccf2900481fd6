// canonical_json.h: storh's JSON encoding (engine-spec.md section 1.2), compact and pretty.
//
// Both forms write values exactly as storh's PHP encoder does, so files and orderings
// built on the bytes (compare() of section 3.3, record files, log lines) match:
//   * object keys in insertion order; an empty object is written as [] (PHP arrays
//     have no empty-object form);
//   * "/" and non-ASCII UTF-8 written raw, except U+2028 and U+2029 (\u2028, \u2029);
//     '"' and '\' backslash-escaped; control characters as \b \f \n \r \t or \u00XX
//     (lower-case hex); DEL raw;
//   * integers as plain decimals; floats with the shortest round-trip digits and
//     always a fraction or exponent (1.0, -0.0, 1.0e+20, 1.5e-7): exponent form when
//     the decimal exponent is below -4 or at least 17;
//   * pretty form: 4-space indentation, ": " after keys, one element per line.
//
// Neither form appends a newline; the file writers (Jsonc) add it and write an empty
// top-level object as "{}".
//
// Failure: throws std::invalid_argument for NaN or infinite floats and for binary
// values, which JSON cannot hold. Strings are assumed to be UTF-8, as nlohmann's
// parser guarantees; invalid bytes are copied as they are, where PHP would fail.
#pragma once

#include <string>
#include <string_view>

#include "common/record.h"
#include "common/text_out.h"

namespace storh::engines {

std::string encode_compact(const Json& value);
std::string encode_pretty(const Json& value);

// Append forms. `indent_level` is the depth `value` sits at in an enclosing pretty
// document: its nested lines are indented by 4 * (indent_level + 1) spaces.
void append_compact(std::string& out, const Json& value);
void append_pretty(std::string& out, const Json& value, int indent_level = 0);

// Appends `text` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view text);

// The same bytes written through a TextOut, for an encoder that writes a larger text
// around JSON values (the queue's event lines) without a copy in between.
void write_compact(TextOut& out, const Json& value);
void write_json_string(TextOut& out, std::string_view text);

}  // namespace storh::engines
