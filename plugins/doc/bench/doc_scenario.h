// doc_scenario.h: the doc plugin's scenario, storh's document-store benchmark
// (engine-spec.md section 11.1) over DocStore, its indexes and DocQuery.
//
// The 30 operations run in storh's order and do storh's work (same durable writes, same
// reads); each checks its answer against the rows it was built from, for any n >= 1
// (m = n/2, d = min(100, n); the n=1000 answers of section 11.1 are one case). Checks
// that cost more than the answer itself run after the timed step. A 31st operation,
// put_floor, times the write protocol's raw syscalls with no engine (n x: open a temp
// file, write the record bytes, fsync, rename, fsync the directory), so put reads
// against this machine's floor. A 32nd, scan_floor, times the raw syscalls of the STAT
// fast-path check over the n files put_floor wrote (readdir every shard directory,
// fstatat every file), the floor of unindexed_first, stream, unindexed_count and full.
// bulk_floor times the batched protocol of bulk_put and jsonl_import the same way (per
// batch: create and write the temp files, make them durable, rename each, make the
// renames durable, with the calls bulk_sync chooses), right after bulk_put over the same
// record files, and delete_floor the unlinks of delete, right before delete over copies
// of the files it deletes: file creation slows down for minutes after deletions, so a
// floor is only a floor next to its operation and over the same shard directories
// (doc_floors.h).
//
// Reads that return records (the get()s, stream, full) take them with shared data
// (get_shared, stream_shared), as storh's copy-on-write PHP arrays are returned: the
// timed step pays for finding and checking the records, not for a deep copy of each.
#pragma once

#include "storh/engine.h"

namespace storh::engines::doc {

// Runs every operation once in the cell's work directory, with the cell's durability,
// validation and bulk_sync (doc_params.h). Returns the first wrong answer; throws on an
// engine error (the caller guards it). A notify store that had to fall back to stat
// says why in a progress message.
Status run_scenario(RunContext& ctx);

}  // namespace storh::engines::doc
