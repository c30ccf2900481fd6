#include "doc/record_file.h"

#include <xxhash.h>

#include <fmt/format.h>

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/jsonc.h"
#include "common/store_error.h"
#include "common/uuid_v7.h"

namespace storh::engines::doc {

void assign_record_file_name(std::string& out, std::string_view id) {
  out.reserve(id.size() + kRecordExtension.size());
  out.assign(id);
  out.append(kRecordExtension);
}

std::string record_file_name(std::string_view id) {
  std::string name;
  assign_record_file_name(name, id);
  return name;
}

bool is_record_file_name(std::string_view name) noexcept {
  return name.size() > kRecordExtension.size() && name.front() != '.' &&
         name.ends_with(kRecordExtension);
}

void require_valid_id(std::string_view id) {
  if (!uuid_v7::is_valid(id)) throw StoreError("Invalid UUIDv7 value.");
}

void require_record_data(const Json& data) {
  if (!data.is_object() && !data.is_array()) {
    throw StoreError(
        fmt::format("Record data must be a JSON object or array, got {}", data.type_name()));
  }
}

void append_record_bytes(std::string& out, std::string_view id, const Json& data) {
  out.append(R"({"id":)");
  append_json_string(out, id);
  out.append(R"(,"data":)");
  append_compact(out, data);
  out.append("}\n");
}

std::string encode_record(std::string_view id, const Json& data) {
  std::string out;
  out.reserve(64);
  append_record_bytes(out, id, data);
  return out;
}

std::optional<std::string_view> framed_data_text(std::string_view bytes, std::string_view id) {
  constexpr std::string_view kOpen = R"({"id":")";
  constexpr std::string_view kData = R"(","data":)";
  if (bytes.ends_with('\n')) bytes.remove_suffix(1);
  if (bytes.size() < kOpen.size() + id.size() + kData.size() + 1 || !bytes.starts_with(kOpen) ||
      bytes.substr(kOpen.size(), id.size()) != id ||
      bytes.substr(kOpen.size() + id.size(), kData.size()) != kData || !bytes.ends_with('}')) {
    return std::nullopt;
  }
  bytes.remove_prefix(kOpen.size() + id.size() + kData.size());
  bytes.remove_suffix(1);
  return bytes;
}

Json parse_record(std::string_view bytes, std::string_view expected_id, std::string_view where) {
  return parse_record(bytes, expected_id, [&] { return std::string(where); });
}

Json parse_record(std::string_view bytes, std::string_view expected_id,
                  FunctionRef<std::string()> where) {
  // A file framed as storh writes it: parse only the data's text. When that text is one
  // JSON value, the file is exactly {"id":<expected_id>,"data":<value>} (framed_data_text),
  // so this is what the general path below returns, without building and freeing the
  // envelope object (a third of a record's parse).
  if (const std::optional<std::string_view> text = framed_data_text(bytes, expected_id);
      text && uuid_v7::is_valid(expected_id)) {
    Json data;
    if (parse_json_fast(*text, data) && (data.is_object() || data.is_array())) return data;
  }
  Json document = parse_json(bytes);
  if (document.is_discarded()) {
    try {
      document = decode_object(bytes);
    } catch (const std::exception& error) {
      throw StoreError(fmt::format("Unreadable storage record {}: {}", where(), error.what()));
    }
  }
  if (!document.is_object()) {
    throw StoreError(fmt::format("Storage record {} must be a JSON object", where()));
  }
  auto id = document.find("id");
  if (id == document.end() || !id->is_string() ||
      !uuid_v7::is_valid(id->get_ref<const std::string&>()) ||
      id->get_ref<const std::string&>() != expected_id) {
    throw StoreError(fmt::format("Storage record id does not match its path: {}", where()));
  }
  auto data = document.find("data");
  if (data == document.end() || !(data->is_object() || data->is_array())) return Json::array();
  return std::move(*data);
}

Hash128 hash_bytes(std::string_view bytes) noexcept {
  const XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  return Hash128{hash.high64, hash.low64};
}

std::string hash_hex(const Hash128& hash) {
  return fmt::format("{:016x}{:016x}", hash.high, hash.low);
}

}  // namespace storh::engines::doc
