// durability.h: the `durability` parameter every writing adapter declares, and the
// `bulk_sync` of the adapters whose engines sync many new files at once, in one place.
//
// durability:
//   durable  every acknowledged write is synced (Sync::durable, the default);
//   none     no fsync or fdatasync at all, to measure what the syncs cost.
// bulk_sync (BulkSync, durable_io.h):
//   filesystem  one syncfs for a pass of many new files (the default);
//   files       an fsync of every file and directory, as storh does.
#pragma once

#include <array>
#include <string_view>

#include "common/bench/params.h"
#include "common/durable_io.h"

namespace storh::engines::bench {

inline constexpr std::array<std::string_view, 2> kDurabilities{"durable", "none"};

// `description` says what a sync is in this adapter (one line).
constexpr TextParam durability_param(std::string_view description) {
  return {"durability", "durable", kDurabilities, description};
}

// The cell's `durability` as a Sync. Throws StoreError for any other text, which cannot
// happen for a declared durability_param (the host refuses values it does not allow).
Sync durability(const Lookup& param);

inline constexpr std::array<std::string_view, 2> kBulkSyncs{"filesystem", "files"};

// `description` says which passes it applies to in this adapter (one line).
constexpr TextParam bulk_sync_param(std::string_view description) {
  return {"bulk_sync", "filesystem", kBulkSyncs, description};
}

// The cell's `bulk_sync`; StoreError for any other text, as durability().
BulkSync bulk_sync(const Lookup& param);

}  // namespace storh::engines::bench
