// worker/load_worker.h: the worker's side of a load cell (docs/load.md). Besides
// "begin" per phase and "done", it sends "load_progress" and "load" (worker/event.h).
// A type with parts (Transactions::parts) also sends a "load" event per part.
// A phase with failed transactions sends its "load" event (the numbers are data)
// and then "fail", so the cell fails with the first error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "load/config.h"
#include "plugin/loader.h"
#include "storh/engine.h"
#include "worker/event.h"

namespace storh::worker {

using EmitFn = std::function<void(const Event&)>;

// prepare, one phase per selected transaction type (describe() order), finish.
// `selected` empty means every type. Returns the worker's exit code; emits "done".
int run_load_cell(plugin::LoadedPlugin& loaded, RunContext& ctx,
                  const std::vector<std::string>& selected, const load::LoadConfig& config,
                  const EmitFn& emit);

}  // namespace storh::worker
