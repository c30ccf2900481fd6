// publish/dashboard.h: a result as the JSON that benchmark dashboards read, for
// `storh-host report --format=bmf|github-action-benchmark|github-action-benchmark-bigger`
// (docs/integrations.md). Each value is a metric as exported_value.h gives it.
//
// bmf: Bencher Metric Format, for `bencher run --adapter json --file FILE`
// (bencher.dev/docs/reference/bencher-metric-format). As Bencher's JSON schema has it:
// an object with a member per metric (its key, "doc.put[n=1000]"), holding a member
// per measure, each an object with a number `value` and the optional numbers
// `lower_value` and `upper_value`:
//   {"doc.put": {"latency": {"value": 412.5, "lower_value": 401.0, "upper_value": 430.2}}}
// A time is the `latency` measure, per item in nanoseconds (Bencher's Latency unit); a
// higher-is-better value (a load cell's transactions per second) is `throughput`.
// Lower and upper are the smallest and the largest sample.
//
// github-action-benchmark (benchmark-action/github-action-benchmark, `tool:
// customSmallerIsBetter`) and github-action-benchmark-bigger (`customBiggerIsBetter`):
// an array of {"name", "unit", "value", "range", "extra"} (strings but `value`; the
// action takes `range` and `extra` as optional, they are always written here). One file
// feeds one tool and a tool has one direction, so a file holds the metrics of one
// direction: the times (per item, "ns") for the smaller-is-better tool, the
// higher-is-better values (a load cell's "tps", scores) for the bigger one; "[]" when
// there are none. A result with both gives two files, each for its own step of the
// action. `range` is "± <stddev>" in the value's unit; `extra` the runs and the
// min .. max, one per line, as the action's tooltip shows it.
//
// Deterministic: the same result gives the same bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "result/result.h"

namespace storh::publish {

enum class DashboardFormat { bmf, github_action_smaller, github_action_bigger };

// "bmf", "github-action-benchmark", "github-action-benchmark-bigger"; nullopt otherwise.
std::optional<DashboardFormat> parse_dashboard_format(std::string_view name);

std::string dashboard_json(const result::ResultFile& result, DashboardFormat format);

}  // namespace storh::publish
