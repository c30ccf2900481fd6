// cli/execute.h: running a prepared suite; shared by `run` and `ci`.
#pragma once

#include <atomic>

#include "cli/prepare.h"
#include "plan/shard.h"
#include "result/result.h"
#include "util/expected.h"

namespace storh::cli {

// Ctrl-C, SIGTERM and SIGHUP (a closed terminal) set interrupted() for the lifetime
// of the guard; the runner then stops its worker, cleans up and returns a partial
// result.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static const std::atomic<bool>& interrupted();
};

// Runs `plan` (the prepared plan, or a subset of it for re-runs) and records an
// engine that could not be loaded as failures. First warns on io.err about each
// debug or unoptimised plugin of `plan` (result/plugin_build.h). Fails only when no
// work directory can be made. With `shard`, only that shard's cells run
// (plan/shard.h) and the result records it.
Expected<result::ResultFile> execute(const Prepared& prepared, const plan::Plan& plan,
                                     const CommandIo& io,
                                     std::optional<plan::ShardSpec> shard = std::nullopt);

// Writes the result file atomically and prints the report and "result: PATH".
// Returns false (after printing why) when the file cannot be written.
bool write_and_report(const Prepared& prepared, const result::ResultFile& result,
                      const CommandIo& io);

}  // namespace storh::cli
