// fuzz/result_fuzz.cpp: the result-file readers on arbitrary text. Two paths, as the
// commands take them:
//   - result::read_result_file (report): strict JSON, then from_json (our format);
//   - compare::load_comparable (compare, gate): ordered JSON, then comparable_from_json,
//     which reads our format or storh PHP's (comparable_from_storh_php).
// JSON parse errors and Expected errors are data; any other exception, a crash or a
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "compare/comparable.h"
#include "result/json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  {
    nlohmann::json parsed;
    bool valid = true;
    try {
      parsed = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error&) {
      valid = false;
    }
    if (valid) {
      const auto result = storh::result::from_json(parsed, "fuzz.json");
      if (!result) (void)result.error();
    }
  }
  {
    nlohmann::ordered_json parsed;
    bool valid = true;
    try {
      parsed = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::ordered_json::parse_error&) {
      valid = false;
    }
    if (valid) {
      const auto file = storh::compare::comparable_from_json(parsed, "fuzz.json");
      if (!file) (void)file.error();
    }
  }
  return 0;
}
