// worker/request.h: what the host asks of one worker process, as a struct and as the
// worker's command line.
//
// The host (run/worker_run.cpp) fills a WorkerRequest and starts its to_argv(); the
// worker (worker/worker_main.cpp) reads it back with from_argv(). Both sides go
// through this one file, so a flag is written and read in one place only. Every
// argument after `__worker` is `--flag=value`, each flag at most once; an optional
// field that is not set writes no flag.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "count/counters.h"
#include "load/config.h"
#include "storh/engine.h"
#include "util/expected.h"

namespace storh::worker {

// The argument that makes `storh-host` a worker (cli/cli.cpp).
inline constexpr std::string_view kWorkerCommand = "__worker";

// Parameter values by name, as --params carries them (and a preflight request, plugin/session.h).
using ParamValues = std::map<std::string, ParamValue, std::less<>>;

struct WorkerRequest {
  std::filesystem::path plugin;         // --plugin: the plugin's library; required
  std::string name;                     // --name: the engine it must hold; empty: any
  std::uint64_t dataset = 0;            // --dataset: the cell's dataset size
  std::filesystem::path work_dir;       // --work-dir: fresh and empty, made by the host
  std::vector<std::string> operations;  // --ops: the operations to time; empty: all
  // --params: the cell's chosen values, over the engine's declared defaults.
  ParamValues params;
  std::optional<load::LoadConfig> load;  // --load: a load cell's configuration
  // --min-time: seconds a measure_repeated batch must last; 0 turns batching off.
  std::optional<double> min_time;
  // --inject-slowdown: every timed step lasts (1 + F) times as long (the power harness).
  std::optional<double> inject_slowdown;
  std::optional<count::Instrument> count;  // --count: the counting pass's instrument

  // The whole command line: `host_executable __worker --plugin=... ...`.
  std::vector<std::string> to_argv(const std::filesystem::path& host_executable) const;

  // Reads to_argv()'s arguments after the executable (`__worker` first, as the CLI
  // passes them on). An error names the flag and what it expected.
  static Expected<WorkerRequest> from_argv(const std::vector<std::string>& args);

  friend bool operator==(const WorkerRequest&, const WorkerRequest&) = default;
};

// Parameter values as the JSON object --params carries: {"name": value, ...}.
std::string params_to_json(const ParamValues& params);
// Reads params_to_json()'s form; "" reads as no values. The error says what is wrong.
Expected<ParamValues> params_from_json(std::string_view text);

}  // namespace storh::worker
