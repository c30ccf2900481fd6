// doc_floors.h: the doc plugin's two floors, the raw system calls under the store's
// write and scan paths with no engine at all, so put and the fast-path scans read
// against this machine's floor (engine-spec.md 11.1).
#pragma once

#include <cstdint>
#include <filesystem>

#include "common/durable_io.h"
#include "storh/engine.h"

namespace storh::engines::doc {

// Times two operations in `dir` (created here; must not exist):
//   put_floor   n x: open a temp file, write the record bytes of row i (id made from
//               kBenchStartMs + i), sync it, rename it into its shard, sync the shard
//               directory (the syncs skipped for Sync::none);
//   scan_floor  readdir every shard directory and fstatat every file put_floor wrote
//               (the STAT revalidation of the store's fast path).
// Each checks afterwards that it saw n files. Errors are the returned Status.
Status measure_floors(RunContext& ctx, const std::filesystem::path& dir, std::uint64_t n,
                      Sync sync);

}  // namespace storh::engines::doc
