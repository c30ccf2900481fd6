// count/callgrind.h: the instructions instrument. The host runs the counting worker
// under `valgrind --tool=callgrind --collect-atstart=no`; the worker's Probe turns
// collection on around each step and dumps it with the operation's name
// (CALLGRIND_DUMP_STATS_AT), one file per dump. This file reads those dumps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace storh::count {

// Whether this host was built with <valgrind/callgrind.h>; without it the worker
// cannot bracket steps and the instructions instrument is refused.
bool callgrind_supported();

// `valgrind` on $PATH, or nullopt.
std::optional<std::filesystem::path> find_valgrind();

// The valgrind command that runs `argv` (a worker) with callgrind writing its dumps
// to `out_file`.1, `out_file`.2, ... in dump order.
std::vector<std::string> callgrind_command(const std::filesystem::path& valgrind,
                                           const std::filesystem::path& out_file,
                                           const std::vector<std::string>& argv);

struct CallgrindDump {
  std::string trigger;             // the dump's reason, e.g. "put" for a client request
  std::uint64_t instructions = 0;  // Ir of the totals (or summary) line
};

// Parses one callgrind output file: `desc: Trigger: Client Request: <name>` gives the
// trigger (`desc: Trigger: <other>` is kept whole), `events:` the event columns, and
// `totals:` (or `summary:` when there is no totals line) the counts; Ir is the
// instructions. Errors name `origin` and what is missing.
Expected<CallgrindDump> parse_callgrind(std::string_view text, const std::string& origin);

// The dump file with this 1-based number for `out_file` (see callgrind_command).
std::filesystem::path callgrind_dump_file(const std::filesystem::path& out_file,
                                          std::size_t number);

}  // namespace storh::count
