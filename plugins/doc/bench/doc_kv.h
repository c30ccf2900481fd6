// doc_kv.h: what the doc plugin's scenario (doc_plugin.cpp) shares with its key-value
// store (doc_kv.cpp, storh/key_value.h): the `durability` parameter.
//
// One parameter for both, with the scenario's words and the key-value engines' words
// (docs/ycsb.md), mapped to the only two modes the doc store has (DocStoreOptions::sync):
//   durable, fsync  Sync::durable: a put returns after its file and its shard directory
//                   are fsynced (and a range index's delta line, when indexed)
//   none, os        Sync::none: no fsync at all; a put's file is written and renamed
//                   before it returns, so it survives a process crash, not a power loss.
//                   The doc store has no mode that keeps writes in the process, so none
//                   promises what os does.
// The default is "durable". Throws StoreError naming the valid choices for any other
// text (the host refuses those before a cell runs).
#pragma once

#include "common/durable_io.h"
#include "storh/engine.h"

namespace storh::engines::doc {

ParamSpec durability_param();
Sync durability(const RunContext& ctx);

}  // namespace storh::engines::doc
