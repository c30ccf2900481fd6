// Queries and counting of SegmentedLog (engine-spec.md sections 5.6 and 5.7).
#include <algorithm>

#include "common/canonical_json.h"
#include "common/query/json_values.h"
#include "log/segment_io.h"
#include "log/segmented_log.h"

namespace storh::engines::log {
namespace {

// The id of a single `id eq "<string>"` condition, when the group has one.
const QueryCondition* id_equality(const std::vector<QueryCondition>& group) {
  for (const QueryCondition& condition : group) {
    if (condition.targets_id() && condition.op() == QueryOperator::eq &&
        condition.value().is_string()) {
      return &condition;
    }
  }
  return nullptr;
}

bool is_scalar(const Json& value) {
  return value.is_primitive() && !value.is_binary();
}

// A group of `eq` conditions on distinct data fields with scalar values becomes a
// RecordQuery of field equalities (section 5.6).
std::optional<RecordQuery> as_record_query(const LogQuery& query) {
  RecordQuery out;
  if (query.cursor_id()) out = out.after(*query.cursor_id());
  if (query.limit_count()) out = out.limit(*query.limit_count());
  if (query.groups().empty()) return out;
  const auto* group = query.single_group();
  if (group == nullptr) return std::nullopt;
  std::vector<std::string> seen;
  for (const QueryCondition& condition : *group) {
    if (condition.targets_id() || condition.op() != QueryOperator::eq ||
        !is_scalar(condition.value()) ||
        std::find(seen.begin(), seen.end(), condition.field()) != seen.end()) {
      return std::nullopt;
    }
    seen.push_back(condition.field());
    out = out.where_equal(condition.field(), condition.value());
  }
  return out;
}

}  // namespace

std::vector<Record> SegmentedLog::find(const LogQuery& query) const {
  const auto limit = query.limit_count();
  if (const auto* group = query.single_group()) {
    if (const QueryCondition* by_id = id_equality(*group)) {
      std::vector<Record> out;
      auto record = get(by_id->value().get_ref<const std::string&>());
      if (record && query.matches(record->id, record->data)) out.push_back(std::move(*record));
      return out;
    }
  }
  if (!query.order_field()) {
    if (auto record_query = as_record_query(query)) return stream(*record_query).to_vector();
  }
  RecordQuery scan;
  if (query.cursor_id()) scan = scan.after(*query.cursor_id());
  LogStream all = stream(scan);
  std::vector<Record> out;
  Record record;
  while (all.next(record)) {
    if (!query.matches(record.id, record.data)) continue;
    out.push_back(std::move(record));
    if (!query.order_field() && limit && static_cast<std::int64_t>(out.size()) >= *limit) break;
  }
  if (query.order_field()) {
    const std::string& field = *query.order_field();
    const Json null_value;
    const bool descending = query.descending();
    std::stable_sort(out.begin(), out.end(), [&](const Record& a, const Record& b) {
      const Json* va = find_field(a.data, field);
      const Json* vb = find_field(b.data, field);
      const int order = compare(va ? *va : null_value, vb ? *vb : null_value);
      return descending ? order > 0 : order < 0;
    });
    if (limit && static_cast<std::int64_t>(out.size()) > *limit) {
      out.resize(static_cast<std::size_t>(*limit));
    }
  }
  return out;
}

std::optional<Record> SegmentedLog::first(const LogQuery& query) const {
  std::vector<Record> found = find(query.limit(1));
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::uint64_t SegmentedLog::count(const LogQuery& query) const {
  const std::uint64_t cap =
      query.limit_count() ? static_cast<std::uint64_t>(*query.limit_count()) : UINT64_MAX;
  if (query.groups().empty()) {
    if (!query.cursor_id()) return std::min(live_, cap);
    const std::string_view cursor = *query.cursor_id();
    std::uint64_t counted = 0;
    state_.for_each([&](const StateEntry& entry) {
      if (!entry.deleted && key_view(entry.id) > cursor) ++counted;
    });
    return std::min(counted, cap);
  }
  if (const auto* group = query.single_group(); group != nullptr && group->size() == 1) {
    const QueryCondition& condition = group->front();
    if (const QueryCondition* by_id = id_equality(*group)) {
      const std::string& id = by_id->value().get_ref<const std::string&>();
      const StateEntry* entry = state_.find(id);
      const bool live = entry != nullptr && !entry->deleted &&
                        (!query.cursor_id() || std::string_view(id) > *query.cursor_id());
      return std::min<std::uint64_t>(live ? 1 : 0, cap);
    }
    if (!query.cursor_id() && condition.op() == QueryOperator::eq && !condition.targets_id() &&
        is_scalar(condition.value())) {
      if (!counters_.valid()) rebuild_counters();
      const std::int64_t counted = counters_.count(condition.field(), condition.value());
      if (counted >= 0) return std::min(static_cast<std::uint64_t>(counted), cap);
    }
  }
  return scan_count(query, cap);
}

void SegmentedLog::rebuild_counters() const {
  // One full parsing pass over the live, current records.
  counters_.reset_valid();
  LogStream all = stream();
  Record record;
  while (all.next(record)) counters_.add(record.data);
}

std::uint64_t SegmentedLog::scan_count(const LogQuery& query, std::uint64_t cap) const {
  // For a single eq, only lines holding `"<field>":<canonical value>` are parsed.
  std::string needle;
  if (const auto* group = query.single_group(); group != nullptr && group->size() == 1) {
    const QueryCondition& condition = group->front();
    if (condition.op() == QueryOperator::eq && !condition.targets_id() &&
        is_scalar(condition.value()) && !condition.value().is_number_float()) {
      append_json_string(needle, condition.field());
      needle += ':';
      append_compact(needle, condition.value());
    }
  }
  std::uint64_t counted = 0;
  std::string buffer;
  const std::string_view cursor = query.cursor_id() ? std::string_view(*query.cursor_id()) : "";
  auto scan = [&](const SegmentState& segment) {
    if (counted >= cap) return;
    scan_segment(path_of(segment.file), false, options_.sync, buffer,
                 [&](const LineView& line, std::uint64_t offset, std::uint64_t) {
                   if (counted >= cap || line.op != LineOp::put) return;
                   if (!cursor.empty() && !(line.id > cursor)) return;
                   if (!needle.empty() && line.canonical &&
                       line.data_json.find(needle) == std::string_view::npos) {
                     return;
                   }
                   if (!is_current(line.id, Location{segment.file, offset})) return;
                   const Json data = line_data(line);
                   if (query.matches(line.id, data)) ++counted;
                 });
  };
  for (const SegmentState& segment : sealed_) scan(segment);
  scan(active_);
  return std::min(counted, cap);
}

}  // namespace storh::engines::log
