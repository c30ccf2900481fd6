// doc_floors.h: the doc plugin's five floors, the raw system calls under the store's
// write, get and scan paths with no engine at all, so put, get and the fast-path scans
// read against this machine's floor (engine-spec.md 11.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/durable_io.h"
#include "common/record.h"
#include "common/uuid_v7.h"
#include "storh/engine.h"

namespace storh::engines::doc {

// The record files of rows 0..n-1 (ids made from kBenchStartMs + i), back to back:
// record i is bytes[offsets[i], offsets[i + 1]), as the store would write it.
struct FloorRecords {
  explicit FloorRecords(std::uint64_t n);
  // The files of records a store holds (their ids decide the shard directories).
  explicit FloorRecords(const std::vector<SharedRecord>& records);
  std::size_t size() const noexcept { return offsets.size() - 1; }
  // Record i's file bytes, and its id (at offset 7: {"id":"<id>",...).
  std::string_view body(std::size_t i) const noexcept {
    return std::string_view(bytes).substr(offsets[i], offsets[i + 1] - offsets[i]);
  }
  std::string_view id(std::size_t i) const noexcept {
    return body(i).substr(7, uuid_v7::kTextSize);
  }
  std::string bytes;
  std::vector<std::size_t> offsets;

 private:
  void add(std::string_view id, const Json& data);
};

// Each function times raw system calls in `dir` (created here; must not exist) with no
// engine, over the record files of `records`, and checks its files afterwards; errors
// are the returned Status. Each runs next to the operation it is the floor of, so both
// see the same state of the filesystem (file creation slows down for minutes after
// deletions: docs/architecture.md, measurement hazards).
//
//   put_floor     n x: open a temp file, write the record bytes, fsync it, rename it into
//                 its shard, fsync the shard directory (put's protocol);
//   scan_floor    readdir every shard directory and fstatat every file put_floor wrote
//                 (the STAT revalidation of the store's fast path).
Status measure_put_and_scan_floors(RunContext& ctx, const std::filesystem::path& dir,
                                   const FloorRecords& records, Sync sync);
//   bulk_floor    the batched protocol of put_stream and import_jsonl, batch_size
//                 records at a time: create and write each temp file, make them
//                 durable, fstat and close each, rename each, make the renames durable,
//                 with the calls `bulk_sync` chooses for the batch (one syncfs each time,
//                 or an fsync per file and per touched shard directory; record_writer.h)
//                 (the floor of bulk_put and jsonl_import).
Status measure_bulk_floor(RunContext& ctx, const std::filesystem::path& dir,
                          const FloorRecords& records, std::size_t batch_size, Sync sync,
                          BulkSync bulk_sync);
//   delete_floor  unlinkat the first `deletes` record files (written and synced untimed,
//                 shard directories open), no sync: delete's protocol (engine-spec.md
//                 4.4 syncs nothing).
// The floors of bulk_put and delete take the records of the store they compare with,
// so that the same ids spread over the same shard directories (with bulk_sync = files a
// bulk batch pays one directory fsync per shard it touches).
Status measure_delete_floor(RunContext& ctx, const std::filesystem::path& dir,
                            const FloorRecords& records, std::uint64_t deletes, Sync sync);

//   get_floor     fstatat the record files of `ids` in the store's data directory
//                 `data_dir`, shard directories open (untimed): the one system call a
//                 warm STAT get makes, on the same files, in the same worker, right
//                 after the gets (so the floor, not the get, finds the kernel's caches
//                 warm). Checks every file is there and not empty.
Status measure_get_floor(RunContext& ctx, const std::filesystem::path& data_dir,
                         const std::vector<std::string>& ids);

}  // namespace storh::engines::doc
