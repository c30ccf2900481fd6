// log_query.h: the generic query of the log (engine-spec.md section 5.6): OR-ed groups of
// AND-ed QueryConditions, a cursor, an optional order and a limit.
//
// A LogQuery is an immutable value: every modifier returns a changed copy. It only
// describes a query; SegmentedLog::find / first / count run it. Semantics:
//   * a record matches when it has id > cursor (if set) and satisfies every condition
//     of at least one group (no conditions: every record);
//   * without order_by, results come in log position order (stream order); with it,
//     matches are stable-sorted by compare() of the field (descending negates; a
//     missing field sorts as null), then limited.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/query/query_condition.h"

namespace storh::engines::log {

class LogQuery {
 public:
  // Adds a condition to the current (last) group.
  [[nodiscard]] LogQuery where(QueryCondition condition) const;
  [[nodiscard]] LogQuery where(std::string field, std::string_view op, Json value = nullptr) const {
    return where(QueryCondition(std::move(field), op, std::move(value)));
  }
  // Starts a new group (OR) with `condition`.
  [[nodiscard]] LogQuery or_where(QueryCondition condition) const;
  // Records with id > `id`. Throws std::invalid_argument unless `id` is a UUIDv7.
  [[nodiscard]] LogQuery cursor(std::string_view id) const;
  // Throws std::invalid_argument if count < 1.
  [[nodiscard]] LogQuery limit(std::int64_t count) const;
  [[nodiscard]] LogQuery order_by(std::string field, bool descending = false) const;

  const std::vector<std::vector<QueryCondition>>& groups() const noexcept { return groups_; }
  const std::optional<std::string>& cursor_id() const noexcept { return cursor_; }
  std::optional<std::int64_t> limit_count() const noexcept { return limit_; }
  const std::optional<std::string>& order_field() const noexcept { return order_field_; }
  bool descending() const noexcept { return descending_; }

  // Whether (id, data) passes the cursor and the conditions (not the limit).
  bool matches(std::string_view id, const Json& data) const;
  // The single group's conditions when there is exactly one group (else nullptr).
  const std::vector<QueryCondition>* single_group() const noexcept {
    return groups_.size() == 1 ? &groups_.front() : nullptr;
  }

 private:
  std::vector<std::vector<QueryCondition>> groups_;
  std::optional<std::string> cursor_;
  std::optional<std::int64_t> limit_;
  std::optional<std::string> order_field_;
  bool descending_ = false;
};

}  // namespace storh::engines::log
