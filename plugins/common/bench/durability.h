// durability.h: the `durability` parameter every writing adapter declares, in one place.
//
//   durable  every acknowledged write is synced (Sync::durable, the default);
//   none     no fsync or fdatasync at all, to measure what the syncs cost.
#pragma once

#include <string>

#include "common/durable_io.h"
#include "storh/engine.h"

namespace storh::engines::bench {

// The ParamSpec of `durability`: string, default "durable", allowed "durable" and "none".
// `description` says what a sync is in this adapter (one line).
ParamSpec durability_param(std::string description);

// The run's `durability` as a Sync. Throws StoreError for any other text, which cannot
// happen for a declared durability_param (the host refuses values it does not allow).
Sync durability(const RunContext& ctx);

}  // namespace storh::engines::bench
