// worker/ycsb_worker.h: the worker's side of a YCSB cell (docs/ycsb.md).
//
// The plugin's KeyValueStore (storh/key_value.h) is wrapped in a host-side
// Transactions with two types, "insert one record of the load phase" and "run one
// operation of the mix", so the load machinery (load/driver.h: client threads, the
// common start, the target rate, latency histograms) runs both phases. Events, as a
// load cell sends them: "begin" per phase, "load_progress", then one "load" event per
// metric: "ycsb_<w>.load", "ycsb_<w>" (the mix) and "ycsb_<w>.<kind>" per kind the mix
// runs. A wrong read answer, or a not-found for a loaded key, fails the transaction;
// a phase with failed transactions sends its "load" events, then "fail": the cell
// fails with the first message. Clients are always threads.
#pragma once

#include <string>
#include <vector>

#include "load/config.h"
#include "plugin/loader.h"
#include "storh/engine.h"
#include "worker/load_worker.h"

namespace storh::worker {

// `config.ycsb` must be set. `selected`: the cell's operations (empty: all). Returns
// the worker's exit code; emits "done".
int run_ycsb_cell(plugin::LoadedPlugin& loaded, RunContext& ctx,
                  const std::vector<std::string>& selected, const load::LoadConfig& config,
                  const EmitFn& emit);

}  // namespace storh::worker
