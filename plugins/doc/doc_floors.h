// doc_floors.h: the doc plugin's four floors, the raw system calls under the store's
// write and scan paths with no engine at all, so put and the fast-path scans read
// against this machine's floor (engine-spec.md 11.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "common/durable_io.h"
#include "storh/engine.h"

namespace storh::engines::doc {

struct FloorOptions {
  Sync sync = Sync::durable;   // Sync::none skips every fsync, as the store does
  std::size_t batch_size = 1;  // the store's put_stream / import_jsonl batch
  std::uint64_t deletes = 0;   // how many files delete_floor unlinks (the delete step's d)
};

// Times four operations in `dir` (created here; must not exist), over the record files
// of rows 0..n-1 (ids made from kBenchStartMs + i):
//   put_floor     in dir/put, n x: open a temp file, write the record bytes, fsync it,
//                 rename it into its shard, fsync the shard directory (put's protocol);
//   scan_floor    readdir every shard directory and fstatat every file put_floor wrote
//                 (the STAT revalidation of the store's fast path);
//   bulk_floor    in dir/bulk, the batched protocol of put_stream and import_jsonl,
//                 batch_size records at a time: create and write each temp file, fsync,
//                 fstat and close each, rename each, then one fsync per shard directory
//                 the batch touched (the floor of bulk_put and jsonl_import);
//   delete_floor  unlinkat the first `deletes` files put_floor wrote, shard directories
//                 open, no sync: delete's protocol (engine-spec.md 4.4 syncs nothing).
// Each checks its files afterwards. Errors are the returned Status.
Status measure_floors(RunContext& ctx, const std::filesystem::path& dir, std::uint64_t n,
                      const FloorOptions& options);

}  // namespace storh::engines::doc
