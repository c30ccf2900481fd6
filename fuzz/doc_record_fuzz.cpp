// fuzz/doc_record_fuzz.cpp: the doc engine's record file reader (parse_record) on
// arbitrary bytes. The expected id is a fixed one (the seeds use it) and, when the text
// holds `"id":"` followed by 36 bytes, those bytes too, so mutated ids still get past
// the id check. StoreError is data; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/store_error.h"
#include "doc/record_file.h"

namespace {

constexpr std::string_view kSeedId = "0190a0b0-c0d0-7e0f-8a1b-2c3d4e5f6a7b";

void parse(std::string_view bytes, std::string_view expected_id) {
  try {
    (void)storh::engines::doc::parse_record(bytes, expected_id, "fuzz/data/7b/record.jsonc");
  } catch (const storh::engines::StoreError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  parse(bytes, kSeedId);
  constexpr std::string_view kIdKey = "\"id\":\"";
  if (const std::size_t at = bytes.find(kIdKey); at != std::string_view::npos) {
    const std::string_view id = bytes.substr(at + kIdKey.size(), 36);
    if (id.size() == 36 && id != kSeedId) parse(bytes, id);
  }
  return 0;
}
