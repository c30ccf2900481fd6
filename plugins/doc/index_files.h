// index_files.h: the line formats of the index files (engine-spec.md 4.7.3, 4.7.4) and fast
// readers for them.
//
// Bucket file (equality and compound), one compact line:
//   {"field":"<field>","key":"<value_key>","count":<N>,"value":<value>,"ids":["<id>",...]}\n
// Range line (base and delta files):
//   {"key":"<range_key>","value":<value>,"count":<N>,"ids":[...],"remove":[...]}\n
// Checkpoint file: {"stride":256,"checkpoints":[{"key":"<k>","offset":<o>},...]}\n
//
// The fast readers accept the canonical shape storh writes and fall back to a full JSON
// parse for anything else (hand-edited files stay readable). Malformed text throws
// StoreError("Malformed index file <path>").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"

namespace storh::engines::doc {

inline constexpr std::size_t kCheckpointStride = 256;

// --- Bucket files ---------------------------------------------------------------
std::string encode_bucket(std::string_view field, std::string_view key, const Json& value,
                          const std::vector<std::string>& ids);

struct Bucket {
  std::string field;
  std::string key;
  std::int64_t count = 0;
  Json value;
  std::vector<std::string> ids;
};
// Full parse (verification, rewrites). nullopt when the text is not a bucket object.
std::optional<Bucket> parse_bucket(std::string_view text);

// The ids of a bucket file; nullopt when the file does not exist. At most `limit` ids
// (0 = all). Throws StoreError on unreadable or malformed files.
std::optional<std::vector<std::string>> read_bucket_ids(const std::filesystem::path& path,
                                                        std::size_t limit = 0);
// read_bucket_ids over a bucket file's text; `where` names the file in the error.
std::vector<std::string> bucket_ids_from_text(std::string_view text, std::size_t limit,
                                              const std::filesystem::path& where);
// The first `limit` (>= 1) ids from the start of a bucket file (`head`, possibly cut
// anywhere), by the same rule as bucket_ids_from_text; nullopt when `head` holds fewer.
std::optional<std::vector<std::string>> bucket_ids_from_head(std::string_view head,
                                                             std::size_t limit);
// The "count" of bucket file text; false when the text is not a bucket.
bool parse_bucket_count(std::string_view text, std::int64_t& count);
// The "count" of a bucket file, reading 512-byte blocks until it appears; 0 when the
// file does not exist. The second form reads an open descriptor from its start.
std::int64_t read_bucket_count(const std::filesystem::path& path);
std::int64_t read_bucket_count(int fd, const std::filesystem::path& path);

// --- Range lines ----------------------------------------------------------------
// A base line (count 1, one id, no removes) or a delta line.
std::string encode_range_line(std::string_view key, const Json& value,
                              const std::vector<std::string>& ids,
                              const std::vector<std::string>& remove);

// A parsed range line. Views point into the text given to parse_range_line.
struct RangeLine {
  std::string_view key;
  std::string_view value_text;  // the JSON text of the value
  std::int64_t count = 0;
  std::vector<std::string_view> ids;
  std::vector<std::string_view> remove;
  Json value() const;  // parses value_text
};
// Parses one line (without its "\n"); false when it is not a range line. With
// `with_ids` false only key, value and count are read (ids and remove stay empty) and
// the rest of the line is not checked: for counts, which need nothing else.
bool parse_range_line(std::string_view line, RangeLine& out, bool with_ids = true);
// The key of a line from its literal prefix {"key":"; nullopt when absent.
std::optional<std::string_view> range_line_key(std::string_view line) noexcept;

// --- Checkpoints ----------------------------------------------------------------
struct Checkpoint {
  std::string key;
  std::uint64_t offset = 0;
};
std::string encode_checkpoints(const std::vector<Checkpoint>& checkpoints);
// nullopt when malformed.
std::optional<std::vector<Checkpoint>> parse_checkpoints(std::string_view text);

}  // namespace storh::engines::doc
