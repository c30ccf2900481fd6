#include "common/row_input.h"

#include <utility>

namespace storh::engines {

RowParts row_parts(const Json& row, std::string_view data_key) {
  RowParts parts;
  parts.data = &row;
  if (!row.is_object()) return parts;
  // The first member of each name, as find() takes it.
  bool id_seen = false;
  bool data_seen = false;
  for (const auto& [key, value] : row.get_ref<const Json::object_t&>()) {
    if (!id_seen && key == "id") {
      id_seen = true;
      if (value.is_string()) parts.id = &value.get_ref<const std::string&>();
    }
    if (!data_seen && key == data_key) {
      data_seen = true;
      if (value.is_object() || value.is_array()) parts.data = &value;
    }
  }
  return parts;
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): `row` is moved from, through `parts`
RowInput split_row(Json row, std::string_view data_key) {
  const RowParts parts = row_parts(row, data_key);
  RowInput input;
  if (parts.id != nullptr) input.id = *parts.id;
  // `data` is `row` or one of its members, and `row` is this function's own: move it.
  input.data = std::move(const_cast<Json&>(*parts.data));
  return input;
}

}  // namespace storh::engines
