// foreign/github_action_benchmark.h: a result as the JSON that github-action-benchmark's
// custom tools read (benchmark-action/github-action-benchmark, `tool:
// customSmallerIsBetter` or `customBiggerIsBetter`): an array of
//   {"name": string, "unit": string, "value": number, "range": string, "extra": string}
// with `range` and `extra` optional in the action and always written here.
//
// One file feeds one tool, and a tool has one direction, so a file holds the metrics of
// one direction: smaller-is-better (the times: per item, in "ns") for
// customSmallerIsBetter, or bigger-is-better (a load cell's "tps", scores) for
// customBiggerIsBetter. A result with both gives two files, each fed to its own step
// of the action (docs/integrations.md). `range` is "± <stddev>" in the value's unit,
// `extra` the runs and the min .. max, one per line, as the action's tooltip shows it.
#pragma once

#include <string>

#include "result/result.h"

namespace storh::foreign {

enum class ActionTool { smaller_is_better, bigger_is_better };

// The metrics of `tool`'s direction, in file order; "[]" when there are none.
std::string github_action_benchmark_json(const result::ResultFile& result, ActionTool tool);

}  // namespace storh::foreign
