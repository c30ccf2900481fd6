// history/copy.h: one history's runs into another, any store to any store
// (`history copy`, docs/history.md).
#pragma once

#include <cstddef>

#include "history/store.h"
#include "util/expected.h"

namespace storh::history {

struct CopyCount {
  std::size_t copied = 0;
  std::size_t skipped = 0;  // already in the destination (the same result_hash)
};

// Adds every run of `from` to `to` with its metrics, result file, times and commit, in
// the order of `from`'s ids: a copy into an empty store gives a history whose ids have
// no gaps the same ids. Runs whose result `to` already holds are skipped, so a copy can
// be repeated, or merge two histories. Each run is its own transaction (add()); on an
// error the runs copied before it stay, and the message names the run.
Expected<CopyCount> copy_history(const HistoryStore& from, HistoryStore& to);

}  // namespace storh::history
