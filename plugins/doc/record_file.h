// record_file.h: the record file format and naming of engine-spec.md section 4.2, and the
// hashes the caches keep. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/record.h"
#include "storh/function_ref.h"

namespace storh::engines::doc {

inline constexpr std::string_view kRecordExtension = ".jsonc";

// The shard directory name of `id`: characters 24..25 (the first two of the last group).
// `id` must be a valid UUIDv7 (36 characters).
inline std::string_view shard_of(std::string_view id) noexcept {
  return id.substr(24, 2);
}

// "<id>.jsonc"
std::string record_file_name(std::string_view id);
// Assigns record_file_name(id) to `out`, reusing its buffer (for per-get paths).
void assign_record_file_name(std::string& out, std::string_view id);
// True for "<something>.jsonc" not starting with '.' (temp files start with '.').
bool is_record_file_name(std::string_view name) noexcept;
// The id part of a record file name.
inline std::string_view id_of_file_name(std::string_view name) noexcept {
  return name.substr(0, name.size() - kRecordExtension.size());
}

// Throws StoreError("Invalid UUIDv7 value.") unless uuid_v7::is_valid(id).
void require_valid_id(std::string_view id);
// Throws StoreError unless `data` is a JSON object or array (storh's data is a PHP array).
void require_record_data(const Json& data);

// {"id":"<id>","data":<canonical JSON of data>}\n, appended to `out`.
void append_record_bytes(std::string& out, std::string_view id, const Json& data);
std::string encode_record(std::string_view id, const Json& data);
// The JSON text of "data" inside a record file's bytes framed as append_record_bytes frames
// them ({"id":"<id>","data":<text>}, then an optional newline), so that a copy of the data
// as text needs no encoding; nullopt when the framing differs. The text is not checked:
// in an unusual file (another member after "data") it does not parse as one JSON value,
// and when it does parse, it is the record's data.
std::optional<std::string_view> framed_data_text(std::string_view bytes, std::string_view id);

// Parses a record file's bytes: strict JSON, then the Jsonc reader; the document must be
// an object whose "id" is a valid UUIDv7 equal to `expected_id` (else "Storage record id
// does not match its path"); "data" is taken when it is an array or object, else [].
// Throws StoreError naming `where` (the path) on any failure.
Json parse_record(std::string_view bytes, std::string_view expected_id, std::string_view where);
// The same, building `where` only when it throws.
Json parse_record(std::string_view bytes, std::string_view expected_id,
                  FunctionRef<std::string()> where);

// XXH3-128 of the bytes, the validation hash of HASH mode.
struct Hash128 {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  friend bool operator==(const Hash128&, const Hash128&) = default;
};
Hash128 hash_bytes(std::string_view bytes) noexcept;
// 32 lower-case hex characters (high first), as xxh128_hex writes it.
std::string hash_hex(const Hash128& hash);

}  // namespace storh::engines::doc
