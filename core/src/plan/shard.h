// plan/shard.h: one of N deterministic parts of a plan (`run --shard=K/N`), so a suite
// too big for one CI machine spreads over a CI matrix and `merge` joins the parts.
//
// Shard K of N holds the cells whose index in the full plan is K - 1 modulo N: round
// robin, so every shard gets cells of every dataset and engine and the parts take
// similar time. The fingerprint stays the full plan's, so the shards of one suite
// have the same one and `merge` can tell them from another suite's.
#pragma once

#include <cstdint>
#include <string_view>

#include "plan/plan.h"
#include "util/expected.h"

namespace storh::plan {

struct ShardSpec {
  std::uint32_t index = 1;  // K, 1-based
  std::uint32_t count = 1;  // N
};

// "K/N" with 1 <= K <= N <= 10000; the error names the flag and says what is valid.
Expected<ShardSpec> parse_shard(std::string_view text);

// Whether the cell at `cell_index` of the full plan belongs to the shard.
inline bool in_shard(std::size_t cell_index, const ShardSpec& shard) {
  return cell_index % shard.count == shard.index - 1;
}

// The plan with only the shard's cells (in their order); everything else unchanged.
Plan shard_of(const Plan& plan, const ShardSpec& shard);

}  // namespace storh::plan
