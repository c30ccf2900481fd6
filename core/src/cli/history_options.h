// cli/history_options.h: the flags that `history` and `ci --history` share.
#pragma once

#include <string>

#include "cli/args.h"
#include "stats/change_points.h"
#include "util/expected.h"

namespace storh::cli {

// Where the history is (history::HistoryStore::open takes it): the value of `flag` (--db,
// or ci's --history), else $STORH_HISTORY, else storh-history.db in the current
// directory. A file name or a postgresql:// URI. An empty value is an error (SQLite
// would open a temporary database that vanishes).
Expected<std::string> history_db(const ParsedArgs& args, const std::string& flag = "db");

// --max-p (0 < p < 1, default 0.001) and --min-segment (2 to 1000 runs, default 3).
Expected<stats::ChangePointOptions> change_point_options(const ParsedArgs& args);

}  // namespace storh::cli
