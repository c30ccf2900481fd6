// index_keys.h: the key encodings of the secondary indexes (engine-spec.md section 4.7.2).
//
// Pure functions, thread-safe. They define file names (value_key), the sort order of
// range files (range_key) and compound file names (compound_key), so they must match
// storh byte for byte; tests pin the spec's examples.
#pragma once

#include <string>
#include <string_view>

#include "common/record.h"

namespace storh::engines::doc {

// Lower-case hex of the bytes ("kind" -> "6b696e64"): index directory and file names.
std::string hex_bytes(std::string_view bytes);

// Equality file name part: i-<int, '-'->'m'>, s-<hex> (<= 96 bytes) or s-<xxh128>,
// b-1/b-0, f-<%.17G with '-'->'m' '.'->'d' '+'->'p'>, n (null), z-<xxh128 of the PHP
// serialisation> (arrays/objects).
std::string value_key(const Json& value);

// The sortable key of range lines: n-<17-digit int>d000000 for int >= 0; n-<%024.6F with
// '-'->'m' '.'->'d'> for negative ints and floats; s-<hex> for strings (never hashed);
// b-0/b-1; z-<value_key> for anything else.
std::string range_key(const Json& value);

// "c-" + xxh128(value_key(left) + '\0' + value_key(right)).
std::string compound_key(const Json& left, const Json& right);

// Null and scalars get index entries; arrays and objects do not.
bool is_indexable(const Json& value) noexcept;

// The indexable value of `field` in `data` (a dotted path), or nullptr: none when
// `data` is nullptr, the field is absent, or its value is not indexable.
const Json* indexed_value(const Json* data, std::string_view field) noexcept;

// Values whose range-key order equals their compare() order, usable as seek bounds:
// non-negative integers below 10^17, strings, booleans. (Negative numbers and floats
// are never used for seeking, section 4.7.2; integers >= 10^17 would break key order.)
bool is_ordered(const Json& value) noexcept;

// The PHP serialize() text of a JSON value as storh's decoder would hold it (objects
// and lists are PHP arrays). Only for z- keys.
std::string php_serialize(const Json& value);

}  // namespace storh::engines::doc
