// IndexManager::verify (engine-spec.md 4.7.8): recompute the expected equality, compound
// and range contents from a full disk scan and compare them with the files.
#include <algorithm>
#include <map>
#include <set>

#include "common/durable_io.h"
#include "common/query/json_values.h"
#include "doc/doc_store.h"
#include "doc/index_files.h"
#include "doc/index_keys.h"
#include "doc/index_manager.h"

namespace storh::engines::doc {
namespace {

using ExpectedBuckets = std::map<std::string, std::vector<std::string>>;  // key -> ids

// Compares the bucket files of one directory with the expected buckets.
void verify_bucket_dir(const std::filesystem::path& dir, std::string_view field,
                       std::string_view kind, bool check_key, ExpectedBuckets expected,
                       std::vector<std::string>& errors) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::filesystem::path& path = entry.path();
      if (path.extension() != ".jsonc" || path.filename().string().front() == '.') continue;
      std::string text;
      try {
        text = read_file_bytes(path);
      } catch (const std::exception&) {
        errors.push_back("Unreadable index file: " + path.string());
        continue;
      }
      const std::optional<Bucket> bucket = parse_bucket(text);
      if (!bucket) {
        errors.push_back("Malformed index file: " + path.string());
        continue;
      }
      const std::string stem = path.stem().string();
      if (bucket->field != field) errors.push_back("Index field mismatch: " + path.string());
      if (check_key && bucket->key != stem) {
        errors.push_back("Index key mismatch: " + path.string());
      }
      if (bucket->count != static_cast<std::int64_t>(bucket->ids.size())) {
        errors.push_back("Index count mismatch: " + path.string());
      }
      std::vector<std::string> ids = bucket->ids;
      std::sort(ids.begin(), ids.end());
      const auto it = expected.find(stem);
      if (it == expected.end() || it->second != ids) {
        errors.push_back("Index mismatch (" + std::string(kind) + "): " + std::string(field) + "=" +
                         stem);
      }
      if (it != expected.end()) expected.erase(it);
    }
  }
  for (const auto& [key, ids] : expected) {
    errors.push_back("Index mismatch (" + std::string(kind) + "): " + std::string(field) + "=" +
                     key);
  }
}

// Applies one range file's lines to `actual` ((key, id) pairs); reports bad lines.
void read_range_file(const std::filesystem::path& path,
                     std::set<std::pair<std::string, std::string>>& actual,
                     std::vector<std::string>& errors) {
  std::string text;
  if (!read_file_if_exists(path, text)) return;
  std::size_t start = 0;
  RangeLine line;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view raw = std::string_view(text).substr(start, end - start);
    start = end + 1;
    if (raw.empty()) continue;
    if (!parse_range_line(raw, line)) {
      errors.push_back("Malformed range index line: " + path.string());
      continue;
    }
    Json value;
    try {
      value = line.value();
    } catch (const std::exception&) {
      errors.push_back("Malformed range index line: " + path.string());
      continue;
    }
    if (line.key != range_key(value)) {
      errors.push_back("Range index key mismatch: " + path.string());
    }
    if (line.count != static_cast<std::int64_t>(line.ids.size()) -
                          static_cast<std::int64_t>(line.remove.size())) {
      errors.push_back("Index count mismatch: " + path.string());
    }
    for (std::string_view id : line.ids) actual.emplace(std::string(line.key), std::string(id));
    for (std::string_view id : line.remove) {
      actual.erase({std::string(line.key), std::string(id)});
    }
  }
}

}  // namespace

std::vector<std::string> IndexManager::verify() {
  const std::vector<IndexDefinition> defs = definitions();
  std::vector<std::string> errors;
  if (defs.empty()) return errors;
  const auto pairs = compound_pairs();

  std::map<std::string, ExpectedBuckets> eq_expected;
  std::map<std::string, std::set<std::pair<std::string, std::string>>> range_expected;
  std::vector<ExpectedBuckets> pair_expected(pairs.size());
  store_.scan_disk(
      [&](const RecordView& record) {
        const Json& data = *record.data;
        const std::string id(record.id);
        for (const IndexDefinition& def : defs) {
          const Json* value = find_field(data, def.field);
          if (value == nullptr || !is_indexable(*value)) continue;
          if (def.range) {
            range_expected[def.field].emplace(range_key(*value), id);
          } else {
            eq_expected[def.field][value_key(*value)].push_back(id);
          }
        }
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          const Json* left = find_field(data, pairs[i].first);
          const Json* right = find_field(data, pairs[i].second);
          if (left == nullptr || right == nullptr || !is_indexable(*left) ||
              !is_indexable(*right)) {
            continue;
          }
          pair_expected[i][compound_key(*left, *right)].push_back(id);
        }
        return true;
      },
      [](std::string_view, std::string_view) {});  // corrupt records: the store reports them

  for (const IndexDefinition& def : defs) {
    if (def.range) {
      const RangePaths paths = RangePaths::in(entries_dir() / "range", def.field);
      std::set<std::pair<std::string, std::string>> actual;
      read_range_file(paths.base, actual, errors);
      read_range_file(paths.delta, actual, errors);
      if (actual != range_expected[def.field]) {
        errors.push_back("Index mismatch (range): " + def.field);
      }
      continue;
    }
    verify_bucket_dir(entries_dir() / "eq" / hex_bytes(def.field), def.field, "equality", true,
                      std::move(eq_expected[def.field]), errors);
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    verify_bucket_dir(compound_dir(pairs[i].first, pairs[i].second),
                      pairs[i].first + "\t" + pairs[i].second, "compound", false,
                      std::move(pair_expected[i]), errors);
  }
  return errors;
}

}  // namespace storh::engines::doc
