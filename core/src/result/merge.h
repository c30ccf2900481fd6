// result/merge.h: joining the result files of one suite's shards (`run --shard=K/N`)
// into the file an unsharded run of the same cells would have written.
//
// Refused, with a message naming the files: a file that is not a shard; shards of
// different suites or fingerprints (the fingerprint is the whole plan's, so a changed
// suite is a different one); different shard counts or plan sizes; a shard given
// twice or missing; a metric in two shards (they overlap).
//
// The merged file: the first shard's experiment without `shard` (every shard
// describes the whole plan), its environment with the warnings of every shard, and a
// warning when the shards ran on different CPU models, commits or plugin builds;
// `interrupted` when any shard was; the counters of every shard (first use first); the metrics of
// all shards sorted by key as a run sorts them; runs and failures shard by shard, each in its
// execution order.
#pragma once

#include <string>
#include <vector>

#include "result/result.h"
#include "util/expected.h"

namespace storh::result {

struct NamedResult {
  std::string name;  // as the user gave it, for messages
  ResultFile result;
};

Expected<ResultFile> merge_shards(const std::vector<NamedResult>& shards);

// The warnings of `merged` that its first shard (the lowest index) did not have: what
// merge learned, for printing.
std::vector<std::string> warnings_added_by_merge(const std::vector<NamedResult>& shards,
                                                 const ResultFile& merged);

}  // namespace storh::result
