// ycsb/cell.h: what the host makes of a suite's [ycsb] table for one workload: the
// properties a cell runs with and the metrics it reports (docs/ycsb.md).
//
// A YCSB cell reports, under the engine, "ycsb_<w>.load" (the load phase),
// "ycsb_<w>" (the whole run phase mix) and "ycsb_<w>.<kind>" for each kind of
// operation mixed_kinds names, each a load metric with throughput and
// latency percentiles. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "load/config.h"
#include "storh/engine.h"
#include "util/expected.h"
#include "ycsb/core_workload.h"
#include "ycsb/properties.h"

namespace storh::ycsb {

// The preset of `spec.workload` with every property of the spec set over it, in
// order. Fails with an unknown letter or the first value set_property refuses (its
// message). Does not call check_properties.
Expected<Properties> cell_properties(const load::YcsbSpec& spec);

// The kinds a cell reports, in Op order: those the mix runs (proportion > 0), and read
// and update whenever read_modify_write is among them (its parts, which YCSB's DB
// layer records under READ and UPDATE besides READ-MODIFY-WRITE).
std::vector<Op> mixed_kinds(const Properties& properties);

// "ycsb_a": the run phase's operation (the whole mix) of workload `letter`.
std::string workload_operation(char letter);
// "ycsb_a.load", "ycsb_a.read", ...
std::string phase_operation(char letter, std::string_view phase);

// The operations a cell of workload `letter` reports, in this order: load, the mix,
// then each mixed kind. Unit "operations", lower is better (their times).
std::vector<OperationSpec> workload_operations(char letter, const Properties& properties);

// The workload a YCSB operation name belongs to ('a' for "ycsb_a.read"), or 0.
char workload_of(std::string_view operation);

}  // namespace storh::ycsb
