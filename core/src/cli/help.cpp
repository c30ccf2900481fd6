#include "cli/commands.h"

namespace storh::cli {

std::string help_text(const std::string& command) {
  if (command == "run") {
    return R"(Usage: storh-host [run] SUITE.toml [options]

Runs every engine of the suite over its datasets and parameter matrix, each repeat
in a fresh worker process, writes the result JSON atomically and prints a report.

Options (each overrides the suite):
  --dataset=N[,N...]        dataset sizes (1000, 10k, 1M)
  --engine=NAME[,NAME...]   run only these engines (one not in the suite runs with defaults)
  --repeat=N                timed repeats per cell, each in a fresh process
  --warmup=N                untimed runs per cell before the repeats
  --output=PATH             result file (default: the suite's output)
  --memory-limit=SIZE       per-worker resident memory limit (512M, 2G; none)
  --timeout=DURATION        per-worker wall-clock limit (30s, 10m; none)
  --plugin-path=DIR         look for plugins here first (repeatable)
  --work-dir=DIR            parent of the per-run work directories (default: $TMPDIR)
  --set ENGINE.PARAM=V[,V]  set a parameter; a comma list is a matrix dimension
  --format=text|md          report format on stdout (default text)

Exit codes: 0 all cells passed, 1 a cell failed (the result file is still written),
2 bad input (suite, arguments), 130 interrupted (partial result written).
)";
  }
  if (command == "validate") {
    return R"(Usage: storh-host validate SUITE.toml [run options]

Checks a suite without running it: syntax, keys, types, sizes and durations, then
engines, operations and parameter values against the plugins found. Prints the cells
the suite expands to. Takes the same overrides as run.

Exit codes: 0 valid, 2 invalid (every error names file:line:column).
)";
  }
  if (command == "list") {
    return R"(Usage: storh-host list [--plugin-path=DIR]... [--format=text|json]

Lists the engine plugins found on the plugin path (--plugin-path, $STORH_PLUGIN_PATH,
the build's plugin directory, the installed plugin directory), with their operations
and parameters.

Exit codes: 0 every plugin loaded, 1 a plugin was refused or failed to load.
)";
  }
  if (command == "report") {
    return R"(Usage: storh-host report RESULT.json [--format=text|md]

Prints the report of a result file. The report is a pure function of the file.

Exit codes: 0 ok, 2 unreadable or invalid result file.
)";
  }
  return R"(storh-host: a benchmark framework for storage-engine plugins.

Usage:
  storh-host SUITE.toml [options]       run a suite (same as `storh-host run`)
  storh-host run SUITE.toml [options]
  storh-host validate SUITE.toml        check a suite without running it
  storh-host list [--plugin-path=DIR]   plugins found, their operations and parameters
  storh-host report RESULT.json [--format=text|md]
  storh-host COMMAND --help             help for one command
  storh-host --version

Exit codes: 0 ok, 1 a cell failed, 2 bad input, 130 interrupted.
)";
}

}  // namespace storh::cli
