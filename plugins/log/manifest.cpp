#include "log/manifest.h"

#include <fmt/format.h>

#include "common/canonical_json.h"
#include "common/jsonc.h"
#include "common/record.h"
#include "common/store_error.h"

namespace storh::engines::log {
namespace {

void append_id_or_null(std::string& out, const std::string& id) {
  if (id.empty()) {
    out += "null";
  } else {
    append_json_string(out, id);
  }
}

void append_entry(std::string& out, const SegmentEntry& entry, bool sealed) {
  out += R"({"file":)";
  append_json_string(out, entry.file);
  if (sealed) {
    out += R"(,"index":)";
    append_json_string(out, entry.index);
  }
  out += R"(,"max":)";
  append_id_or_null(out, entry.max);
  out += R"(,"min":)";
  append_id_or_null(out, entry.min);
  out += R"(,"records":)";
  out += std::to_string(entry.records);
  out += entry.ordered ? R"(,"ordered":true)" : R"(,"ordered":false)";
  if (entry.compacted) out += R"(,"compacted":true)";
  out += '}';
}

std::string string_or_empty(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

SegmentEntry decode_entry(const Json& object, std::string_view where) {
  if (!object.is_object() || !object.contains("file") || !object["file"].is_string()) {
    throw StoreError(fmt::format("Invalid segmented log manifest {}: entry without a file", where));
  }
  SegmentEntry entry;
  entry.file = object["file"].get<std::string>();
  entry.index = string_or_empty(object, "index");
  entry.min = string_or_empty(object, "min");
  entry.max = string_or_empty(object, "max");
  const auto records = object.find("records");
  if (records != object.end() && records->is_number_unsigned()) {
    entry.records = records->get<std::uint64_t>();
  }
  const auto ordered = object.find("ordered");
  entry.ordered = ordered == object.end() || !ordered->is_boolean() || ordered->get<bool>();
  const auto compacted = object.find("compacted");
  entry.compacted = compacted != object.end() && compacted->is_boolean() && compacted->get<bool>();
  return entry;
}

}  // namespace

std::string encode_manifest(const Manifest& manifest) {
  std::string out = R"({"nextSegment":)";
  out += std::to_string(manifest.next_segment);
  out += R"(,"sealed":)";
  if (manifest.sealed.empty()) {
    out += "[]";
  } else {
    out += '[';
    for (std::size_t i = 0; i < manifest.sealed.size(); ++i) {
      if (i > 0) out += ',';
      append_entry(out, manifest.sealed[i], true);
    }
    out += ']';
  }
  out += R"(,"active":)";
  append_entry(out, manifest.active, false);
  out += "}\n";
  return out;
}

Manifest decode_manifest(std::string_view text, std::string_view where) {
  Json object;
  try {
    object = decode_object(text);
  } catch (const std::exception& e) {
    throw StoreError(fmt::format("Invalid segmented log manifest {}: {}", where, e.what()));
  }
  Manifest manifest;
  const auto next = object.find("nextSegment");
  if (next != object.end() && next->is_number_unsigned()) {
    manifest.next_segment = next->get<std::uint64_t>();
  }
  const auto sealed = object.find("sealed");
  if (sealed != object.end() && sealed->is_array()) {
    for (const Json& entry : *sealed) manifest.sealed.push_back(decode_entry(entry, where));
  }
  const auto active = object.find("active");
  if (active == object.end()) {
    throw StoreError(fmt::format("Invalid segmented log manifest {}: no active segment", where));
  }
  manifest.active = decode_entry(*active, where);
  manifest.active.index.clear();
  return manifest;
}

std::string encode_sparse_index(const std::vector<SparseEntry>& entries) {
  std::string out;
  out.reserve(16 + entries.size() * 64);
  out += R"({"entries":)";
  if (entries.empty()) {
    out += "[]";
  } else {
    out += '[';
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) out += ',';
      out += R"({"id":)";
      append_json_string(out, entries[i].id);
      out += R"(,"offset":)";
      out += std::to_string(entries[i].offset);
      out += '}';
    }
    out += ']';
  }
  out += "}\n";
  return out;
}

std::optional<std::vector<SparseEntry>> decode_sparse_index(std::string_view text) {
  try {
    const Json object = decode_object(text);
    const auto entries = object.find("entries");
    if (entries == object.end() || !entries->is_array()) return std::nullopt;
    std::vector<SparseEntry> out;
    for (const Json& entry : *entries) {
      if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string() ||
          !entry.contains("offset") || !entry["offset"].is_number_unsigned()) {
        return std::nullopt;
      }
      out.push_back({entry["id"].get<std::string>(), entry["offset"].get<std::uint64_t>()});
    }
    return out;
  } catch (...) {
    return std::nullopt;
  }
}

std::string segment_file_name(std::uint64_t number) {
  return fmt::format("seg-{:06}.ndjson", number);
}

std::string index_file_name(std::string_view segment_file) {
  std::string_view stem = segment_file;
  if (stem.size() > 7 && stem.substr(stem.size() - 7) == ".ndjson") {
    stem.remove_suffix(7);
  }
  return std::string(stem) + ".idx.jsonc";
}

}  // namespace storh::engines::log
