// foreign/read_result.h: any result file report and history take, by its shape.
#pragma once

#include <filesystem>

#include "result/result.h"
#include "util/expected.h"

namespace storh::foreign {

// A storh-host result file (it has "schema_version", result/json.h) or a Google
// Benchmark file ("context" and "benchmarks", foreign/google_benchmark.h). Errors
// name the file: unreadable, not JSON, a bad value with its JSON path, or neither
// shape ("x.json: not a result file: no schema_version, and no context and benchmarks
// of a Google Benchmark file").
Expected<result::ResultFile> read_result(const std::filesystem::path& file);

}  // namespace storh::foreign
