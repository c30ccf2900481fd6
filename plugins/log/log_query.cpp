#include "log/log_query.h"

#include <stdexcept>

#include "common/uuid_v7.h"

namespace storh::engines::log {

LogQuery LogQuery::where(QueryCondition condition) const {
  LogQuery copy = *this;
  if (copy.groups_.empty()) copy.groups_.emplace_back();
  copy.groups_.back().push_back(std::move(condition));
  return copy;
}

LogQuery LogQuery::or_where(QueryCondition condition) const {
  LogQuery copy = *this;
  copy.groups_.emplace_back().push_back(std::move(condition));
  return copy;
}

LogQuery LogQuery::cursor(std::string_view id) const {
  uuid_v7::assert_valid(id);
  LogQuery copy = *this;
  copy.cursor_ = std::string(id);
  return copy;
}

LogQuery LogQuery::limit(std::int64_t count) const {
  if (count < 1) throw std::invalid_argument("Query limit must be at least 1.");
  LogQuery copy = *this;
  copy.limit_ = count;
  return copy;
}

LogQuery LogQuery::order_by(std::string field, bool descending) const {
  LogQuery copy = *this;
  copy.order_field_ = std::move(field);
  copy.descending_ = descending;
  return copy;
}

bool LogQuery::matches(std::string_view id, const Json& data) const {
  if (cursor_ && !(id > std::string_view(*cursor_))) return false;
  if (groups_.empty()) return true;
  for (const auto& group : groups_) {
    bool all = true;
    for (const QueryCondition& condition : group) {
      if (!condition.matches_data(id, data)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace storh::engines::log
