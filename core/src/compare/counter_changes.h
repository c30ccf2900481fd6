// compare/counter_changes.h: the counting pass's figures (docs/counters.md) of two
// files side by side, for every compare format.
//
// A metric on both sides gets rows when either side was counted (it has counters or a
// not_counted reason): one row per counter that is nonzero on some side, in the stable
// counter order (count::counter_infos; unknown names follow by name), with the base
// and new values per item and the change, (new - base) / base in percent ("+inf%"
// from zero). A side whose work the counters could not see reads "not counted", and
// the metric then has one row whose counter is "-" and whose change is "-". A metric
// whose counters are all zero on both sides has no rows. When no metric was counted
// there are no rows, and the formats leave the section out, so comparisons of files
// without counters are unchanged.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compare/compare.h"
#include "report/table.h"

namespace storh::compare {

struct CounterChange {
  std::string key;
  std::string counter;         // "-" when a side was not counted
  std::optional<double> base;  // absent: not counted, or no such counter on that side
  std::optional<double> next;
  std::string base_not_counted;  // the side's reason, when it was not counted
  std::string next_not_counted;
  bool engine = false;  // an engine's own counter (result::Metric's engine_counters)
};

std::vector<CounterChange> counter_changes(const PairComparison& comparison);

// The table's title, for what its rows are: "counters per item (counting pass)",
// "engine counters per item", "counters per item (from the files)" for a Google
// Benchmark file's own, or a mix ("counters per item (counting pass and the engine's
// own)"); with `capital`, its first letter upper case (Markdown, HTML).
std::string counter_changes_title(const PairComparison& comparison,
                                  const std::vector<CounterChange>& changes, bool capital = false);

// "+100.00%", "+inf%", or "-" when a side has no value.
std::string counter_change_text(const CounterChange& change);

// Columns metric, counter, base, new, change; `code` wraps metric keys for Markdown.
std::pair<std::vector<report::Column>, report::Rows> counter_changes_table(
    const std::vector<CounterChange>& changes, bool code = false);

}  // namespace storh::compare
