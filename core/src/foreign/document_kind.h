// foreign/document_kind.h: which kind of result a parsed JSON document is, decided in
// one place for every reader (compare's, and report's and history's).
#pragma once

namespace storh::foreign {

enum class DocumentKind {
  storh_host,        // has "schema_version" (result/json.h)
  google_benchmark,  // has "context" or "benchmarks"; from_google_benchmark says if one
                     // is missing (foreign/google_benchmark.h)
  storh_php,         // has "results": storh PHP's bench.php or repeat.php
  unknown,           // none of those, or not an object
};

// The first rule that matches, in the order above: a storh-host file that also holds
// a "context" is a storh-host file. Works on nlohmann::json and ordered_json alike.
template <typename Json>
DocumentKind document_kind(const Json& document) {
  if (!document.is_object()) return DocumentKind::unknown;
  if (document.contains("schema_version")) return DocumentKind::storh_host;
  if (document.contains("benchmarks") || document.contains("context")) {
    return DocumentKind::google_benchmark;
  }
  if (document.contains("results")) return DocumentKind::storh_php;
  return DocumentKind::unknown;
}

}  // namespace storh::foreign
