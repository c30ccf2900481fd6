// doc_params.h: the parameters of the document store that more than one adapter
// declares. `validation` (DocStoreOptions::validation, engine-spec.md 4.6) is the doc,
// cache and mirror adapters'; `durability` is the doc plugin's scenario's and its
// key-value store's (doc_kv.cpp), with the scenario's words and the key-value engines'
// words (docs/ycsb.md), mapped to the only two modes the doc store has
// (DocStoreOptions::sync):
//   durable, fsync  Sync::durable: a put returns after its file and its shard directory
//                   are fsynced (and a range index's delta line, when indexed)
//   none, os        Sync::none: no fsync at all; a put's file is written and renamed
//                   before it returns, so it survives a process crash, not a power loss.
//                   The doc store has no mode that keeps writes in the process, so none
//                   promises what os does.
// Both default to the first of their words ("stat", "durable"). Reading any other text
// throws StoreError naming the valid choices (the host refuses those before a cell runs).
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "common/bench/params.h"
#include "common/durable_io.h"
#include "doc/doc_store.h"

namespace storh::engines::doc {

// In Validation's order, as parse_validation names them.
inline constexpr std::array<std::string_view, 4> kValidations{"hash", "stat", "trust", "notify"};

// `description` says what the checks are in this adapter (one line); `choices` is the
// order `list` shows them in, kValidations unless the adapter always listed another.
constexpr bench::TextParam validation_param(
    std::string_view description, std::span<const std::string_view> choices = kValidations) {
  return {"validation", "stat", choices, description};
}

inline Validation validation(const bench::Lookup& param) {
  return parse_validation(bench::text(param, validation_param({})));
}

inline constexpr std::array<std::string_view, 4> kDurabilities{"durable", "none", "os", "fsync"};
inline constexpr bench::TextParam kDurability{
    "durability", "durable", kDurabilities,
    "durable or fsync: fsync every write (file and directory); none or os: no fsync, each write "
    "written and renamed before it returns (survives a process crash)"};

Sync durability(const bench::Lookup& param);

}  // namespace storh::engines::doc
