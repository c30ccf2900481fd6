// env/provenance.h: where a run came from and what else the machine was doing, so a
// result file can be traced back (host name, the suite's git commit) and a reader is
// told when other processes competed for the CPUs.
//
// Readers take their sources as arguments (text of /proc/loadavg, a directory), so
// tests feed canned files; nothing throws except std::bad_alloc.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace storh::env {

// The machine's host name (gethostname); empty when it cannot be read.
std::string host_name();

// The commit checked out in the git work tree that contains `dir` (searched upwards
// for a `.git` directory, or a `.git` file as linked worktrees and submodules have),
// as 40 hex digits. HEAD may be detached or name a branch whose ref is loose or in
// packed-refs. nullopt when `dir` is not in a git checkout or HEAD names no commit
// yet. Reads the files directly, so git need not be installed.
std::optional<std::string> git_commit_of(const std::filesystem::path& dir);

// The branch checked out there ("main" for HEAD = ref: refs/heads/main), read the same
// way; nullopt when HEAD is detached or `dir` is not in a git checkout.
std::optional<std::string> git_branch_of(const std::filesystem::path& dir);

// The 1-minute load average: the first field of /proc/loadavg's text. nullopt when
// the text does not start with a number.
std::optional<double> parse_loadavg(std::string_view text);

// parse_loadavg of /proc/loadavg; nullopt when it cannot be read.
std::optional<double> read_load_average();

// A warning when the machine was busy `when` ("at the start of the run"): the
// 1-minute load average above the number of CPUs means runnable processes waited for
// a CPU, so timings include that wait. nullopt when load <= cpus or cpus is 0.
//   "machine busy at the start of the run: 1-minute load average 3.52 > 2 CPUs; other
//    processes competed for the CPUs, timings are noisy"
std::optional<std::string> busy_warning(std::string_view when, double load, unsigned cpus);

}  // namespace storh::env
