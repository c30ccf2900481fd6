// fuzz/doc_index_fuzz.cpp: the doc engine's index file readers on arbitrary text: the
// bucket file (parse_bucket, the fast and the full id readers, the count scan), range
// lines (each line of the input) and the checkpoint file. StoreError ("Malformed index
// file") is data; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/store_error.h"
#include "doc/index_files.h"

namespace {

namespace doc = storh::engines::doc;

void read_ids(std::string_view text, std::size_t limit) {
  try {
    (void)doc::bucket_ids_from_text(text, limit, "fuzz/indexes/f/bucket.json");
  } catch (const storh::engines::StoreError&) {
  }
}

void read_range_line(std::string_view line) {
  doc::RangeLine range;
  if (doc::parse_range_line(line, range)) {
    try {
      (void)range.value();
    } catch (const storh::engines::StoreError&) {  // a value that is no JSON: malformed
    }
  }
  doc::RangeLine counted;
  (void)doc::parse_range_line(line, counted, false);
  (void)doc::range_line_key(line);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)doc::parse_bucket(text);
  read_ids(text, 0);
  read_ids(text, 1);
  std::int64_t count = 0;
  (void)doc::parse_bucket_count(text, count);
  (void)doc::parse_checkpoints(text);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    read_range_line(text.substr(at, end - at));
    at = end + 1;
  }
  return 0;
}
