// worker/worker_main.h: the worker process, `storh-host __worker ...`, and the
// describing and preflight children, `storh-host __describe FILE` and `__preflight`.
//
// The host never runs a plugin in its own process: each run of a cell is a worker
// that loads the plugin, runs it, and tells the host what happened as event lines on
// file descriptor 3 (worker/event.h lists them). Exit codes (util/exit_codes.h):
// kWorkerExitOk (0) ran cleanly, kWorkerExitStepFailed (1) an operation failed,
// kWorkerExitBadInput (2) the plugin could not be loaded or the arguments were bad.
#pragma once

#include <string>
#include <vector>

#include "util/exit_codes.h"

namespace storh::worker {

// `storh-host __worker ...`: the child side. Returns the process exit code.
int worker_main(const std::vector<std::string>& args);

// `storh-host __describe FILE [--name=NAME]`: prints the description JSON.
int describe_main(const std::vector<std::string>& args);

// `storh-host __preflight FILE --name=NAME --params=JSON`: Engine::preflight of an
// ABI >= 1.4 plugin with the declared defaults overridden by JSON. Exit 0 when it
// accepts them; else its message on stderr and kWorkerExitBadInput.
int preflight_main(const std::vector<std::string>& args);

// For the three above: prints "storh-host worker: MESSAGE" on stderr and returns
// kWorkerExitBadInput.
int fail_input(const std::string& message);

}  // namespace storh::worker
