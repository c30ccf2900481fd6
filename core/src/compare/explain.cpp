#include "compare/explain.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/counters_section.h"

namespace storh::compare {
namespace {

// Beyond this relative change an engine counter "changed": below it, the last bits of
// a division, or a counter that moves with a few stray backend events.
constexpr double kChangedFraction = 0.01;

bool changed(double base, double next) {
  if (base == next) return false;
  if (base == 0 || next == 0) return true;
  return std::fabs(next - base) > kChangedFraction * std::fabs(base);
}

}  // namespace

std::string explain_change(const std::string& key, const std::string& unit, double delta_percent,
                           const std::vector<result::EngineCounterValue>& base,
                           const std::vector<result::EngineCounterValue>& next) {
  const char* per = unit == "tps" ? "per transaction" : "per item";
  std::vector<std::string> moved;
  std::vector<std::string> still;
  for (const result::EngineCounterValue& b : base) {
    const auto n = std::find_if(next.begin(), next.end(), [&](const result::EngineCounterValue& v) {
      return v.name == b.name;
    });
    if (n == next.end()) continue;
    if (changed(b.per_item, n->per_item)) {
      moved.push_back(fmt::format("{} {} {} -> {} {}", b.name, per,
                                  report::counter_value_text(b.per_item),
                                  report::counter_value_text(n->per_item), b.unit));
    } else if (b.per_item != 0 || n->per_item != 0) {
      still.push_back(b.name);
    }
  }
  std::string line =
      fmt::format("{} {} {:+.1f}%: ", key, unit.empty() ? "value" : unit, delta_percent);
  if (moved.empty()) return line + "no engine counter changed";
  line += fmt::format("{}", fmt::join(moved, ", "));
  if (still.size() == 1) line += fmt::format(", {} {} unchanged", still.front(), per);
  if (still.size() > 1) line += fmt::format(", {} other engine counters unchanged", still.size());
  return line;
}

bool engine_counters_changed(const std::vector<result::EngineCounterValue>& base,
                             const std::vector<result::EngineCounterValue>& next) {
  return std::any_of(base.begin(), base.end(), [&](const result::EngineCounterValue& b) {
    return std::any_of(next.begin(), next.end(), [&](const result::EngineCounterValue& n) {
      return n.name == b.name && changed(b.per_item, n.per_item);
    });
  });
}

std::vector<std::string> engine_counter_explanations(const PairComparison& comparison) {
  std::vector<std::string> lines;
  for (const PairRow& row : comparison.rows) {
    if (row.status != RowStatus::both || !row.base || !row.next) continue;
    if (row.verdict != Verdict::slower && row.verdict != Verdict::faster) continue;
    if (row.base->engine_counters.empty() || row.next->engine_counters.empty()) continue;
    lines.push_back(explain_change(row.key, row.next->unit, row.delta_percent,
                                   row.base->engine_counters, row.next->engine_counters));
  }
  return lines;
}

}  // namespace storh::compare
