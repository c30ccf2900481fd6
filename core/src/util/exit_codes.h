// util/exit_codes.h: the exit codes of storh-host and of its worker processes.
//
// The command line's codes are distinct and documented (`storh-host --help`, the
// README's "Exit codes:" paragraph): a script can tell a regression from bad input
// from a run that broke. Every command returns one of these; none other.
//
// A worker process (`storh-host __worker`, worker/worker_main.h) has codes of its own. The
// host never passes them on as its own exit code; they appear only in a result
// file's failures[].exit_code, so they keep their values and a distinct name.
#pragma once

namespace storh {

// storh-host commands.
inline constexpr int kExitOk = 0;          // everything ran, passed or was written
inline constexpr int kExitRegression = 1;  // gate, ci, ab: a metric regressed (or is missing)
inline constexpr int kExitBadInput = 2;    // bad suite, arguments or input file (JSON, plugin dir)
// A cell, worker or plugin failed, or an output could not be written. A run's result
// file is still written when it can be (its failures[] say what broke).
inline constexpr int kExitRunFailed = 3;
inline constexpr int kExitInterrupted = 130;  // Ctrl-C: partial result written, marked interrupted

// A worker process (`__worker`, `__describe`), as failures[].exit_code records it.
inline constexpr int kWorkerExitOk = 0;          // run() returned and every step passed
inline constexpr int kWorkerExitStepFailed = 1;  // a step or the run failed
inline constexpr int kWorkerExitBadInput = 2;    // the plugin did not load, or bad arguments

}  // namespace storh
