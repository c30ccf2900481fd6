// worker/worker_main.h: the worker process, `storh-host __worker ...`, and the
// describing child, `storh-host __describe FILE`.
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

// `storh-host __describe FILE [--name=NAME] [--preflights]`: prints the description
// JSON; with --preflights on one line, then answers Engine::preflight requests read
// from stdin, a line each (plugin/session.h).
int describe_main(const std::vector<std::string>& args);

// Ends a worker with `code` without unloading the plugin: threads or static destructors
// a plugin left behind must not turn a finished run into a crash after "done".
[[noreturn]] void finish_worker(int code);

// For the two above: prints "storh-host worker: MESSAGE" on stderr and returns
// kWorkerExitBadInput.
int fail_input(const std::string& message);

}  // namespace storh::worker
