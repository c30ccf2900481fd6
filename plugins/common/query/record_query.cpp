#include "common/query/record_query.h"

#include <stdexcept>

#include "common/query/json_values.h"
#include "common/uuid_v7.h"

namespace storh::engines {

RecordQuery RecordQuery::after(std::string_view id) const {
  uuid_v7::assert_valid(id);
  RecordQuery copy = *this;
  copy.after_ = std::string(id);
  return copy;
}

RecordQuery RecordQuery::time_range_ms(std::optional<std::int64_t> from_ms,
                                       std::optional<std::int64_t> until_ms) const {
  RecordQuery copy = *this;
  copy.from_ms_ = from_ms;
  copy.until_ms_ = until_ms;
  copy.lower_.reset();
  copy.upper_.reset();
  if (from_ms) copy.lower_ = uuid_v7::min_for_timestamp_ms(*from_ms);
  if (until_ms) copy.upper_ = uuid_v7::max_for_timestamp_ms(*until_ms);
  return copy;
}

RecordQuery RecordQuery::limit(std::int64_t count) const {
  if (count < 1) {
    throw std::invalid_argument("RecordQuery: limit must be at least 1, got " +
                                std::to_string(count));
  }
  RecordQuery copy = *this;
  copy.limit_ = count;
  return copy;
}

RecordQuery RecordQuery::where_equal(std::string_view field, Json value) const {
  if (is_blank_field(field)) throw std::invalid_argument("RecordQuery: field must not be blank");
  if (value.is_structured() || value.is_binary()) {
    throw std::invalid_argument("RecordQuery: where_equal(\"" + std::string(field) +
                                "\") needs a string, number, boolean or null, got " +
                                value.type_name());
  }
  RecordQuery copy = *this;
  for (auto& [known, known_value] : copy.equals_) {
    if (known == field) {
      known_value = std::move(value);
      return copy;
    }
  }
  copy.equals_.emplace_back(std::string(field), std::move(value));
  return copy;
}

bool RecordQuery::matches_id(std::string_view id) const noexcept {
  if (after_ && !(id > std::string_view(*after_))) return false;
  if (lower_ && id < std::string_view(*lower_)) return false;
  if (upper_ && id > std::string_view(*upper_)) return false;
  return true;
}

bool RecordQuery::matches_data(std::string_view id, const Json& data) const noexcept {
  if (!matches_id(id)) return false;
  for (const auto& [field, value] : equals_) {
    const Json* actual = find_field(data, field);
    if (actual == nullptr || !strict_equal(*actual, value)) return false;
  }
  return true;
}

bool RecordQuery::filters_records() const noexcept {
  return after_ || lower_ || upper_ || !equals_.empty();
}

}  // namespace storh::engines
