// DocQuery::get and DocQuery::count: storh's execution order on a DocStore
// (engine-spec.md 4.7.7): the id shortcut, the no-condition fast path, index candidates
// (ordered range reads, limit push-down, compound files, per-condition id sets), and
// the scan. Candidates are always re-checked against the whole query.
#include <algorithm>
#include <set>
#include <unordered_set>

#include "common/query/json_values.h"
#include "common/uuid_v7.h"
#include "doc/doc_store.h"
#include "doc/index_keys.h"
#include "doc/index_manager.h"
#include "doc/query.h"

namespace storh::engines::doc {
namespace {

using Ids = std::vector<std::string>;

bool is_range_operator(QueryOperator op) {
  return op == QueryOperator::gt || op == QueryOperator::gte || op == QueryOperator::lt ||
         op == QueryOperator::lte || op == QueryOperator::between || op == QueryOperator::prefix;
}

bool all_indexable(const Json& list) {
  return list.is_array() &&
         std::all_of(list.begin(), list.end(), [](const Json& v) { return is_indexable(v); });
}

// Distinct elements of an `in` list, by strict identity (through their value keys).
std::vector<const Json*> distinct_values(const Json& list) {
  std::vector<const Json*> out;
  std::set<std::string> seen;
  for (const Json& value : list) {
    if (seen.insert(value_key(value)).second) out.push_back(&value);
  }
  return out;
}

Ids intersect(std::vector<Ids> sets) {
  std::sort(sets.begin(), sets.end(),
            [](const Ids& a, const Ids& b) { return a.size() < b.size(); });
  Ids result = std::move(sets.front());
  for (std::size_t i = 1; i < sets.size() && !result.empty(); ++i) {
    Ids next;
    std::set_intersection(result.begin(), result.end(), sets[i].begin(), sets[i].end(),
                          std::back_inserter(next));
    result = std::move(next);
  }
  return result;
}

Ids sorted_unique(Ids ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

struct Candidates {
  Ids ids;
  bool index_ordered = false;  // already in the query's order
};

class Planner {
 public:
  // `limit`: the query's own limit unless given (first_shared() plans with limit 1
  // without copying the query to set it).
  explicit Planner(const DocQuery& query, std::optional<std::size_t> limit = std::nullopt)
      : query_(query),
        limit_(limit ? limit : query.limit_count()),
        store_(query.store()),
        manager_(index_manager(query.store())) {}

  std::vector<SharedRecord> get() {
    if (auto shortcut = id_shortcut()) return std::move(*shortcut);
    if (manager_.active()) {
      if (auto candidates = index_candidates()) return load(*candidates);
    }
    return scan();
  }

  std::size_t count() {
    if (auto shortcut = id_shortcut()) return shortcut->size();
    const std::size_t cap = limit_.value_or(SIZE_MAX);
    if (!query_.has_conditions() && !query_.cursor_id()) {
      if (auto total = store_.fast_count()) return std::min(*total, cap);
    }
    if (manager_.active()) {
      if (!query_.cursor_id()) {
        if (auto counted = index_count()) return std::min(*counted, cap);
      }
      if (auto candidates = index_candidates()) return load(*candidates).size();
    }
    return scan().size();
  }

 private:
  // 1. A single group with `id eq X`: one lookup.
  std::optional<std::vector<SharedRecord>> id_shortcut() {
    if (query_.groups().size() != 1) return std::nullopt;
    const std::string* target = nullptr;
    bool found = false;
    for (const QueryCondition& condition : query_.groups()[0]) {
      if (!condition.targets_id() || condition.op() != QueryOperator::eq) continue;
      found = true;
      const Json& value = condition.value();
      if (!value.is_string()) return std::vector<SharedRecord>{};
      if (target != nullptr && *target != value.get_ref<const std::string&>()) {
        return std::vector<SharedRecord>{};
      }
      target = &value.get_ref<const std::string&>();
    }
    if (!found) return std::nullopt;
    if (!uuid_v7::is_valid(*target)) return std::vector<SharedRecord>{};
    if (query_.cursor_id() && !(*target > *query_.cursor_id())) {
      return std::vector<SharedRecord>{};
    }
    std::vector<SharedRecord> out;
    if (SharedJson data = store_.find(*target); data && query_.matches(*target, *data)) {
      out.push_back(SharedRecord{*target, std::move(data)});
    }
    return out;
  }

  // 3. Candidate ids from the indexes, or nullopt when the query must scan.
  std::optional<Candidates> index_candidates() {
    const auto& groups = query_.groups();
    const auto& order = query_.order();
    const auto limit = limit_;
    if (limit && !query_.cursor_id() && groups.size() == 1 && groups[0].size() == 1) {
      const QueryCondition& condition = groups[0][0];
      const IndexDefinition* def =
          condition.targets_id() ? nullptr : manager_.find(condition.field());
      if (def != nullptr && def->range && order && order->field == condition.field() &&
          is_range_operator(condition.op())) {
        if (auto ids = manager_.range_index(def->field)
                           .ordered_ids(condition, order->descending, *limit)) {
          return Candidates{std::move(*ids), true};
        }
      }
      if (def != nullptr && !order && condition.op() == QueryOperator::eq &&
          is_indexable(condition.value())) {
        return Candidates{manager_.eq_ids(*def, condition.value(), *limit), false};
      }
    }
    Ids all;
    for (const auto& group : groups) {
      std::optional<Ids> ids = group_ids(group);
      if (!ids) return std::nullopt;
      all.insert(all.end(), ids->begin(), ids->end());
    }
    return Candidates{groups.size() == 1 ? std::move(all) : sorted_unique(std::move(all)), false};
  }

  // The id set of one condition when an index can answer it exactly.
  std::optional<Ids> condition_ids(const QueryCondition& condition) {
    if (condition.targets_id()) return std::nullopt;
    const IndexDefinition* def = manager_.find(condition.field());
    if (def == nullptr) return std::nullopt;
    const Json& value = condition.value();
    switch (condition.op()) {
      case QueryOperator::eq:
        if (!is_indexable(value)) return std::nullopt;
        return manager_.eq_ids(*def, value);
      case QueryOperator::in: {
        if (!value.is_array()) return Ids{};  // matches nothing
        if (!all_indexable(value)) return std::nullopt;
        Ids ids;
        for (const Json* element : distinct_values(value)) {
          Ids part = manager_.eq_ids(*def, *element);
          ids.insert(ids.end(), part.begin(), part.end());
        }
        return sorted_unique(std::move(ids));
      }
      default:
        if (def->range && is_range_operator(condition.op()) && RangeIndex::supports(condition)) {
          return manager_.range_index(def->field).ids(condition);
        }
        return std::nullopt;
    }
  }

  // Whether two eq conditions of a group hit a compound file.
  bool compound_group(const std::vector<QueryCondition>& group) {
    return group.size() == 2 && group[0].op() == QueryOperator::eq &&
           group[1].op() == QueryOperator::eq && !group[0].targets_id() && !group[1].targets_id() &&
           is_indexable(group[0].value()) && is_indexable(group[1].value()) &&
           manager_.is_compound_pair(group[0].field(), group[1].field());
  }

  // Intersection of the usable conditions' sets; nullopt when none is usable.
  std::optional<Ids> group_ids(const std::vector<QueryCondition>& group) {
    if (compound_group(group)) {
      auto ids = manager_.compound_ids(group[0].field(), group[0].value(), group[1].field(),
                                       group[1].value());
      return ids ? std::move(*ids) : Ids{};
    }
    std::vector<Ids> sets;
    for (const QueryCondition& condition : group) {
      if (auto ids = condition_ids(condition)) sets.push_back(std::move(*ids));
    }
    if (sets.empty()) return std::nullopt;
    return intersect(std::move(sets));
  }

  // Index-only counts (trusted), or nullopt.
  std::optional<std::size_t> index_count() {
    const auto& groups = query_.groups();
    const std::size_t limit = limit_.value_or(0);
    if (groups.size() == 1 && groups[0].size() == 1) {
      const QueryCondition& condition = groups[0][0];
      const IndexDefinition* def =
          condition.targets_id() ? nullptr : manager_.find(condition.field());
      if (def != nullptr) {
        const Json& value = condition.value();
        if (condition.op() == QueryOperator::eq && is_indexable(value)) {
          return manager_.eq_count(*def, value);
        }
        if (condition.op() == QueryOperator::in && all_indexable(value)) {
          std::size_t total = 0;
          for (const Json* element : distinct_values(value))
            total += manager_.eq_count(*def, *element);
          return total;
        }
        if (def->range && is_range_operator(condition.op()) && RangeIndex::supports(condition)) {
          return manager_.range_index(def->field).count(condition, limit);
        }
      }
    }
    if (groups.size() == 1 && compound_group(groups[0])) {
      const auto& group = groups[0];
      return manager_.compound_count(group[0].field(), group[0].value(), group[1].field(),
                                     group[1].value());
    }
    // Every condition of every group answered by an index: the exact set sizes.
    Ids all;
    for (const auto& group : groups) {
      if (group.empty()) return std::nullopt;
      std::vector<Ids> sets;
      for (const QueryCondition& condition : group) {
        std::optional<Ids> ids = condition_ids(condition);
        if (!ids) return std::nullopt;
        sets.push_back(std::move(*ids));
      }
      Ids ids = intersect(std::move(sets));
      all.insert(all.end(), ids.begin(), ids.end());
    }
    return groups.size() == 1 ? all.size() : sorted_unique(std::move(all)).size();
  }

  // Loads candidates (in order), re-checks them, orders and truncates.
  std::vector<SharedRecord> load(const Candidates& candidates) {
    const auto limit = limit_;
    const bool early_stop = limit && !query_.order();
    std::vector<SharedRecord> out;
    for (const std::string& id : candidates.ids) {
      SharedJson data = store_.find(id);
      if (!data || !query_.matches(id, *data)) continue;
      out.push_back(SharedRecord{id, std::move(data)});
      if (early_stop && out.size() >= *limit) break;
    }
    if (!candidates.index_ordered) order(out);
    if (limit && out.size() > *limit) out.resize(*limit);
    return out;
  }

  // 4. Every record, checked against the whole query.
  std::vector<SharedRecord> scan() {
    const auto limit = limit_;
    const bool early_stop = limit && !query_.order();
    RecordQuery filter = RecordQuery::all();
    if (query_.cursor_id()) filter = filter.after(*query_.cursor_id());
    std::vector<SharedRecord> out;
    store_.scan(filter, [&](const RecordView& record) {
      if (!query_.matches(record.id, *record.data)) return true;
      out.push_back(SharedRecord{std::string(record.id), record.data});
      return !(early_stop && out.size() >= *limit);
    });
    order(out);
    if (limit && out.size() > *limit) out.resize(*limit);
    return out;
  }

  void order(std::vector<SharedRecord>& records) const {
    const auto& order = query_.order();
    if (!order) return;
    const bool by_id = order->field == "id";
    static const Json null_value = nullptr;
    const auto value_of = [&](const SharedRecord& record) -> const Json& {
      const Json* value = find_field(*record.data, order->field);
      return value != nullptr ? *value : null_value;
    };
    std::stable_sort(records.begin(), records.end(),
                     [&](const SharedRecord& a, const SharedRecord& b) {
                       const int c = by_id ? (a.id < b.id ? -1 : (a.id == b.id ? 0 : 1))
                                           : compare(value_of(a), value_of(b));
                       return order->descending ? c > 0 : c < 0;
                     });
  }

  const DocQuery& query_;
  std::optional<std::size_t> limit_;
  DocStore& store_;
  IndexManager& manager_;
};

}  // namespace

std::vector<SharedRecord> DocQuery::get_shared() const {
  return Planner(*this).get();
}

std::optional<SharedRecord> DocQuery::first_shared() const {
  std::vector<SharedRecord> records = Planner(*this, 1).get();
  if (records.empty()) return std::nullopt;
  return std::move(records.front());
}

std::vector<Record> DocQuery::get() const {
  std::vector<SharedRecord> shared = get_shared();
  std::vector<Record> records;
  records.reserve(shared.size());
  for (const SharedRecord& record : shared) records.push_back(record.to_record());
  return records;
}

std::size_t DocQuery::count() const {
  return Planner(*this).count();
}

}  // namespace storh::engines::doc
