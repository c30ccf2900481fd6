// Index file formats (engine-spec.md 4.7.3-4.7.4). The fast paths scan for the literal
// keys storh writes; a JSON string can never contain an unescaped `"ids":[`, so the
// scans cannot be fooled by values.
#include "doc/index_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "common/canonical_json.h"
#include "common/durable_io.h"
#include "common/fast_json.h"
#include "common/store_error.h"

namespace storh::engines::doc {
namespace {

constexpr std::size_t kCountBlock = 512;

[[noreturn]] void malformed(const std::filesystem::path& path) {
  throw StoreError("Malformed index file " + path.string());
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Parses `["a","b",...]` starting at text[pos] == '['. Appends views of the strings
// (which must hold no escapes) and sets pos past ']'. False on anything else.
template <typename Out>
bool parse_plain_string_list(std::string_view text, std::size_t& pos, Out& out, std::size_t limit) {
  if (pos >= text.size() || text[pos] != '[') return false;
  ++pos;
  while (pos < text.size() && is_space(text[pos])) ++pos;
  if (pos < text.size() && text[pos] == ']') {
    ++pos;
    return true;
  }
  while (pos < text.size()) {
    if (text[pos] != '"') return false;
    const std::size_t end = text.find('"', pos + 1);
    if (end == std::string_view::npos) return false;
    const std::string_view item = text.substr(pos + 1, end - pos - 1);
    if (item.find('\\') != std::string_view::npos) return false;
    out.emplace_back(item);
    // Enough ids: the rest of the list is not needed (the caller wants a prefix).
    if (limit != 0 && out.size() >= limit) return true;
    pos = end + 1;
    while (pos < text.size() && is_space(text[pos])) ++pos;
    if (pos >= text.size()) return false;
    if (text[pos] == ']') {
      ++pos;
      return true;
    }
    if (text[pos] != ',') return false;
    ++pos;
    while (pos < text.size() && is_space(text[pos])) ++pos;
  }
  return false;
}

bool parse_int(std::string_view text, std::size_t& pos, std::int64_t& out) {
  const char* first = text.data() + pos;
  const auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), out);
  if (ec != std::errc()) return false;
  pos += static_cast<std::size_t>(ptr - first);
  return true;
}

bool expect(std::string_view text, std::size_t& pos, std::string_view literal) {
  if (text.substr(pos, literal.size()) != literal) return false;
  pos += literal.size();
  return true;
}

// End of the JSON value starting at text[pos] for the canonical range line: a string
// (escapes honoured) or a scalar up to the next ','.
bool skip_value(std::string_view text, std::size_t& pos) {
  if (pos >= text.size()) return false;
  if (text[pos] == '"') {
    for (std::size_t i = pos + 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '"') {
        pos = i + 1;
        return true;
      }
    }
    return false;
  }
  if (text[pos] == '[' || text[pos] == '{') return false;  // not in canonical lines
  const std::size_t end = text.find(',', pos);
  if (end == std::string_view::npos) return false;
  pos = end;
  return true;
}

Json parse_json_or_discarded(std::string_view text) {
  return parse_json(text);
}

bool read_string_list(const Json& list, std::vector<std::string>& out) {
  if (!list.is_array()) return false;
  for (const Json& item : list) {
    if (!item.is_string()) return false;
    out.push_back(item.get<std::string>());
  }
  return true;
}

}  // namespace

std::string encode_bucket(std::string_view field, std::string_view key, const Json& value,
                          const std::vector<std::string>& ids) {
  std::string out;
  out.reserve(80 + field.size() + key.size() + ids.size() * 39);
  out += "{\"field\":";
  append_json_string(out, field);
  out += ",\"key\":";
  append_json_string(out, key);
  out += ",\"count\":";
  out += std::to_string(ids.size());
  out += ",\"value\":";
  append_compact(out, value);
  out += ",\"ids\":[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, ids[i]);
  }
  out += "]}\n";
  return out;
}

std::optional<Bucket> parse_bucket(std::string_view text) {
  const Json doc = parse_json_or_discarded(text);
  if (!doc.is_object()) return std::nullopt;
  Bucket bucket;
  const auto field = doc.find("field");
  const auto key = doc.find("key");
  const auto count = doc.find("count");
  const auto ids = doc.find("ids");
  if (field == doc.end() || !field->is_string() || key == doc.end() || !key->is_string() ||
      count == doc.end() || !count->is_number_integer() || ids == doc.end()) {
    return std::nullopt;
  }
  bucket.field = field->get<std::string>();
  bucket.key = key->get<std::string>();
  bucket.count = count->get<std::int64_t>();
  if (const auto value = doc.find("value"); value != doc.end()) bucket.value = *value;
  if (!read_string_list(*ids, bucket.ids)) return std::nullopt;
  return bucket;
}

std::optional<std::vector<std::string>> read_bucket_ids(const std::filesystem::path& path,
                                                        std::size_t limit) {
  std::string text;
  if (!read_file_if_exists(path, text)) return std::nullopt;
  return bucket_ids_from_text(text, limit, path);
}

std::vector<std::string> bucket_ids_from_text(std::string_view text, std::size_t limit,
                                              const std::filesystem::path& where) {
  std::vector<std::string> ids;
  const std::size_t at = text.find("\"ids\":[");
  if (at != std::string_view::npos) {
    std::size_t pos = at + 6;
    if (parse_plain_string_list(text, pos, ids, limit)) return ids;
  }
  std::optional<Bucket> bucket = parse_bucket(text);
  if (!bucket) malformed(where);
  if (limit != 0 && bucket->ids.size() > limit) bucket->ids.resize(limit);
  return std::move(bucket->ids);
}

std::optional<std::vector<std::string>> bucket_ids_from_head(std::string_view head,
                                                             std::size_t limit) {
  const std::size_t at = head.find("\"ids\":[");
  if (limit == 0 || at == std::string_view::npos) return std::nullopt;
  std::vector<std::string> ids;
  std::size_t pos = at + 6;
  if (!parse_plain_string_list(head, pos, ids, limit) || ids.size() < limit) return std::nullopt;
  return ids;
}

// The number after the first "count": in `seen`, when it is complete (a digit at the end
// of `seen` may continue past it).
std::optional<std::int64_t> scan_count(std::string_view seen) {
  static constexpr std::string_view kCount = "\"count\":";
  const std::size_t at = seen.find(kCount);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t pos = at + kCount.size();
  std::int64_t count = 0;
  if (parse_int(seen, pos, count) && pos < seen.size()) return count;
  return std::nullopt;
}

bool parse_bucket_count(std::string_view text, std::int64_t& count) {
  if (const auto scanned = scan_count(text)) {
    count = *scanned;
    return true;
  }
  std::optional<Bucket> bucket = parse_bucket(text);
  if (!bucket) return false;
  count = bucket->count;
  return true;
}

std::int64_t read_bucket_count(const std::filesystem::path& path) {
  const int fd = open_for_reading_at(AT_FDCWD, path.c_str());
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    throw_errno("open", path);
  }
  UniqueFd owned(fd);
  return read_bucket_count(fd, path);
}

std::int64_t read_bucket_count(int fd, const std::filesystem::path& path) {
  char buffer[kCountBlock * 8];
  std::size_t filled = 0;
  while (filled < sizeof buffer) {
    const std::size_t got = pread_some(fd, buffer + filled, kCountBlock, filled, path);
    if (got == 0) break;
    filled += got;
    if (const auto count = scan_count(std::string_view(buffer, filled))) return *count;
  }
  std::optional<Bucket> bucket = parse_bucket(read_file_bytes(path));
  if (!bucket) malformed(path);
  return bucket->count;
}

std::string encode_range_line(std::string_view key, const Json& value,
                              const std::vector<std::string>& ids,
                              const std::vector<std::string>& remove) {
  std::string out;
  out.reserve(96 + key.size());
  out += "{\"key\":";
  append_json_string(out, key);
  out += ",\"value\":";
  append_compact(out, value);
  out += ",\"count\":";
  out += std::to_string(static_cast<std::int64_t>(ids.size()) -
                        static_cast<std::int64_t>(remove.size()));
  out += ",\"ids\":[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, ids[i]);
  }
  out += "],\"remove\":[";
  for (std::size_t i = 0; i < remove.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, remove[i]);
  }
  out += "]}\n";
  return out;
}

Json RangeLine::value() const {
  if (value_text.empty()) return nullptr;
  // Integers are the common case (timestamps): skip the parser for them.
  std::int64_t number = 0;
  const auto [ptr, ec] =
      std::from_chars(value_text.data(), value_text.data() + value_text.size(), number);
  if (ec == std::errc() && ptr == value_text.data() + value_text.size()) return Json(number);
  // parse_range_line checks only where the value ends, so a damaged line can hold text
  // that is no JSON value ("a\<0x1e>", tru): malformed, like any other bad index text.
  Json value = parse_json_or_discarded(value_text);
  if (value.is_discarded()) throw StoreError("Malformed index range line value");
  return value;
}

std::optional<std::string_view> range_line_key(std::string_view line) noexcept {
  static constexpr std::string_view kPrefix = "{\"key\":\"";
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::size_t end = line.find('"', kPrefix.size());
  if (end == std::string_view::npos) return std::nullopt;
  return line.substr(kPrefix.size(), end - kPrefix.size());
}

bool parse_range_line(std::string_view line, RangeLine& out, bool with_ids) {
  out.ids.clear();
  out.remove.clear();
  const std::optional<std::string_view> key = range_line_key(line);
  if (key && key->find('\\') == std::string_view::npos) {
    std::size_t pos = 8 + key->size() + 1;
    const std::size_t value_start = pos + 9;
    if (expect(line, pos, ",\"value\":") && skip_value(line, pos)) {
      const std::string_view value_text = line.substr(value_start, pos - value_start);
      if (expect(line, pos, ",\"count\":") && parse_int(line, pos, out.count) &&
          (!with_ids ||
           (expect(line, pos, ",\"ids\":") && parse_plain_string_list(line, pos, out.ids, 0) &&
            expect(line, pos, ",\"remove\":") &&
            parse_plain_string_list(line, pos, out.remove, 0) && expect(line, pos, "}")))) {
        out.key = *key;
        out.value_text = value_text;
        return true;
      }
    }
  }
  // Range lines are only ever written by the index side, in the canonical shape;
  // anything else is reported as malformed by the callers.
  return false;
}

std::string encode_checkpoints(const std::vector<Checkpoint>& checkpoints) {
  std::string out = "{\"stride\":" + std::to_string(kCheckpointStride) + ",\"checkpoints\":[";
  for (std::size_t i = 0; i < checkpoints.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"key\":";
    append_json_string(out, checkpoints[i].key);
    out += ",\"offset\":" + std::to_string(checkpoints[i].offset) + "}";
  }
  out += "]}\n";
  return out;
}

std::optional<std::vector<Checkpoint>> parse_checkpoints(std::string_view text) {
  const Json doc = parse_json_or_discarded(text);
  if (!doc.is_object()) return std::nullopt;
  const auto list = doc.find("checkpoints");
  if (list == doc.end() || !list->is_array()) return std::nullopt;
  std::vector<Checkpoint> out;
  out.reserve(list->size());
  for (const Json& item : *list) {
    if (!item.is_object()) return std::nullopt;
    const auto key = item.find("key");
    const auto offset = item.find("offset");
    if (key == item.end() || !key->is_string() || offset == item.end() ||
        !offset->is_number_unsigned()) {
      return std::nullopt;
    }
    out.push_back({key->get<std::string>(), offset->get<std::uint64_t>()});
  }
  return out;
}

}  // namespace storh::engines::doc
