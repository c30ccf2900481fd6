#include "foreign/read_result.h"

#include <string>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "foreign/document_kind.h"
#include "foreign/google_benchmark.h"
#include "result/json.h"
#include "util/files.h"
#include "util/json_input.h"

namespace storh::foreign {

Expected<result::ResultFile> read_result(const std::filesystem::path& file) {
  Expected<std::string> text = read_input_file(file);
  if (!text) return Error{text.error()};
  Expected<nlohmann::json> parsed = parse_json_input<nlohmann::json>(*text, file.string());
  if (!parsed) return Error{parsed.error()};
  switch (document_kind(*parsed)) {
    case DocumentKind::google_benchmark:
      return from_google_benchmark(*parsed, file.string());
    case DocumentKind::storh_php:
    case DocumentKind::unknown:
      // Not an object: result::from_json says what the document is instead.
      if (!parsed->is_object()) break;
      return Error{
          fmt::format("{}: not a result file: no schema_version (storh-host), and no context and "
                      "benchmarks (Google Benchmark)",
                      file.string())};
    case DocumentKind::storh_host:
      break;
  }
  return result::from_json(*parsed, file.string());
}

}  // namespace storh::foreign
