// cli/expected_time.h: how long a suite will take, said before it runs (validate, and
// the first line of a run), where the host can know:
//   - the suite's output file holds a finished run of the same plan (fingerprint):
//     the sum of its worker runs' wall times;
//   - else every cell is a load cell bounded by a duration: its timed phases, a lower
//     bound (set-up, loading and the counting pass come on top).
// A plan of fixed work that has never run here has no estimate: nothing is said.
#pragma once

#include <string>

#include "cli/prepare.h"

namespace storh::cli {

// "about 8m52s (the last run of this plan, build/bench-load-rw.json)", "at least 1m30s
// (the timed phases of 18 duration-bound runs)", or empty when unknown.
std::string expected_time(const Prepared& prepared);

}  // namespace storh::cli
