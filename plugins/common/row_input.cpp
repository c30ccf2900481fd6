#include "common/row_input.h"

#include <utility>

namespace storh::engines {

RowInput split_row(Json row, std::string_view data_key) {
  RowInput input;
  if (!row.is_object()) {
    input.data = std::move(row);
    return input;
  }
  if (auto id = row.find("id"); id != row.end() && id->is_string()) {
    input.id = id->get<std::string>();
  }
  if (auto data = row.find(data_key);
      data != row.end() && (data->is_object() || data->is_array())) {
    input.data = std::move(*data);
  } else {
    input.data = std::move(row);
  }
  return input;
}

}  // namespace storh::engines
