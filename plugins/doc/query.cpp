// DocQuery: the builder and the match rule. Execution: query_planner.cpp.
#include "doc/query.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "common/uuid_v7.h"
#include "doc/doc_store.h"
#include "doc/index_manager.h"

namespace storh::engines::doc {

DocQuery::DocQuery(DocStore& store) : store_(&store), groups_(1) {}

DocQuery DocQuery::FieldClause::add(QueryOperator op, Json value, Json second) const {
  return query_.where(QueryCondition(field_, op, std::move(value), std::move(second)));
}

DocQuery DocQuery::where(const QueryCondition& condition) const {
  DocQuery copy = *this;
  for (auto& group : copy.groups_) group.push_back(condition);
  return copy;
}

DocQuery DocQuery::or_where(const std::function<DocQuery(DocQuery)>& build) const {
  const DocQuery built = build(DocQuery(*store_));
  DocQuery copy = *this;
  for (const auto& group : built.groups_) copy.groups_.push_back(group);
  return copy;
}

DocQuery DocQuery::and_where(const std::function<DocQuery(DocQuery)>& build) const {
  const DocQuery built = build(DocQuery(*store_));
  DocQuery copy = *this;
  for (const auto& group : built.groups_) {
    for (const QueryCondition& condition : group) {
      for (auto& target : copy.groups_) target.push_back(condition);
    }
  }
  return copy;
}

DocQuery DocQuery::order_by(std::string field, std::string_view direction) const {
  std::string lower(direction);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "asc" && lower != "desc") {
    throw std::invalid_argument("Query order direction must be asc or desc, got \"" +
                                std::string(direction) + "\".");
  }
  if (field.empty()) throw std::invalid_argument("Query order field must not be blank.");
  DocQuery copy = *this;
  copy.order_ = QueryOrder{std::move(field), lower == "desc"};
  return copy;
}

DocQuery DocQuery::limit(std::int64_t count) const {
  if (count < 1) throw std::invalid_argument("Query limit must be at least 1.");
  DocQuery copy = *this;
  copy.limit_ = static_cast<std::size_t>(count);
  return copy;
}

DocQuery DocQuery::cursor(std::string_view id) const {
  uuid_v7::assert_valid(id);
  DocQuery copy = *this;
  copy.cursor_ = std::string(id);
  return copy;
}

bool DocQuery::has_conditions() const noexcept {
  return std::any_of(groups_.begin(), groups_.end(), [](const auto& g) { return !g.empty(); });
}

bool DocQuery::matches(std::string_view id, const Json& data) const {
  if (cursor_ && !(id > std::string_view(*cursor_))) return false;
  for (const auto& group : groups_) {
    const bool all = std::all_of(group.begin(), group.end(),
                                 [&](const QueryCondition& c) { return c.matches_data(id, data); });
    if (all) return true;
  }
  return false;
}

std::optional<Record> DocQuery::first() const {
  std::optional<SharedRecord> record = first_shared();
  if (!record) return std::nullopt;
  return record->to_record();
}

Json DocQuery::explain() const {
  IndexManager& manager = index_manager(*store_);
  Json indexes = Json::array();
  bool uses_index = false;
  if (!manager.definitions().empty()) {
    for (const auto& group : groups_) {
      for (const QueryCondition& condition : group) {
        if (condition.targets_id()) continue;
        const IndexDefinition* def = manager.find(condition.field());
        if (def == nullptr) continue;
        const QueryOperator op = condition.op();
        const bool equality = op == QueryOperator::eq || op == QueryOperator::in;
        const bool ranged = def->range && RangeIndex::supports(condition);
        if (equality || ranged) {
          uses_index = true;
          indexes.push_back(
              {{"field", condition.field()}, {"operator", std::string(operator_name(op))}});
        }
      }
    }
  }
  return {{"store", "doc"},
          {"plan", uses_index ? "index_scan" : "full_scan"},
          {"indexes", std::move(indexes)},
          {"groups", groups_.size()}};
}

}  // namespace storh::engines::doc
