// manifest.h: the log's manifest and sparse index files (engine-spec.md sections 5.3, 5.5),
// byte for byte as storh writes them.
//
//   manifest.jsonc   {"nextSegment":N,"sealed":[<sealed entry>...],"active":<entry>}\n
//     sealed entry   {"file":..,"index":..,"max":..,"min":..,"records":R,"ordered":B}
//                    plus "compacted":true for compaction output
//     active entry   {"file":..,"max":..,"min":..,"records":R,"ordered":B}
//   <seg>.idx.jsonc  {"entries":[{"id":..,"offset":..},...]}\n
//
// min/max of an empty segment are written as null (storh leaves them unset).
// Decoding is tolerant (Jsonc: comments, trailing commas) and fills only what it finds;
// a manifest that is not an object with a "active" entry throws StoreError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storh::engines::log {

struct SegmentEntry {
  std::string file;   // "seg-000001.ndjson", "compact-<hex8>-000001.ndjson"
  std::string index;  // sealed only: "<stem>.idx.jsonc"; empty for the active entry
  std::string min;    // empty = unknown (null)
  std::string max;
  std::uint64_t records = 0;  // lines, puts and deletes
  bool ordered = true;
  bool compacted = false;
};

struct Manifest {
  std::uint64_t next_segment = 2;
  std::vector<SegmentEntry> sealed;
  SegmentEntry active;
};

std::string encode_manifest(const Manifest& manifest);
// Throws StoreError naming `where` when the text is not a manifest.
Manifest decode_manifest(std::string_view text, std::string_view where);

struct SparseEntry {
  std::string id;
  std::uint64_t offset = 0;
};
std::string encode_sparse_index(const std::vector<SparseEntry>& entries);
// nullopt when the text is not a sparse index.
std::optional<std::vector<SparseEntry>> decode_sparse_index(std::string_view text);

// "seg-000042.ndjson"; "seg-000042.idx.jsonc" for "seg-000042.ndjson".
std::string segment_file_name(std::uint64_t number);
std::string index_file_name(std::string_view segment_file);

}  // namespace storh::engines::log
