// bench_row.h: the synthetic record data of storh's benchmark workloads (engine-spec.md
// section 11.0), shared by every engine adapter so all engines measure the same rows.
#pragma once

#include <cstdint>

#include "common/record.h"
#include "common/schema.h"

namespace storh::engines {

// The timestamp (ms) the workloads build ids and "publishedAt" values from.
inline constexpr std::int64_t kBenchStartMs = 1700000000000;

// row(i), keys in this order:
//   {"kind": i even ? "page" : "post", "status": i % 3 == 0 ? "draft" : "published",
//    "bucket": i % 10, "slug": "item-<i>", "publishedAt": kBenchStartMs + i}
// All numbers are JSON integers.
Json bench_row(std::uint64_t i);

// The benchmark's schema of those rows (engine-spec.md 11.8), for engines and tests
// that index them: collection "docs", kind (string, indexed), slug (string, unique),
// publishedAt (integer, range-indexed).
Schema bench_schema();

}  // namespace storh::engines
