// history/record.h: a result file turned into a history run: where its code came
// from (commit, branch), when it ran, and which environment's series it joins.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/store.h"
#include "result/result.h"
#include "util/expected.h"

namespace storh::history {

// What the user said about the run (flags); each overrides what the result and git say.
struct RunSource {
  std::optional<std::string> commit;
  std::optional<std::string> branch;
  std::optional<std::string> time;  // ISO-8601 UTC, "2026-12-01T10:00:00Z"
  // Whether a result without experiment.git_commit may take the commit checked out
  // now where its suite or plugins live: true for ci, whose run just ended; false
  // for `history add`, whose result may be older than what is checked out now.
  bool from_checkouts = false;
};

struct NewRun {
  HistoryRun run;
  std::vector<HistoryPoint> points;
  std::string result_json;  // the canonical text of the result (result/json.h)
};

// The environment key of a result: the facts that make timings comparable, so that
// series of different machines, filesystems, builds or durability modes are never
// mixed: "Intel Xeon Gold 6338 | 2 CPUs | 24 GiB | ext4 | Linux 6.1.0 | Debian GNU/Linux
// 12 (bookworm) | g++ 12.2.0 Release | durable". Unknown facts read "?".
std::string environment_key(const result::ResultFile& result);

// The run to store for `result`, read from `origin` (for messages), added at
// `added_time`. Refuses a result that is interrupted, one shard of a sharded run
// (merge the shards first), that has no metric, or whose time is not ISO-8601 UTC.
//
// commit: RunSource, else experiment.git_commit (the suite's checkout when it ran),
// else (from_checkouts) the checkout holding the suite file or the first engine's
// plugin module. branch: RunSource, else the branch checked out in one of those
// checkouts, when it still points at that commit.
Expected<NewRun> new_run(const result::ResultFile& result, const std::string& origin,
                         const RunSource& source, const std::string& added_time);

// Whether `text` is "YYYY-MM-DDTHH:MM:SSZ" (the form environment.time has).
bool is_utc_time(const std::string& text);

}  // namespace storh::history
