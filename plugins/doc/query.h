// query.h: storh's query builder on a DocStore (engine-spec.md 4.7.7, conditions of 3.2).
//
//   auto pages = DocQuery(store).where("kind").eq("page").limit(100).get();
//   auto latest = DocQuery(store).where("publishedAt").gte(0)
//                     .order_by("publishedAt", "desc").first();
//
// A DocQuery is an immutable value: every modifier returns a changed copy. It keeps a
// reference to its DocStore, which must outlive it; terminal methods (get, first,
// count, explain) use the store and so follow its thread-safety rule (one thread per
// store).
//
// Semantics (the reference model of property P1, section 10.5): a record matches when
// its id is greater than the cursor (if set) and it satisfies every condition of at
// least one group (groups are ORed, conditions within a group ANDed, with
// QueryCondition semantics). get() returns matches in ascending id order, or, with
// order_by, stable-sorted by compare() on the order value (the id for "id", null for a
// missing field; "desc" reverses), then truncated to the limit. count() counts matches
// capped at the limit; first() is get() with limit 1.
//
// Plans (query_planner.cpp): the id shortcut, the store's fast path, secondary indexes
// (equality, compound, range files with limit push-down and ordered reads) and full
// scans. Index answers are re-checked against the records, except counts, which trust
// the index files as storh does (verify()/reindex() handle drift).
//
// Failure: builder methods throw std::invalid_argument (blank field, limit < 1, invalid
// cursor id, bad direction); terminal methods throw what the store throws.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/query/query_condition.h"
#include "common/record.h"

namespace storh::engines::doc {

class DocStore;

struct QueryOrder {
  std::string field;
  bool descending = false;
};

class DocQuery {
 public:
  explicit DocQuery(DocStore& store);

  class FieldClause;

  // where(field).<operator>(...) appends the condition to every group; "id" means the
  // record id.
  FieldClause where(std::string field) const;
  // Appends `condition` to every group.
  [[nodiscard]] DocQuery where(const QueryCondition& condition) const;
  // Appends the groups `build` makes from an empty query as new alternatives.
  [[nodiscard]] DocQuery or_where(const std::function<DocQuery(DocQuery)>& build) const;
  // Appends every condition `build` makes (from an empty query) to every group.
  [[nodiscard]] DocQuery and_where(const std::function<DocQuery(DocQuery)>& build) const;
  // direction "asc" | "desc", case-insensitive.
  [[nodiscard]] DocQuery order_by(std::string field, std::string_view direction = "asc") const;
  // k >= 1.
  [[nodiscard]] DocQuery limit(std::int64_t count) const;
  [[nodiscard]] DocQuery page(std::int64_t count) const { return limit(count); }
  // Records with id > `id` (a valid UUIDv7).
  [[nodiscard]] DocQuery cursor(std::string_view id) const;

  std::vector<Record> get() const;
  // The same records with their data shared from the store's caches, not copied: the
  // read path without a deep copy per record (get() is this plus to_record()).
  std::vector<SharedRecord> get_shared() const;
  std::optional<Record> first() const;
  // The record first() returns, its data shared from the store's caches (no deep copy).
  std::optional<SharedRecord> first_shared() const;
  std::size_t count() const;
  // {"store":"doc","plan":"index_scan"|"full_scan","indexes":[{field,operator}],"groups":N}
  Json explain() const;

  // Whether (id, data) matches the whole query (cursor and groups), limit aside.
  bool matches(std::string_view id, const Json& data) const;

  DocStore& store() const noexcept { return *store_; }
  const std::vector<std::vector<QueryCondition>>& groups() const noexcept { return groups_; }
  const std::optional<QueryOrder>& order() const noexcept { return order_; }
  std::optional<std::size_t> limit_count() const noexcept { return limit_; }
  const std::optional<std::string>& cursor_id() const noexcept { return cursor_; }
  bool has_conditions() const noexcept;

 private:
  DocStore* store_;
  std::vector<std::vector<QueryCondition>> groups_;
  std::optional<QueryOrder> order_;
  std::optional<std::size_t> limit_;
  std::optional<std::string> cursor_;
};

// The operators of where(field); each returns the extended query.
class DocQuery::FieldClause {
 public:
  DocQuery eq(Json value) const { return add(QueryOperator::eq, std::move(value)); }
  DocQuery neq(Json value) const { return add(QueryOperator::neq, std::move(value)); }
  DocQuery in(Json values) const { return add(QueryOperator::in, std::move(values)); }
  DocQuery not_in(Json values) const { return add(QueryOperator::not_in, std::move(values)); }
  DocQuery gt(Json value) const { return add(QueryOperator::gt, std::move(value)); }
  DocQuery gte(Json value) const { return add(QueryOperator::gte, std::move(value)); }
  DocQuery lt(Json value) const { return add(QueryOperator::lt, std::move(value)); }
  DocQuery lte(Json value) const { return add(QueryOperator::lte, std::move(value)); }
  DocQuery between(Json low, Json high) const {
    return add(QueryOperator::between, std::move(low), std::move(high));
  }
  DocQuery exists() const { return add(QueryOperator::exists); }
  DocQuery missing() const { return add(QueryOperator::missing); }
  DocQuery prefix(Json value) const { return add(QueryOperator::prefix, std::move(value)); }

 private:
  friend class DocQuery;
  FieldClause(const DocQuery& query, std::string field) : query_(query), field_(std::move(field)) {}
  DocQuery add(QueryOperator op, Json value = nullptr, Json second = nullptr) const;
  DocQuery query_;
  std::string field_;
};

inline DocQuery::FieldClause DocQuery::where(std::string field) const {
  return FieldClause(*this, std::move(field));
}

// The same query builder, storh's name: store.query() in PHP.
inline DocQuery query(DocStore& store) {
  return DocQuery(store);
}

}  // namespace storh::engines::doc
