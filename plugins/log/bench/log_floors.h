// log_floors.h: the floors of the log's single appends (engine-spec.md 11.2), the same
// system calls with no engine, so `log.append` reads against this machine's cost of them.
//
//   append_floor  n x (write one put line + fdatasync) to one file.
//   roll_floor    the file work of the rolls those n appends cause, one per
//                 max_segment_bytes of lines, as SegmentedLog rolls: create and write the
//                 sealed segment's sparse-index file, create the next segment file, write
//                 a temp manifest, fsync the three together (index data, temp file,
//                 segments/), rename the temp over the manifest, fsync the directory.
//                 Its items are the n appends, so its per-item time is what rolling adds
//                 to each append; file creation is slow on some file systems (ext4
//                 searches its inode bitmap past recently deleted inodes), and append_floor
//                 alone hid that part of the protocol.
// So log.append's floor is append_floor + roll_floor, both per item.
#pragma once

#include <cstdint>

#include "log/segmented_log.h"
#include "storh/engine.h"

namespace storh::log_bench {

// Runs whichever of the two the run selected, over one set of n put lines built before
// either clock starts.
Status run_floors(RunContext& ctx, std::uint64_t n, const engines::log::LogOptions& options);

}  // namespace storh::log_bench
