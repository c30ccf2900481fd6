// worker/fork_worker.h: a worker forked from a plugin's session child, without exec.
//
// A run's session child (`__describe FILE --preflights`, plugin/session.h) has the
// plugin loaded and described. Each repeat's worker is forked from it instead of
// started with exec: a process of its own, though with the plugin's state as
// describe() and preflight() left it and one address-space layout for all repeats of
// the run. It skips the host's start and the plugin's load (for a plugin linked to libpq, its
// thirty libraries), about 7 ms of CPU a repeat that a short run's client-CPU figure counts.
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
// object {"argv": [...], "host": PID}, with five descriptors attached: the worker's
// stdin, stdout (its stderr when its output joins stderr), stderr and event
// descriptors (process::ChildFds' order), and the read end of a pipe on which the host
// writes one byte once it has the worker's pid.
inline constexpr std::string_view kSpawnRequest = "spawn ";
inline constexpr std::size_t kSpawnFds = 5;

// Forks the worker for `request` (the JSON after kSpawnRequest) with `fds`, which this
// call closes. Answers {"pid": N} once the middle process has exited (so the worker
// has been adopted, by the host when it is the nearest subreaper; the host checks),
// else {"error": why} and nothing was started. The worker runs only after the host's
// byte: if the pipe ends without one, it exits.
nlohmann::json fork_worker(const std::string& request, std::array<int, kSpawnFds> fds);

}  // namespace storh::worker
