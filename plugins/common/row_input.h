// row_input.h: the envelope rules for bulk inputs (engine-spec.md section 1.1), shared by
// putMany/putStream/importJsonl (doc) and appendMany/appendStream (log); the queue uses
// the same rule with the key "payload".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/record.h"

namespace storh::engines {

struct RowInput {
  std::optional<std::string> id;  // set only when row["id"] is a string (not validated here)
  Json data;
};

// id = row["id"] when it is a string; data = row[data_key] when that key exists and is an
// array or object, else the whole row (an "id" key then stays inside the data). A row
// that is not an object is taken whole as data with no id.
RowInput split_row(Json row, std::string_view data_key = "data");

// The same parts, in place: pointers into `row` (valid while it lives unchanged), found
// in one pass over its keys, for a caller that only reads them (the queue encodes the
// data straight into its log line). `id` is nullptr when there is none; `data` is never
// nullptr.
struct RowParts {
  const std::string* id = nullptr;
  const Json* data = nullptr;
};
RowParts row_parts(const Json& row, std::string_view data_key = "data");

}  // namespace storh::engines
