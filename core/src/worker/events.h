// worker/events.h: what a worker process tells the host, one JSON object per line on
// file descriptor 3. Lines, in order:
//
//   {"event":"loaded"}                                   plugin loaded, run() begins
//   {"event":"begin","op":"put"}                         a timed step starts
//   {"event":"sample","op":"put","seconds":0.41,"items":1000[,"latency":{...}]}
//   {"event":"fail","op":"put","message":"..."}          the step returned an error
//   {"event":"progress","message":"..."}
//   {"event":"counters","op":"put","items":1000,"counters":{...}|"dump":N}
//                                                        counting pass only (count/probe.h)
//   {"event":"done","ok":true|false[,"message":"..."]}   run() returned
//
// A worker that crashes simply stops writing; the host knows the operation from the
// last "begin". Exit codes (util/exit_codes.h): kWorkerExitOk (0) ran cleanly,
// kWorkerExitStepFailed (1) an operation failed, kWorkerExitBadInput (2) the plugin
// could not be loaded or the arguments were bad.
#pragma once

#include <string>
#include <vector>

#include "util/exit_codes.h"

namespace storh::worker {

// `storh-host __worker ...`: the child side. Returns the process exit code.
int worker_main(const std::vector<std::string>& args);

// `storh-host __describe FILE [--name=NAME]`: prints the description JSON.
int describe_main(const std::vector<std::string>& args);

}  // namespace storh::worker
