// foreign/read_result.h: any result file report and history take, by its shape.
#pragma once

#include <filesystem>

#include "result/result.h"
#include "util/expected.h"

namespace storh::foreign {

// A storh-host result file or a Google Benchmark file, told apart by document_kind()
// (foreign/document_kind.h); a storh PHP file is refused here (compare reads it). Errors
// name the file: unreadable, not JSON, a bad value with its JSON path, or neither
// shape ("x.json: not a result file: no schema_version, and no context and benchmarks
// of a Google Benchmark file").
Expected<result::ResultFile> read_result(const std::filesystem::path& file);

}  // namespace storh::foreign
