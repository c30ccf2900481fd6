// log_workload.h: storh's log and recovery benchmark workloads (engine-spec.md sections
// 11.2 and 11.4) over SegmentedLog, shared by the two plugin adapters (log_plugin.cpp
// and recovery_plugin.cpp). Not part of the engine library: it knows the host.
//
// Every timed step checks its answer against the general formula for any n >= 1 (the
// "expected" column of section 11 at n = 1000) and fails with a message naming the
// operation, the answer and the expectation.
#pragma once

#include <vector>

#include "storh/engine.h"

namespace storh::log_bench {

// The parameters both plugins declare: segment_size and durability.
std::vector<ParamSpec> log_params();
// segment_size >= 256, SegmentedLog's own minimum (segmented_log.h).
std::vector<ParamRange> log_param_ranges();
std::vector<OperationSpec> log_operations();

// append_floor, the 20 operations of section 11.2, then recover (as `log.recover`).
Status run_log_workload(RunContext& ctx);
// Section 11.4: n untimed puts, garbage on the active segment, a timed reopen that
// cuts it. `operation` is the metric name ("recover").
Status run_recover(RunContext& ctx, std::string_view operation);

}  // namespace storh::log_bench
