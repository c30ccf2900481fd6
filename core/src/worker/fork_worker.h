// worker/fork_worker.h: a worker forked from a plugin's session child, without exec.
//
// A run's session child (`__describe FILE --preflights`, plugin/session.h) has the
// plugin loaded and described. Each repeat's worker is forked from it instead of
// started with exec: a fresh process all the same, which skips the host's start and
// the plugin's load (for a plugin linked to libpq, its thirty libraries), about 7 ms
// of CPU a repeat that a short run's client-CPU figure counts.
//
// The worker must be the host's child, so that the host watches it as one it started
// (wait4, its resource usage, its process group). The session child forks a middle
// process that forks the worker and exits at once: the orphaned worker is adopted by
// the host, which has made itself a child subreaper (PR_SET_CHILD_SUBREAPER).
//
// Only a single-threaded session child forks: a thread a plugin started while being
// described or checked would be missing from the copy, with any lock it held. The
// host then starts the worker with exec, as before.
#pragma once

#include <sys/types.h>

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storh::worker {

// The first word of a session request that asks for a worker: "spawn" and a JSON
// object {"argv": [...], "host": PID}, with the worker's stdin, stdout (or -1 sent as
// its stderr), stderr and event descriptors attached (process::ChildFds' order).
inline constexpr std::string_view kSpawnRequest = "spawn ";

// Forks the worker for `request` (the JSON after kSpawnRequest) with `fds`, which this
// call closes. Answers {"pid": N} once the worker has been adopted by the host, else
// {"error": why} and nothing was started.
nlohmann::json fork_worker(const std::string& request, std::array<int, 4> fds);

}  // namespace storh::worker
