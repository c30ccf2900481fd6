// engine_count.h: one of an engine's own statistics over a stretch of work, as the
// engine reads it (SQLite's page cache hits, RocksDB's compaction bytes). An engine
// library returns these and knows nothing of the host; its adapter reports each one
// through RunContext::engine_counter (docs/counters.md lists them).
#pragma once

#include <string>

namespace storh::engines {

struct EngineCount {
  std::string name;  // "<engine>.<counter>", snake_case: "sqlite.cache_hits"
  std::string unit;  // a plural noun: "pages", "bytes"
  double total = 0;  // over the stretch of work
  // Exact for the same workload and seed, so a gate may compare it with 0 tolerance:
  // measured by running twice, not assumed.
  bool repeats = false;
};

}  // namespace storh::engines
