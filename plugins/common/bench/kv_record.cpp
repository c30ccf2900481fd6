// kv_record.cpp: the record encoding and the byte-store session (kv_record.h).
#include "common/bench/kv_record.h"

#include <algorithm>

namespace storh::engines::bench {

namespace {

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

bool get_varint(std::string_view& in, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool wanted(const std::vector<std::string>& fields, std::string_view name) {
  return fields.empty() || std::find(fields.begin(), fields.end(), name) != fields.end();
}

}  // namespace

void encode_kv_record(const KvRecord& record, std::string& out) {
  out.clear();
  for (const KvField& field : record) {
    put_varint(out, field.name.size());
    put_varint(out, field.value.size());
    out += field.name;
    out += field.value;
  }
}

bool decode_kv_record(std::string_view value, const std::vector<std::string>& fields,
                      KvRecord& out) {
  out.clear();
  while (!value.empty()) {
    std::uint64_t name_size = 0;
    std::uint64_t value_size = 0;
    if (!get_varint(value, name_size) || !get_varint(value, value_size)) return false;
    if (name_size > value.size() || value_size > value.size() - name_size) return false;
    const std::string_view name = value.substr(0, name_size);
    if (wanted(fields, name))
      out.push_back({std::string(name), std::string(value.substr(name_size, value_size))});
    value.remove_prefix(name_size + value_size);
  }
  return true;
}

void merge_kv_fields(KvRecord& stored, const KvRecord& changes) {
  for (const KvField& change : changes) {
    auto it = std::find_if(stored.begin(), stored.end(),
                           [&](const KvField& field) { return field.name == change.name; });
    if (it == stored.end()) {
      stored.push_back(change);
    } else {
      it->value = change.value;
    }
  }
}

Status ByteStoreSession::read(std::string_view key, const std::vector<std::string>& fields,
                              KvRecord& out, KvCode& code) noexcept {
  return guarded("read", [&]() -> Status {
    const std::optional<std::string> value = store_->get(key);
    out.clear();
    code = value ? KvCode::ok : KvCode::not_found;
    if (value && !decode_kv_record(*value, fields, out)) {
      return Status::error("read " + std::string(key) + ": the stored value is not a record");
    }
    return {};
  });
}

Status ByteStoreSession::scan(std::string_view start_key, std::size_t count,
                              const std::vector<std::string>& fields,
                              std::vector<KvRow>& out) noexcept {
  return guarded("scan", [&]() -> Status {
    out.clear();
    bool damaged = false;
    store_->scan(start_key, count, [&](std::string_view key, std::string_view value) {
      KvRow& row = out.emplace_back();
      row.key = key;
      damaged = damaged || !decode_kv_record(value, fields, row.fields);
    });
    if (damaged)
      return Status::error("scan from " + std::string(start_key) +
                           ": a stored value is not a record");
    return {};
  });
}

Status ByteStoreSession::update(std::string_view key, const KvRecord& fields,
                                KvCode& code) noexcept {
  return guarded("update", [&]() -> Status {
    const std::optional<std::string> value = store_->get(key);
    code = value ? KvCode::ok : KvCode::not_found;
    if (!value) return {};
    if (!decode_kv_record(*value, {}, merged_)) {
      return Status::error("update " + std::string(key) + ": the stored value is not a record");
    }
    merge_kv_fields(merged_, fields);
    encode_kv_record(merged_, buffer_);
    store_->put(key, buffer_);
    return {};
  });
}

Status ByteStoreSession::insert(std::string_view key, const KvRecord& fields) noexcept {
  return guarded("insert", [&] {
    encode_kv_record(fields, buffer_);
    store_->put(key, buffer_);
  });
}

Status ByteStoreSession::remove(std::string_view key, KvCode& code) noexcept {
  return guarded("remove", [&] { code = store_->erase(key) ? KvCode::ok : KvCode::not_found; });
}

}  // namespace storh::engines::bench
