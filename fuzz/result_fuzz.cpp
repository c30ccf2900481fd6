// fuzz/result_fuzz.cpp: the result-file readers on arbitrary text, as the commands take
// them after reading the file:
//   - result::read_result_file (report): parse_json_input<json>, then from_json (our
//     format);
//   - compare::read_comparable (compare, gate): parse_json_input<ordered_json>, then
//     comparable_from_json, which reads our format or storh PHP's
//     (comparable_from_storh_php).
// Expected errors are data; any exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "compare/comparable.h"
#include "result/json.h"
#include "util/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto parsed = storh::parse_json_input<nlohmann::json>(text, "fuzz.json")) {
    const auto result = storh::result::from_json(*parsed, "fuzz.json");
    if (!result) (void)result.error();
  }
  if (const auto parsed = storh::parse_json_input<nlohmann::ordered_json>(text, "fuzz.json")) {
    const auto file = storh::compare::comparable_from_json(*parsed, "fuzz.json");
    if (!file) (void)file.error();
  }
  return 0;
}
