// record_query.h: which records a read returns (engine-spec.md section 3.1).
//
// A RecordQuery is an immutable value: every modifier returns a changed copy, so a
// query can be shared and extended freely. Evaluation is const and thread-safe.
//
//   auto query = RecordQuery::all().time_range_ms(from, std::nullopt).where_equal("kind", "page");
//   if (query.matches_data(id, data)) ...
//
// Ids are compared as byte strings (unsigned bytes, then length), never parsed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/record.h"

namespace storh::engines {

class RecordQuery {
 public:
  // The empty query: matches every record, no limit. Same as RecordQuery().
  static RecordQuery all() { return RecordQuery(); }

  // Records with id > `id`. Throws std::invalid_argument("Invalid UUIDv7 value.")
  // unless uuid_v7::is_valid(id).
  [[nodiscard]] RecordQuery after(std::string_view id) const;

  // Records whose id lies in [min_for_timestamp_ms(from), max_for_timestamp_ms(until)],
  // both ends inclusive; nullopt leaves that end open. Replaces an earlier range.
  // Throws std::out_of_range for a bound outside 0 ... 2^48-1.
  [[nodiscard]] RecordQuery time_range_ms(std::optional<std::int64_t> from_ms,
                                          std::optional<std::int64_t> until_ms) const;

  // At most `count` records from a scan. Throws std::invalid_argument if count < 1.
  // A scan property: matches_*() ignore it.
  [[nodiscard]] RecordQuery limit(std::int64_t count) const;

  // Records whose data has `field` present and strictly identical to `value` (see
  // json_values.h: 1 matches neither 1.0 nor "1"; a missing field never matches, a
  // present null matches null). Several fields are ANDed; a repeated field replaces its
  // earlier value. "id" here is a data field, not the record id. Throws
  // std::invalid_argument if `field` is blank or `value` is an array or object.
  [[nodiscard]] RecordQuery where_equal(std::string_view field, Json value) const;

  // The id bounds only (after, time range).
  bool matches_id(std::string_view id) const noexcept;
  // The id bounds and every equality filter.
  bool matches_data(std::string_view id, const Json& data) const noexcept;

  // Whether any of after, time range or equality is set.
  bool filters_records() const noexcept;
  // Whether any equality filter is set.
  bool filters_data() const noexcept { return !equals_.empty(); }

  const std::optional<std::string>& after_id() const noexcept { return after_; }
  std::optional<std::int64_t> from_ms() const noexcept { return from_ms_; }
  std::optional<std::int64_t> until_ms() const noexcept { return until_ms_; }
  // The inclusive id bounds the time range implies.
  const std::optional<std::string>& lower_id() const noexcept { return lower_; }
  const std::optional<std::string>& upper_id() const noexcept { return upper_; }
  std::optional<std::int64_t> limit_count() const noexcept { return limit_; }
  // Equality filters in the order their fields were first given.
  const std::vector<std::pair<std::string, Json>>& equals() const noexcept { return equals_; }

 private:
  std::optional<std::string> after_;
  std::optional<std::int64_t> from_ms_;
  std::optional<std::int64_t> until_ms_;
  std::optional<std::string> lower_;
  std::optional<std::string> upper_;
  std::optional<std::int64_t> limit_;
  std::vector<std::pair<std::string, Json>> equals_;
};

}  // namespace storh::engines
